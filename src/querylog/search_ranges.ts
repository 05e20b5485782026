/**
 * The stretches of the events table a search reads, newest first: candidate
 * minutes (all, or those the rollups point at) merged into id ranges. The
 * first range is a single minute, so the newest page of a common search
 * reads little; each next range may hold twice the ids of the one before, so
 * a search for something rare soon reads in large steps instead of paying a
 * statement per minute. Merged ranges may span minutes that were not
 * candidates: the search's own conditions still apply to every row.
 */
import type { DatabaseSync } from "node:sqlite";

export interface MinuteRange {
  /** First minute (epoch minutes). */
  start: number;
  /** The minute after the last. */
  end: number;
  /** Smallest and largest event id in these minutes. */
  first: number;
  last: number;
}

/** Ids per range at most. */
const MAX_RANGE_IDS = 65_536;

export function* minuteRanges(
  db: DatabaseSync,
  from: number,
  to: number,
  guide: ReadonlySet<number> | undefined,
): Generator<MinuteRange> {
  const minutes = db.prepare(
    `SELECT minute, first_id, last_id FROM event_minutes
     WHERE minute >= ? AND minute < ? ORDER BY minute DESC`,
  );
  let target = 1;
  let pending: MinuteRange | undefined;
  for (const row of minutes.iterate(from, to)) {
    const minute = Number(row.minute);
    if (guide !== undefined && !guide.has(minute)) continue;
    const first = Number(row.first_id);
    const last = Number(row.last_id);
    if (pending !== undefined) {
      const lo = Math.min(pending.first, first);
      const hi = Math.max(pending.last, last);
      if (hi - lo + 1 <= target) {
        pending = { start: minute, end: pending.end, first: lo, last: hi };
        continue;
      }
      yield pending;
      const size = pending.last - pending.first + 1;
      target = Math.min(MAX_RANGE_IDS, Math.max(target, size) * 2);
    }
    pending = { start: minute, end: minute + 1, first, last };
  }
  if (pending !== undefined) yield pending;
}
