/**
 * YAML lets an alias name the node that contains it (`x: &a [*a]`); the
 * yaml library then builds a cyclic value, and every walk over it
 * (validation, hashing, JSON) recurses until the stack is gone. Such a
 * value is refused with a reason instead.
 */

/** The message for a value that contains itself. */
export const CYCLIC_ALIAS =
  "a YAML alias refers to a node that contains it (&anchor inside itself)";

/** True when `value` (as `doc.toJS()` builds it) contains itself. */
export function containsItself(value: unknown): boolean {
  const open = new Set<object>();
  const done = new Set<object>();
  const walk = (v: unknown): boolean => {
    if (v === null || typeof v !== "object") return false;
    if (open.has(v)) return true;
    if (done.has(v)) return false;
    open.add(v);
    const children = v instanceof Map ? [...v.values()] : Object.values(v);
    for (const child of children) if (walk(child)) return true;
    open.delete(v);
    done.add(v);
    return false;
  };
  return walk(value);
}
