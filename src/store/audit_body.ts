/**
 * The before and after bodies an audit row keeps (schema v3): copies of
 * the object with every secret masked, so the audit trail says that a
 * password or a token changed without holding a hash an attacker could
 * try offline. A status write keeps the status only: it says what a
 * controller observed, and the spec is unchanged by definition.
 */
import type { KObject } from "../api/v1alpha1/meta.ts";
import type { RuntimeValue } from "./store.ts";

/** What a secret that is set is shown as. */
export const AUDIT_MASK = "********";
/** What a secret shows in `after` when the write changed it. */
export const AUDIT_MASK_CHANGED = "******** (changed)";

/** The secret fields of each kind that has any. */
export const AUDIT_SECRET_PATHS: Readonly<
  Record<string, readonly (readonly string[])[]>
> = {
  User: [["spec", "passwordHash"], ["spec", "totp", "sealedSecret"]],
  APIToken: [["spec", "secretHash"]],
};

/** The two bodies; absent for a create (before) and a delete (after). */
export interface AuditBodies {
  before?: unknown;
  after?: unknown;
}

/**
 * The bodies of an object write: masked copies, or with `statusOnly` (the
 * `status` action) `{status}` of each. Neither input is changed.
 */
export function auditBodies(
  before: KObject | undefined,
  after: KObject | undefined,
  opts: { statusOnly?: boolean } = {},
): AuditBodies {
  if (opts.statusOnly) {
    return {
      ...(before !== undefined && { before: { status: copy(before.status) } }),
      ...(after !== undefined && { after: { status: copy(after.status) } }),
    };
  }
  const kind = after?.kind ?? before?.kind ?? "";
  const paths = AUDIT_SECRET_PATHS[kind] ?? [];
  const out: AuditBodies = {};
  const b = before === undefined ? undefined : copy(before);
  const a = after === undefined ? undefined : copy(after);
  for (const path of paths) {
    const old = b === undefined ? undefined : valueAt(b, path);
    const now = a === undefined ? undefined : valueAt(a, path);
    if (b !== undefined && isSet(old)) setAt(b, path, AUDIT_MASK);
    if (a !== undefined && isSet(now)) {
      setAt(a, path, old === now ? AUDIT_MASK : AUDIT_MASK_CHANGED);
    }
  }
  if (b !== undefined) out.before = b;
  if (a !== undefined) out.after = a;
  return out;
}

/** The bodies of a runtime value write: `{value}` before and after. */
export function runtimeAuditBodies(
  before: RuntimeValue | undefined,
  after: RuntimeValue | undefined,
): AuditBodies {
  return {
    ...(before !== undefined && { before: { value: before.value } }),
    ...(after !== undefined && { after: { value: after.value } }),
  };
}

function copy<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "";
}

function valueAt(obj: unknown, path: readonly string[]): unknown {
  let node = obj;
  for (const key of path) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function setAt(obj: unknown, path: readonly string[], value: unknown): void {
  let node = obj as Record<string, unknown>;
  for (const key of path.slice(0, -1)) {
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}
