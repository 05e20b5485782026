/**
 * The rules for runtime values (Store.getRuntime/setRuntime), shared by every
 * driver: which keys and values are storable, and what a write stores and
 * audits. Keys look like annotation names because the kube driver will keep
 * them as `kudurru.io/<key>` annotations of the kudurru-runtime ConfigMap.
 */
import type { AuditEntry } from "./backend.ts";
import type { RuntimeValue, SetRuntimeOptions } from "./store.ts";

/**
 * Letters, digits, `.`, `_` and `-`, starting and ending with a letter or
 * digit, at most 63 characters: a valid annotation name part.
 */
export const RUNTIME_KEY_PATTERN =
  /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;

/** Runtime values are small; anything larger belongs in an object. */
export const RUNTIME_VALUE_MAX_LENGTH = 4096;

/** A runtime key or value the Store does not accept. */
export class InvalidRuntimeValueError extends Error {
  constructor(readonly key: string, reason: string) {
    super(`Runtime value "${key}" is invalid: ${reason}`);
    this.name = "InvalidRuntimeValueError";
  }
}

/** Throws InvalidRuntimeValueError unless the key and value are storable. */
export function checkRuntimeValue(key: string, value: string | null): void {
  if (!RUNTIME_KEY_PATTERN.test(key)) {
    throw new InvalidRuntimeValueError(
      key,
      "a key is 1-63 letters, digits, '.', '_' or '-', starting and ending with a letter or digit",
    );
  }
  if (value !== null && value.length > RUNTIME_VALUE_MAX_LENGTH) {
    throw new InvalidRuntimeValueError(
      key,
      `${value.length} characters is over the limit of ${RUNTIME_VALUE_MAX_LENGTH}`,
    );
  }
}

/**
 * What setRuntime writes: the value to store (undefined for a delete) and its
 * audit row. Throws InvalidRuntimeValueError before anything is written.
 */
export function planRuntimeWrite(
  key: string,
  value: string | null,
  opts: SetRuntimeOptions,
  now: Date,
): { value: RuntimeValue | undefined; audit: AuditEntry } {
  checkRuntimeValue(key, value);
  const time = now.toISOString();
  const audit: AuditEntry = {
    time,
    actor: opts.actor ?? "system",
    manager: "runtime",
    action: value === null ? "delete" : "set",
    generation: 0,
    ...(opts.authorization !== undefined &&
      { authorization: opts.authorization }),
    ...(opts.client !== undefined && { client: opts.client }),
  };
  if (value === null) return { value: undefined, audit };
  const stored: RuntimeValue = { key, value, updatedAt: time };
  if (opts.actor !== undefined) stored.actor = opts.actor;
  return { value: stored, audit };
}
