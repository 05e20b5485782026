/**
 * Deleting raw events for both retentions (by age in retention.ts, by size
 * in size_retention.ts): oldest id first, since ids follow write order,
 * with event_minutes turning a minute into the ids of its events.
 */
import type { DatabaseSync } from "node:sqlite";
import { EventChunks } from "./event_chunks.ts";
import { MAX_FUTURE_MS, MINUTE_MS } from "./settings.ts";

export const yieldTurn = () => new Promise((r) => setTimeout(r, 0));

export function nextEventId(db: DatabaseSync): number {
  const row = db.prepare(
    "SELECT value FROM meta WHERE key = 'next_event_id'",
  ).get();
  return Number(row?.value ?? 1);
}

/**
 * The first id of any event at or after `minute`, minutes in the future of
 * `nowMinute` left out (see MAX_FUTURE_MS): every event below it is older
 * than that minute (ids follow write order, times almost) or was written
 * before one that is.
 */
export function firstIdAtOrAfter(
  db: DatabaseSync,
  minute: number,
  nowMinute: number,
): number {
  const row = db.prepare(
    `SELECT min(first_id) AS id FROM event_minutes
     WHERE minute >= ? AND minute <= ?`,
  ).get(minute, nowMinute + MAX_FUTURE_MS / MINUTE_MS);
  if (row?.id !== null && row?.id !== undefined) return Number(row.id);
  return nextEventId(db);
}

/** The largest id of any event before `minute`; 0 when there is none. */
export function lastIdBefore(db: DatabaseSync, minute: number): number {
  const row = db.prepare(
    "SELECT max(last_id) AS id FROM event_minutes WHERE minute < ?",
  ).get(minute);
  return Number(row?.id ?? 0);
}

/**
 * Deletes events with id < `bound`, oldest first, at most `chunk` ids per
 * step (whole event chunks, and the one a step ends in is cut), yielding
 * between steps; `onDeleted` sees the rows that go.
 */
export async function deleteEventsBelow(
  db: DatabaseSync,
  bound: number,
  chunk: number,
  budget: number,
  onDeleted?: (rows: Float64Array, count: number) => void,
): Promise<number> {
  const chunks = new EventChunks(db);
  let deleted = 0;
  while (deleted < budget) {
    const oldest = chunks.oldestId();
    if (oldest === undefined || oldest >= bound) break;
    const upper = Math.min(bound, oldest + Math.min(chunk, budget - deleted));
    deleted += atomically(db, () => chunks.deleteBelow(upper, onDeleted));
    await yieldTurn();
  }
  return deleted;
}

/**
 * Runs `body` as one unit: cutting a chunk deletes it and inserts its rest,
 * and a crash in between must not lose the rest. A savepoint, so it also
 * works inside a caller's transaction.
 */
function atomically<T>(db: DatabaseSync, body: () => T): T {
  db.exec("SAVEPOINT retention_step");
  try {
    const result = body();
    db.exec("RELEASE retention_step");
    return result;
  } catch (err) {
    db.exec("ROLLBACK TO retention_step; RELEASE retention_step");
    throw err;
  }
}

/** Drops event_minutes rows whose events are all gone. */
export function pruneEventMinutes(db: DatabaseSync): void {
  const oldest = new EventChunks(db).oldestId() ?? nextEventId(db);
  db.prepare("DELETE FROM event_minutes WHERE last_id < ?").run(oldest);
}
