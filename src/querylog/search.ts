/**
 * Searching raw events: keyset pages in (time desc, id desc) order, never
 * OFFSET, and tail() for live following in write order.
 *
 * A search walks minutes newest first (event_minutes maps a minute to the
 * id range of its events; the rollups say which minutes can match a filter)
 * and reads their id ranges (search_ranges.ts) with the filters in SQL, so
 * the events table needs no secondary index.
 */
import type { DatabaseSync } from "node:sqlite";
import { loadEvents, type LoggedEvent } from "./event_rows.ts";
import {
  candidateMinutes,
  type EventFilters,
  filterSql,
  matchesNothing,
  resolveFilters,
} from "./search_filters.ts";
import { minuteRanges } from "./search_ranges.ts";
import { MINUTE_MS, minuteOf } from "./settings.ts";

export interface SearchOptions extends EventFilters {
  /** Oldest event time (ms, inclusive). */
  since?: number;
  /** Newest event time (ms, exclusive). */
  until?: number;
  /** Events per page. @default 100 (at most 1000) */
  limit?: number;
  /** The nextCursor of the previous page. */
  before?: string;
  /**
   * Event ids a call may read before it returns a short page with a cursor
   * to continue from (bounds the work of a search for something rare).
   * @default 5_000_000
   */
  scanBudget?: number;
}

export interface SearchPage {
  events: LoggedEvent[];
  /** Pass as `before` for the next page; null at the end. */
  nextCursor: string | null;
}

export const DEFAULT_SEARCH_LIMIT = 100;
export const MAX_SEARCH_LIMIT = 1000;
const FAR_FUTURE = Number.MAX_SAFE_INTEGER;

/** Parses a cursor; throws a clear error for anything else. */
export function parseCursor(cursor: string): { time: number; id: number } {
  const m = /^(\d{1,16})_(\d{1,16})$/.exec(cursor);
  if (!m) throw new RangeError(`Invalid query-log cursor "${cursor}"`);
  return { time: Number(m[1]), id: Number(m[2]) };
}

const cursorOf = (time: number, id: number) => `${time}_${id}`;

/** One page of events matching `opts`, newest first. */
export function searchEvents(
  db: DatabaseSync,
  opts: SearchOptions = {},
): SearchPage {
  const limit = Math.min(
    MAX_SEARCH_LIMIT,
    Math.max(1, Math.trunc(opts.limit ?? DEFAULT_SEARCH_LIMIT)),
  );
  const since = opts.since ?? 0;
  let until = opts.until ?? FAR_FUTURE;
  const cursor = opts.before === undefined
    ? undefined
    : parseCursor(opts.before);
  // The cursor's own millisecond is still needed (ids below it), unless the
  // cursor is a minute boundary where a short page stopped (id 0).
  if (cursor) {
    until = Math.min(until, cursor.id === 0 ? cursor.time : cursor.time + 1);
  }
  const filters = resolveFilters(db, opts);
  if (until <= since || matchesNothing(filters)) {
    return { events: [], nextCursor: null };
  }
  // Only minutes that hold events: bounds the guides' work by retention.
  const span = db.prepare(
    "SELECT min(minute) AS first, max(minute) AS last FROM event_minutes",
  ).get();
  if (span?.first === null || span?.first === undefined) {
    return { events: [], nextCursor: null };
  }
  const from = Math.max(minuteOf(since), Number(span.first));
  const to = Math.min(minuteOf(until - 1) + 1, Number(span.last) + 1);
  if (to <= from) return { events: [], nextCursor: null };
  const guide = candidateMinutes(db, filters, from, to);
  const where = filterSql(filters);
  const pick = db.prepare(
    `SELECT e.id, e.time FROM events e
     WHERE e.id >= ? AND e.id <= ? AND e.time >= ? AND e.time < ?
       AND (e.time < ? OR (e.time = ? AND e.id < ?))${where.sql}
     ORDER BY e.time DESC, e.id DESC LIMIT ?`,
  );
  const keyTime = cursor?.time ?? FAR_FUTURE;
  const keyId = cursor?.id ?? FAR_FUTURE;
  const found: { id: number; time: number }[] = [];
  let budget = opts.scanBudget ?? 5_000_000;
  let stoppedAt: number | undefined;
  for (const range of minuteRanges(db, from, to, guide)) {
    if (budget <= 0) {
      stoppedAt = range.end * MINUTE_MS;
      break;
    }
    budget -= range.last - range.first + 1;
    const rows = pick.all(
      range.first,
      range.last,
      Math.max(since, range.start * MINUTE_MS),
      Math.min(until, range.end * MINUTE_MS),
      keyTime,
      keyTime,
      keyId,
      ...where.params,
      limit + 1 - found.length,
    );
    for (const r of rows) {
      found.push({ id: Number(r.id), time: Number(r.time) });
    }
    if (found.length > limit) break;
  }
  const page = found.slice(0, limit);
  const last = page[page.length - 1];
  const nextCursor = found.length > limit && last
    ? cursorOf(last.time, last.id)
    : stoppedAt !== undefined
    ? cursorOf(stoppedAt, 0)
    : null;
  return { events: loadEvents(db, page.map((r) => r.id)), nextCursor };
}

export interface TailOptions extends EventFilters {
  /** Events per call at most. @default 1000 */
  limit?: number;
}

export interface TailPage {
  /** New events in write order. */
  events: LoggedEvent[];
  /** Pass as `afterId` next time. */
  lastId: number;
}

/** The id of the newest event written (0 when there is none). */
export function latestEventId(db: DatabaseSync): number {
  const row = db.prepare("SELECT max(id) AS id FROM events").get();
  return Number(row?.id ?? 0);
}

/**
 * Events written after `afterId` (write order, which is what a live view
 * wants: late events show up when they arrive, not hidden in the past).
 */
export function tail(
  db: DatabaseSync,
  afterId: number,
  opts: TailOptions = {},
): TailPage {
  const limit = Math.min(
    MAX_SEARCH_LIMIT * 10,
    Math.max(1, Math.trunc(opts.limit ?? 1000)),
  );
  const newest = latestEventId(db);
  if (newest <= afterId) return { events: [], lastId: afterId };
  const filters = resolveFilters(db, opts);
  if (matchesNothing(filters)) return { events: [], lastId: newest };
  const where = filterSql(filters);
  const ids = db.prepare(
    `SELECT e.id FROM events e WHERE e.id > ? AND e.id <= ?${where.sql}
     ORDER BY e.id LIMIT ?`,
  ).all(afterId, newest, ...where.params, limit + 1).map((r) => Number(r.id));
  if (ids.length > limit) {
    const page = ids.slice(0, limit);
    return { events: loadEvents(db, page), lastId: page[page.length - 1]! };
  }
  return { events: loadEvents(db, ids), lastId: newest };
}
