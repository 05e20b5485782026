/**
 * What an audited change did to an object: its before and after (either
 * absent for a create or a delete) compared key by key. Objects and lists
 * are walked down to their leaves, so a row is one field
 * ("spec.subjects[0].name") with its JSON text before and after.
 */

export type Change = "added" | "removed" | "changed" | "same";

export interface DiffRow {
  /** Where in the object: "spec.disabled", "spec.subjects[0].name". */
  path: string;
  change: Change;
  /** JSON text; absent where the field was not there. */
  before?: string;
  after?: string;
}

/** The leaves of `value` as path → JSON text, in the object's own order. */
export function leaves(value: unknown, path = ""): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (at: unknown, where: string) => {
    if (Array.isArray(at) && at.length > 0) {
      at.forEach((item, i) => visit(item, `${where}[${i}]`));
    } else if (
      typeof at === "object" && at !== null && !Array.isArray(at) &&
      Object.keys(at).length > 0
    ) {
      for (const [key, item] of Object.entries(at)) {
        visit(item, where === "" ? key : `${where}.${key}`);
      }
    } else if (at !== undefined) {
      // A scalar, or an empty object or list (a field that is there).
      out.set(where, JSON.stringify(at));
    }
  };
  visit(value, path);
  return out;
}

/**
 * Every leaf of `before` and `after`: the fields of `before` in their
 * order, each removed one where it was, and the fields only `after` has
 * at the end in theirs.
 */
export function diffObjects(before: unknown, after: unknown): DiffRow[] {
  const old = leaves(before);
  const now = leaves(after);
  const rows: DiffRow[] = [];
  for (const [path, text] of old) {
    const next = now.get(path);
    if (next === undefined) {
      rows.push({ path, change: "removed", before: text });
    } else {
      rows.push({
        path,
        change: next === text ? "same" : "changed",
        before: text,
        after: next,
      });
    }
  }
  for (const [path, text] of now) {
    if (!old.has(path)) rows.push({ path, change: "added", after: text });
  }
  return rows;
}

/** How many rows of each kind: the detail's summary line. */
export function countChanges(rows: readonly DiffRow[]): Record<Change, number> {
  const counts: Record<Change, number> = {
    added: 0,
    removed: 0,
    changed: 0,
    same: 0,
  };
  for (const row of rows) counts[row.change]++;
  return counts;
}
