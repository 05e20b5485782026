/**
 * Folding domain_minutes into domain_hours, a minute at a time, shortly
 * after each minute ends. A busy node writes a thousand batches a minute,
 * each naming thousands of domains; adding every batch to both tables cost
 * about as much as inserting the events. Now batches add to domain_minutes
 * only, and each minute is added to its hour once.
 *
 * meta.domain_hours_through = F (an epoch minute): domain_hours holds every
 * minute before F. Readers use domain_hours for the hours before
 * floor(F / 60) and domain_minutes from that hour on; the writer adds an
 * event to domain_hours itself when its minute is already folded (< F) or
 * too old to have a minute row.
 */
import type { DatabaseSync } from "node:sqlite";
import { minuteOf } from "./settings.ts";

/** A minute is folded once it is this old, to let late events arrive. */
export const FOLD_DELAY_MINUTES = 2;
/** Minutes folded per run at most (catching up after a stop). */
const MAX_MINUTES_PER_RUN = 240;

/** meta.domain_hours_through (0 before the first fold). */
export function readDomainHoursThrough(db: DatabaseSync): number {
  const row = db.prepare(
    "SELECT value FROM meta WHERE key = 'domain_hours_through'",
  ).get();
  return Number(row?.value ?? 0);
}

/**
 * Folds the minutes that are due into domain_hours, each in its own
 * transaction, yielding between them; returns the new F.
 */
export async function foldDomainMinutes(
  db: DatabaseSync,
  now: number,
): Promise<number> {
  const due = minuteOf(now) - FOLD_DELAY_MINUTES;
  let through = readDomainHoursThrough(db);
  if (through >= due) return through;
  // Skip the empty stretch before the first minute row (a new file, a gap).
  const first = db.prepare(
    "SELECT min(minute) AS m FROM domain_minutes WHERE minute >= ?",
  ).get(through)?.m;
  const start = first === null || first === undefined
    ? due
    : Math.min(Number(first), due);
  const save = db.prepare(
    `INSERT INTO meta (key, value) VALUES ('domain_hours_through', ?)
     ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
  );
  if (start > through) {
    save.run(String(start));
    through = start;
  }
  const fold = db.prepare(
    `INSERT INTO domain_hours (hour, name, queries, blocked)
     SELECT minute / 60, name, queries, blocked FROM domain_minutes
     WHERE minute = ? AND true
     ON CONFLICT (hour, name) DO UPDATE SET
       queries = queries + excluded.queries,
       blocked = blocked + excluded.blocked`,
  );
  const end = Math.min(due, through + MAX_MINUTES_PER_RUN);
  for (let minute = through; minute < end; minute++) {
    db.exec("BEGIN IMMEDIATE");
    try {
      fold.run(minute);
      save.run(String(minute + 1));
      db.exec("COMMIT");
    } catch (err) {
      if (db.isTransaction) db.exec("ROLLBACK");
      throw err;
    }
    through = minute + 1;
    await new Promise((r) => setTimeout(r, 0));
  }
  return through;
}
