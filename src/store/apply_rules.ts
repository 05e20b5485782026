/**
 * The driver-independent Apply contract (docs/design.md#the-store): every
 * driver asks these pure functions what to write, so all of them accept, reject
 * and no-op alike. Drivers only add the resourceVersion and persist the result.
 */
import type { KObject, ObjectKey, ObjectMeta } from "../api/v1alpha1/meta.ts";
import { validateObject, validateStatus } from "../api/v1alpha1/validate.ts";
import {
  type ApplyOptions,
  ConflictError,
  type DeleteOptions,
  InvalidObjectError,
  ManagedByError,
} from "./store.ts";

/** What a validator says about one object. */
export type ValidationResult =
  | { ok: true; object: KObject }
  | { ok: false; issues: { path: string; message: string }[] };

/** The schema checks a driver runs before any write. */
export interface ObjectValidator {
  /** Whole object: defaults, strict unknown fields, immutability against `old`. */
  validateObject(input: unknown, old?: KObject): ValidationResult;
  /** Status only, for updateStatus. */
  validateStatus(obj: KObject): ValidationResult;
}

/** The kudurru.io/v1alpha1 schemas (src/api/v1alpha1/validate.ts). */
export const defaultValidator: ObjectValidator = {
  validateObject: (input, old) =>
    old === undefined ? validateObject(input) : validateObject(input, old),
  validateStatus: (obj) => validateStatus(obj),
};

/** What planApply decided. "removed": the last finalizer of a deleting object went away. */
export interface ApplyPlan {
  outcome: "created" | "updated" | "unchanged" | "removed";
  object: KObject;
}

/** The key of raw input that may not even be a valid object, for error messages. */
export function keyOfInput(input: unknown): ObjectKey {
  const o =
    (typeof input === "object" && input !== null ? input : {}) as Partial<
      KObject
    >;
  const meta =
    (typeof o.metadata === "object" && o.metadata !== null
      ? o.metadata
      : {}) as Partial<
        ObjectMeta
      >;
  return {
    kind: typeof o.kind === "string" ? o.kind : "",
    namespace: typeof meta.namespace === "string" ? meta.namespace : "",
    name: typeof meta.name === "string" ? meta.name : "",
  };
}

/** Deep equality of JSON values; object keys whose value is undefined count as absent. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (
    typeof a !== "object" || typeof b !== "object" || a === null || b === null
  ) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
  return ka.length === kb.length &&
    ka.every((k) => Object.hasOwn(rb, k) && jsonEqual(ra[k], rb[k]));
}

/** Same spec, labels, annotations and finalizers (empty and absent are equal). */
export function sameContent(a: KObject, b: KObject): boolean {
  return a.apiVersion === b.apiVersion &&
    jsonEqual(a.spec, b.spec) &&
    jsonEqual(a.metadata.labels ?? {}, b.metadata.labels ?? {}) &&
    jsonEqual(a.metadata.annotations ?? {}, b.metadata.annotations ?? {}) &&
    jsonEqual(a.metadata.finalizers ?? [], b.metadata.finalizers ?? []);
}

/** Validates or throws InvalidObjectError naming the fields. */
export function validateOrThrow(
  validator: ObjectValidator,
  input: unknown,
  old?: KObject,
): KObject {
  const result = old === undefined
    ? validator.validateObject(input)
    : validator.validateObject(input, old);
  if (!result.ok) {
    throw new InvalidObjectError(keyOfInput(input), result.issues);
  }
  return structuredClone(result.object);
}

/** Copies metadata without undefined fields (exactOptionalPropertyTypes) and managedFields. */
function cleanMeta(meta: ObjectMeta): ObjectMeta {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(meta)) {
    if (v !== undefined && k !== "managedFields") out[k] = v;
  }
  return out as unknown as ObjectMeta;
}

function checkOwnership(
  key: ObjectKey,
  stored: KObject,
  manager: string,
  force: boolean,
): void {
  const owner = stored.metadata.managedBy ?? "";
  if (owner !== "" && owner !== manager && !force) {
    throw new ManagedByError(key, owner, manager);
  }
}

function checkVersion(
  key: ObjectKey,
  stored: KObject | undefined,
  expected?: string,
): void {
  if (expected === undefined || expected === "") return;
  const actual = stored?.metadata.resourceVersion ?? "";
  if (actual !== expected) throw new ConflictError(key, expected, actual);
}

function planCreate(
  obj: KObject,
  opts: ApplyOptions,
  now: () => Date,
): ApplyPlan {
  const meta = cleanMeta(obj.metadata);
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  meta.managedBy = opts.manager;
  meta.generation = 1;
  // Callers may stamp uid and creationTimestamp; fill them only when absent.
  meta.uid ??= crypto.randomUUID();
  meta.creationTimestamp ??= now().toISOString();
  const object: KObject = {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: meta,
  };
  if (obj.spec !== undefined) object.spec = obj.spec;
  return { outcome: "created", object };
}

function planUpdate(
  stored: KObject,
  obj: KObject,
  opts: ApplyOptions,
): ApplyPlan {
  const meta = cleanMeta(obj.metadata);
  const old = stored.metadata;
  const specChanged = !jsonEqual(stored.spec, obj.spec);
  delete meta.uid;
  delete meta.creationTimestamp;
  delete meta.deletionTimestamp;
  delete meta.resourceVersion;
  const next: ObjectMeta = cleanMeta({
    ...meta,
    uid: old.uid,
    creationTimestamp: old.creationTimestamp,
    deletionTimestamp: old.deletionTimestamp,
    resourceVersion: old.resourceVersion,
    generation: (old.generation ?? 1) + (specChanged ? 1 : 0),
    managedBy: opts.manager,
  } as ObjectMeta);
  const object: KObject = {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    metadata: next,
  };
  if (obj.spec !== undefined) object.spec = obj.spec;
  // Apply never writes status: keep what the controllers wrote.
  if (stored.status !== undefined) object.status = stored.status;
  if (
    old.deletionTimestamp !== undefined && (next.finalizers ?? []).length === 0
  ) {
    return { outcome: "removed", object };
  }
  if (sameContent(stored, object) && (old.managedBy ?? "") === opts.manager) {
    return { outcome: "unchanged", object: stored };
  }
  return { outcome: "updated", object };
}

/**
 * Decides what an Apply writes. Throws InvalidObjectError, ManagedByError,
 * ConflictError. The returned object has no new resourceVersion yet; for
 * "unchanged" it is the stored object itself and nothing must be written.
 */
export function planApply(
  existing: KObject | undefined,
  incoming: KObject,
  opts: ApplyOptions,
  validator: ObjectValidator,
  now: () => Date,
): ApplyPlan {
  const obj = validateOrThrow(validator, incoming, existing);
  const key = keyOfInput(obj);
  checkVersion(key, existing, opts.expectedResourceVersion);
  if (existing === undefined) return planCreate(obj, opts, now);
  checkOwnership(key, existing, opts.manager, opts.force ?? false);
  return planUpdate(existing, obj, opts);
}

/** What planDelete decided: remove the object, mark it deleting, or nothing (already marked). */
export interface DeletePlan {
  outcome: "removed" | "marked" | "unchanged";
  object: KObject;
}

/** Decides what a Delete writes. Throws ManagedByError and ConflictError. */
export function planDelete(
  key: ObjectKey,
  stored: KObject,
  opts: DeleteOptions,
  now: () => Date,
): DeletePlan {
  if (opts.manager !== undefined) {
    checkOwnership(key, stored, opts.manager, opts.force ?? false);
  }
  checkVersion(key, stored, opts.expectedResourceVersion);
  if ((stored.metadata.finalizers ?? []).length === 0) {
    return { outcome: "removed", object: stored };
  }
  if (stored.metadata.deletionTimestamp !== undefined) {
    return { outcome: "unchanged", object: stored };
  }
  const object = structuredClone(stored);
  object.metadata.deletionTimestamp = now().toISOString();
  return { outcome: "marked", object };
}

/**
 * Decides what updateStatus writes: the stored object with the new status.
 * Throws InvalidObjectError; "unchanged" when the status is already stored.
 */
export function planStatus(
  stored: KObject,
  incoming: KObject,
  validator: ObjectValidator,
): { outcome: "updated" | "unchanged"; object: KObject } {
  const result = validator.validateStatus(incoming);
  if (!result.ok) {
    throw new InvalidObjectError(keyOfInput(incoming), result.issues);
  }
  const status = structuredClone(result.object.status);
  if (jsonEqual(stored.status, status)) {
    return { outcome: "unchanged", object: stored };
  }
  const object = structuredClone(stored);
  if (status === undefined) delete object.status;
  else object.status = status;
  return { outcome: "updated", object };
}

/**
 * Accepts any object with apiVersion, kind and metadata.name: for tests of
 * kind-agnostic code. Production drivers use the real schemas.
 */
export const permissiveValidator: ObjectValidator = {
  validateObject(input) {
    const o = input as Partial<KObject> | null;
    const issues: { path: string; message: string }[] = [];
    if (typeof o?.apiVersion !== "string") {
      issues.push({ path: "apiVersion", message: "required" });
    }
    if (typeof o?.kind !== "string") {
      issues.push({ path: "kind", message: "required" });
    }
    if (typeof o?.metadata?.name !== "string" || o.metadata.name === "") {
      issues.push({ path: "metadata.name", message: "required" });
    }
    return issues.length
      ? { ok: false, issues }
      : { ok: true, object: input as KObject };
  },
  validateStatus(obj) {
    return { ok: true, object: obj };
  },
};
