/**
 * Searching raw events: keyset pages in (time desc, id desc) order, never
 * OFFSET, and tail() for live following in write order.
 *
 * A search walks minutes newest first (event_minutes maps a minute to the
 * id range of its events; the rollups say which minutes can match a filter)
 * and reads the chunks holding their id ranges (search_ranges.ts), testing
 * each decoded row against the filters, so raw events need no index.
 */
import type { DatabaseSync } from "node:sqlite";
import { C, COLUMNS } from "./chunk_codec.ts";
import {
  type ChunkSpan,
  type EventChunk,
  EventChunks,
  MAX_CHUNK_EVENTS,
} from "./event_chunks.ts";
import {
  eventsOfRows,
  type LoggedEvent,
  type StoredRow,
} from "./event_rows.ts";
import {
  candidateMinutes,
  type EventFilters,
  matchesNothing,
  resolveFilters,
  rowTest,
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
  const test = rowTest(filters);
  const chunks = new ChunkCache(new EventChunks(db));
  const keyTime = cursor?.time ?? FAR_FUTURE;
  const keyId = cursor?.id ?? FAR_FUTURE;
  const found: Match[] = [];
  let budget = opts.scanBudget ?? 5_000_000;
  let stoppedAt: number | undefined;
  for (const range of minuteRanges(db, from, to, guide)) {
    if (budget <= 0) {
      stoppedAt = range.end * MINUTE_MS;
      break;
    }
    budget -= range.last - range.first + 1;
    const lo = Math.max(since, range.start * MINUTE_MS);
    const hi = Math.min(until, range.end * MINUTE_MS);
    const wanted = limit + 1 - found.length;
    // The chunks that may hold events of the window, the newest-reaching
    // first: once `wanted` matches are newer than what the next chunk
    // reaches, the rest of the range cannot change the page.
    const spans = chunks.spans(range.first, range.last)
      .filter((c) => c.maxTime >= lo && c.minTime < hi && c.minTime <= keyTime)
      .sort((a, b) => b.maxTime - a.maxTime || b.firstId - a.firstId);
    let matches: Match[] = [];
    for (const span of spans) {
      if (matches.length >= wanted) {
        matches.sort(newestFirst);
        matches = matches.slice(0, wanted);
        if (span.maxTime < matches[wanted - 1]!.time) break;
      }
      const chunk = chunks.chunk(span.firstId);
      if (chunk === undefined) continue;
      const first = Math.max(range.first, chunk.firstId);
      const last = Math.min(range.last, chunk.firstId + chunk.count - 1);
      const rows = chunk.rows;
      for (let id = first; id <= last; id++) {
        const at = (id - chunk.firstId) * COLUMNS;
        const time = rows[at + C.time]!;
        if (time < lo || time >= hi) continue;
        if (time > keyTime || (time === keyTime && id >= keyId)) continue;
        if (test !== undefined && !test(rows, at)) continue;
        matches.push({ id, time, rows, at });
      }
    }
    matches.sort(newestFirst);
    for (const match of matches.slice(0, wanted)) found.push(match);
    if (found.length > limit) break;
  }
  const page = found.slice(0, limit);
  const last = page[page.length - 1];
  const nextCursor = found.length > limit && last
    ? cursorOf(last.time, last.id)
    : stoppedAt !== undefined
    ? cursorOf(stoppedAt, 0)
    : null;
  const rows = page.map(({ id, rows, at }) => ({
    id,
    row: rows.subarray(at, at + COLUMNS),
  }));
  return { events: eventsOfRows(db, rows), nextCursor };
}

/** A matching event: its row starts at `rows[at]` (a decoded chunk). */
interface Match {
  id: number;
  time: number;
  rows: Float64Array;
  at: number;
}

/** (time desc, id desc), the order of a search. */
const newestFirst = (a: Match, b: Match) => b.time - a.time || b.id - a.id;

/** Decoded events a search keeps at most (~150 bytes each). */
const MAX_CACHED_EVENTS = 131_072;

/**
 * The chunks one search has decoded, so that minute ranges sharing a chunk
 * (neighbours do, at their edges; a minute with late events spans others)
 * decode it once. Least recently used chunks go past MAX_CACHED_EVENTS.
 */
class ChunkCache {
  readonly #chunks: EventChunks;
  /** By firstId, least recently used first. */
  readonly #cached = new Map<number, EventChunk>();
  #events = 0;

  constructor(chunks: EventChunks) {
    this.#chunks = chunks;
  }

  /** The chunks holding any id in [first, last], with their time spans. */
  spans(first: number, last: number): ChunkSpan[] {
    return this.#chunks.spans(first, last);
  }

  /** The decoded chunk starting at `firstId` (undefined: unreadable). */
  chunk(firstId: number): EventChunk | undefined {
    let chunk = this.#cached.get(firstId);
    if (chunk !== undefined) {
      // Most recently used last: delete, then set.
      this.#cached.delete(firstId);
      this.#cached.set(firstId, chunk);
      return chunk;
    }
    chunk = this.#chunks.chunk(firstId);
    if (chunk === undefined) return undefined;
    this.#cached.set(firstId, chunk);
    this.#events += chunk.count;
    for (const [id, old] of this.#cached) {
      if (this.#events <= MAX_CACHED_EVENTS || id === firstId) break;
      this.#cached.delete(id);
      this.#events -= old.count;
    }
    return chunk;
  }
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
  return new EventChunks(db).newestId() ?? 0;
}

/** Ids tail() reads per step (a few chunks), until it has a page. */
const TAIL_STEP_IDS = 4 * MAX_CHUNK_EVENTS;

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
  const chunks = new EventChunks(db);
  const newest = chunks.newestId() ?? 0;
  if (newest <= afterId) return { events: [], lastId: afterId };
  const filters = resolveFilters(db, opts);
  if (matchesNothing(filters)) return { events: [], lastId: newest };
  const test = rowTest(filters);
  const found: StoredRow[] = [];
  // Ids below the oldest are gone: no need to step through them.
  let from = Math.max(afterId + 1, chunks.oldestId() ?? newest);
  while (from <= newest && found.length <= limit) {
    const to = Math.min(newest, from + TAIL_STEP_IDS - 1);
    let next = to + 1;
    for (const chunk of chunks.read(from, to)) {
      const end = chunk.firstId + chunk.count - 1;
      for (let id = Math.max(from, chunk.firstId); id <= end; id++) {
        if (id > newest || found.length > limit) break;
        const at = (id - chunk.firstId) * COLUMNS;
        if (test !== undefined && !test(chunk.rows, at)) continue;
        found.push({ id, row: chunk.rows.subarray(at, at + COLUMNS) });
      }
      // The rest of a chunk reaching past `to` was read here already.
      next = Math.max(next, end + 1);
    }
    from = next;
  }
  if (found.length > limit) {
    const page = found.slice(0, limit);
    return {
      events: eventsOfRows(db, page),
      lastId: page[page.length - 1]!.id,
    };
  }
  return { events: eventsOfRows(db, found), lastId: newest };
}
