/**
 * Validation of whole objects as the API, the objects loader and the Store
 * drivers receive them: envelope, scope, strict schema with defaults, and
 * transition rules against the stored object. Issues name their field path
 * the way kubectl does: `spec.endpoints[3].targets[0]`.
 */
import type { z } from "zod";
import { API_VERSION, type KObject } from "./meta.ts";
import { type KindInfo, kindInfo, KINDS } from "./kinds.ts";

/** One problem with one field. */
export interface FieldIssue {
  /** Dotted path with indices, e.g. `spec.endpoints[3].targets[0]`; "" for the whole object. */
  path: string;
  message: string;
}

/** The valid object with defaults applied, or every issue found. */
export type Validation =
  | { ok: true; object: KObject }
  | { ok: false; issues: FieldIssue[] };

/**
 * Validates an object of any kind. With `old` (the stored object) the
 * transition rules apply too: zoneName and zoneRef may not change.
 */
export function validateObject(input: unknown, old?: KObject): Validation {
  if (!isPlainObject(input)) {
    return fail([{
      path: "",
      message: "must be an object with apiVersion, kind, metadata and spec",
    }]);
  }
  const issues: FieldIssue[] = [];
  if (input.apiVersion !== API_VERSION) {
    issues.push({
      path: "apiVersion",
      message: input.apiVersion === undefined
        ? `is required (use "${API_VERSION}")`
        : `must be "${API_VERSION}", got ${JSON.stringify(input.apiVersion)}`,
    });
  }
  const info = kindInfo(input.kind);
  if (info === undefined) {
    issues.push({ path: "kind", message: unknownKindMessage(input.kind) });
    return fail(issues);
  }
  issues.push(...scopeIssues(info, input.metadata));
  const parsed = info.objectSchema.safeParse(input, { error: fieldMessage });
  if (!parsed.success) {
    // apiVersion was reported above with a clearer message.
    issues.push(
      ...toFieldIssues(parsed.error.issues).filter((i) =>
        i.path !== "apiVersion"
      ),
    );
  }
  if (issues.length > 0 || !parsed.success) return fail(issues);
  const object = parsed.data as KObject;
  if (old !== undefined && old.kind === object.kind) {
    const changed = transitionIssues(info, old, object);
    if (changed.length > 0) return fail(changed);
  }
  return { ok: true, object };
}

/** Validates (and defaults) only the status of an object whose kind is known. */
export function validateStatus(obj: KObject): Validation {
  const info = kindInfo(obj.kind);
  if (info === undefined) {
    return fail([{ path: "kind", message: unknownKindMessage(obj.kind) }]);
  }
  if (obj.status === undefined) return { ok: true, object: obj };
  const parsed = info.statusSchema.safeParse(obj.status, {
    error: fieldMessage,
  });
  if (!parsed.success) {
    return fail(toFieldIssues(parsed.error.issues, ["status"]));
  }
  return { ok: true, object: { ...obj, status: parsed.data } };
}

/**
 * True when two objects want the same thing: equal spec, labels, annotations
 * and finalizers. Key order does not matter; absent and empty are the same.
 */
export function sameContent(a: KObject, b: KObject): boolean {
  const content = (o: KObject) => ({
    spec: o.spec ?? null,
    labels: o.metadata.labels ?? {},
    annotations: o.metadata.annotations ?? {},
    finalizers: o.metadata.finalizers ?? [],
  });
  return deepEqual(content(a), content(b));
}

function fail(issues: FieldIssue[]): Validation {
  return { ok: false, issues };
}

function unknownKindMessage(kind: unknown): string {
  const known = KINDS.map((k) => k.kind).join(", ");
  return kind === undefined
    ? `is required (one of ${known})`
    : `unknown kind ${JSON.stringify(kind)}; known kinds: ${known}`;
}

function scopeIssues(info: KindInfo, metadata: unknown): FieldIssue[] {
  if (!isPlainObject(metadata)) return [];
  const hasNamespace = metadata.namespace !== undefined;
  if (!info.namespaced && hasNamespace) {
    return [{
      path: "metadata.namespace",
      message: `must be absent: ${info.kind} is cluster-scoped`,
    }];
  }
  if (info.namespaced && !hasNamespace) {
    return [{
      path: "metadata.namespace",
      message: `is required: ${info.kind} is namespaced`,
    }];
  }
  return [];
}

function transitionIssues(
  info: KindInfo,
  old: KObject,
  next: KObject,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const field of info.immutableFields) {
    const before = valueAt(old, field.path);
    const after = valueAt(next, field.path);
    if (before !== undefined && !deepEqual(before, after)) {
      issues.push({
        path: formatPath(field.path),
        message: `${field.message}: was ${JSON.stringify(before)}, got ${
          JSON.stringify(after)
        }`,
      });
    }
  }
  return issues;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (!isPlainObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** zod issues as field issues; unknown keys become one issue per key. */
export function toFieldIssues(
  issues: readonly z.core.$ZodIssue[],
  prefix: readonly PropertyKey[] = [],
): FieldIssue[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        path: formatPath([...path, key]),
        message: "unknown field",
      }));
    }
    return [{ path: formatPath(path), message: issue.message }];
  });
}

const IDENTIFIER_RE = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** ["spec", "endpoints", 3, "targets", 0] → "spec.endpoints[3].targets[0]". */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && IDENTIFIER_RE.test(key)) {
      out += out === "" ? key : `.${key}`;
    } else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "a list",
  record: "a map of strings",
};

/**
 * Messages for zod's built-in checks, worded to follow the field path.
 * Schemas that carry their own message keep it (zod gives those precedence).
 */
function fieldMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "is required";
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case "unrecognized_keys":
      return "unknown field";
    case "invalid_value":
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of: ${issue.values.map(String).join(", ")}`;
    case "too_small":
      return boundMessage("at least", issue.origin, issue.minimum);
    case "too_big":
      return boundMessage("at most", issue.origin, issue.maximum);
    case "invalid_format":
      return `must be a valid ${issue.format}`;
    default:
      return undefined;
  }
}

function boundMessage(
  bound: string,
  origin: string,
  limit: number | bigint,
): string {
  const n = Number(limit);
  switch (origin) {
    case "array":
    case "set":
      return `must have ${bound} ${n} item${n === 1 ? "" : "s"}`;
    case "string":
      return `must be ${bound} ${n} character${n === 1 ? "" : "s"} long`;
    default:
      return `must be ${bound} ${n}`;
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Structural equality for JSON values; object key order is ignored. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length &&
      a.every((v, i) => deepEqual(v, b[i]));
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keysA = Object.keys(a).filter((k) => a[k] !== undefined);
  const keysB = Object.keys(b).filter((k) => b[k] !== undefined);
  return keysA.length === keysB.length &&
    keysA.every((k) => deepEqual(a[k], b[k]));
}
