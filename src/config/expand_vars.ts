/**
 * `${NAME}` references in string values, expanded from the environment
 * (`name: "${HOSTNAME}"`). `${NAME:-fallback}` gives a fallback and `$${`
 * writes a literal `${`.
 */

const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** A reference to a variable that is not set. */
export interface UnsetVariable {
  path: (string | number)[];
  name: string;
}

function expandString(
  text: string,
  lookup: (name: string) => string | undefined,
  onUnset: (name: string) => void,
): string {
  return text.replace(
    REFERENCE,
    (whole, name: string | undefined, fallback: string | undefined) => {
      if (whole === "$${") return "${";
      const value = lookup(name!);
      if (value !== undefined && value !== "") return value;
      if (fallback !== undefined) return fallback;
      if (value === undefined) onUnset(name!);
      return "";
    },
  );
}

/**
 * Returns a copy of `value` with references in every string expanded, and the
 * references that named no variable.
 */
export function expandVariables(
  value: unknown,
  lookup: (name: string) => string | undefined,
): { value: unknown; unset: UnsetVariable[] } {
  const unset: UnsetVariable[] = [];
  const visit = (v: unknown, path: (string | number)[]): unknown => {
    if (typeof v === "string") {
      return expandString(v, lookup, (name) => unset.push({ path, name }));
    }
    if (Array.isArray(v)) return v.map((item, i) => visit(item, [...path, i]));
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(
        Object.entries(v).map(([k, item]) => [k, visit(item, [...path, k])]),
      );
    }
    return v;
  };
  return { value: visit(value, []), unset };
}
