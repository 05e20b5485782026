/**
 * Raw events stored as chunks (chunk_codec.ts): one `event_chunks` row per
 * run of consecutive event ids. The writer appends a batch as one chunk;
 * while the newest chunk is small (thin traffic: a few events per flush)
 * the next batch is merged into it, so chunks stay large enough for their
 * per-column headers not to matter. Readers decode whole chunks and pick
 * their rows; retention drops whole chunks and trims the one it cuts.
 * Beside each chunk `event_chunk_times` keeps the span of its event times
 * (ids follow arrival, not time: a slow answer is logged late), so a
 * search can tell which chunks may hold the newest events without
 * decoding them.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { C, COLUMNS, decodeChunk, encodeChunk } from "./chunk_codec.ts";

/** The newest chunk takes more events while it holds fewer than this. */
const MERGE_BELOW = 1024;
/** Events per chunk at most (bounds the work of decoding one). */
export const MAX_CHUNK_EVENTS = 8192;

/** A decoded chunk: events firstId … firstId + count - 1, row-major. */
export interface EventChunk {
  firstId: number;
  count: number;
  rows: Float64Array;
}

/** A chunk's ids and the span of its event times, without its events. */
export interface ChunkSpan {
  firstId: number;
  lastId: number;
  /** Oldest and newest event time (ms); ±Infinity when not recorded. */
  minTime: number;
  maxTime: number;
}

/** Chunks skipped by every reader in this process so far (see unreadableChunks). */
let unreadable = 0;

/**
 * How many times, in this process, a read skipped a chunk whose blob did
 * not decode (each read that meets one counts): a damaged querylog.db
 * loses those events from searches and exports, and says so in metrics.
 */
export function unreadableChunks(): number {
  return unreadable;
}

export class EventChunks {
  readonly #db: DatabaseSync;
  readonly #insert: StatementSync;
  readonly #update: StatementSync;
  readonly #newest: StatementSync;
  readonly #overlapping: StatementSync;
  readonly #holding: StatementSync;
  readonly #spans: StatementSync;
  readonly #one: StatementSync;
  readonly #setTimes: StatementSync;
  /** Chunks skipped by readers because their blob did not decode. */
  corrupt = 0;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#insert = db.prepare(
      "INSERT INTO event_chunks (first_id, last_id, data) VALUES (?, ?, ?)",
    );
    this.#update = db.prepare(
      "UPDATE event_chunks SET last_id = ?, data = ? WHERE first_id = ?",
    );
    this.#newest = db.prepare(
      `SELECT first_id, last_id, data FROM event_chunks
       ORDER BY first_id DESC LIMIT 1`,
    );
    // Chunks never overlap, so the one holding `first` bounds the scan.
    this.#overlapping = db.prepare(
      `SELECT first_id, last_id, data FROM event_chunks
       WHERE first_id BETWEEN coalesce((SELECT max(first_id) FROM event_chunks
         WHERE first_id <= :first), :first) AND :last
         AND last_id >= :first
       ORDER BY first_id`,
    );
    this.#holding = db.prepare(
      `SELECT first_id, last_id, data FROM event_chunks
       WHERE first_id <= ? ORDER BY first_id DESC LIMIT 1`,
    );
    this.#spans = db.prepare(
      `SELECT c.first_id, c.last_id, t.min_time, t.max_time
       FROM event_chunks c LEFT JOIN event_chunk_times t USING (first_id)
       WHERE c.first_id BETWEEN coalesce((SELECT max(first_id) FROM event_chunks
         WHERE first_id <= :first), :first) AND :last
         AND c.last_id >= :first`,
    );
    this.#one = db.prepare(
      "SELECT first_id, last_id, data FROM event_chunks WHERE first_id = ?",
    );
    this.#setTimes = db.prepare(
      `INSERT OR REPLACE INTO event_chunk_times (first_id, min_time, max_time)
       VALUES (?, ?, ?)`,
    );
  }

  /**
   * Stores events firstId … firstId + count - 1 (`rows` row-major), in the
   * caller's transaction.
   */
  append(firstId: number, rows: Float64Array, count: number): void {
    let start = 0;
    const newest = this.#newest.get();
    if (newest !== undefined && count > 0) {
      const newestFirst = Number(newest.first_id);
      const newestCount = Number(newest.last_id) - newestFirst + 1;
      if (
        Number(newest.last_id) + 1 === firstId && newestCount < MERGE_BELOW
      ) {
        const old = tryDecode(newest.data as Uint8Array);
        if (old !== undefined && old.count === newestCount) {
          start = Math.min(count, MAX_CHUNK_EVENTS - newestCount);
          const merged = new Float64Array((newestCount + start) * COLUMNS);
          merged.set(old.rows);
          merged.set(rows.subarray(0, start * COLUMNS), old.rows.length);
          this.#update.run(
            newestFirst + newestCount + start - 1,
            encodeChunk(merged, newestCount + start),
            newestFirst,
          );
          this.#recordTimes(newestFirst, merged, newestCount + start);
        }
      }
    }
    for (let at = start; at < count; at += MAX_CHUNK_EVENTS) {
      const n = Math.min(MAX_CHUNK_EVENTS, count - at);
      const part = rows.subarray(at * COLUMNS, (at + n) * COLUMNS);
      this.#insert.run(
        firstId + at,
        firstId + at + n - 1,
        encodeChunk(part, n),
      );
      this.#recordTimes(firstId + at, part, n);
    }
  }

  /** Stores the time span of the chunk starting at `firstId`. */
  #recordTimes(firstId: number, rows: Float64Array, count: number): void {
    let min = Infinity;
    let max = -Infinity;
    for (let i = C.time; i < count * COLUMNS; i += COLUMNS) {
      const time = rows[i]!;
      if (time < min) min = time;
      if (time > max) max = time;
    }
    if (count > 0) this.#setTimes.run(firstId, min, max);
  }

  /**
   * The chunks holding any id in [first, last] with their time spans,
   * without reading their events.
   */
  spans(first: number, last: number): ChunkSpan[] {
    if (first > last) return [];
    return this.#spans.all({ first, last }).map((row) => ({
      firstId: Number(row.first_id),
      lastId: Number(row.last_id),
      minTime: row.min_time === null ? -Infinity : Number(row.min_time),
      maxTime: row.max_time === null ? Infinity : Number(row.max_time),
    }));
  }

  /** The decoded chunk starting at `firstId`; undefined when gone or unreadable. */
  chunk(firstId: number): EventChunk | undefined {
    const row = this.#one.get(firstId);
    return row === undefined ? undefined : this.#decodeRow(row);
  }

  /** The decoded chunks holding any id in [first, last], oldest first. */
  read(first: number, last: number): EventChunk[] {
    const chunks: EventChunk[] = [];
    if (first > last) return chunks;
    for (const row of this.#overlapping.all({ first, last })) {
      const chunk = this.#decodeRow(row);
      if (chunk !== undefined) chunks.push(chunk);
    }
    return chunks;
  }

  /** The row (COLUMNS values) of each id that exists, by id. */
  rowsOf(ids: readonly number[]): Map<number, Float64Array> {
    const found = new Map<number, Float64Array>();
    let chunk: EventChunk | undefined;
    for (const id of [...ids].sort((a, b) => a - b)) {
      if (chunk === undefined || id >= chunk.firstId + chunk.count) {
        const row = this.#holding.get(id);
        chunk = row === undefined ? undefined : this.#decodeRow(row);
      }
      if (chunk === undefined || id >= chunk.firstId + chunk.count) continue;
      const at = (id - chunk.firstId) * COLUMNS;
      found.set(id, chunk.rows.subarray(at, at + COLUMNS));
    }
    return found;
  }

  /** The smallest stored id, or undefined when there are no events. */
  oldestId(): number | undefined {
    return this.#idAtEnd("first_id", "");
  }

  /** The largest stored id, or undefined when there are no events. */
  newestId(): number | undefined {
    // By the primary key: max(last_id) would read every row.
    return this.#idAtEnd("last_id", "DESC");
  }

  /** `column` of the first chunk in `order` of first_id. */
  #idAtEnd(column: string, order: string): number | undefined {
    const row = this.#db.prepare(
      `SELECT ${column} AS id FROM event_chunks ORDER BY first_id ${order} LIMIT 1`,
    ).get();
    return row?.id === null || row?.id === undefined
      ? undefined
      : Number(row.id);
  }

  /** Events stored. */
  count(): number {
    const row = this.#db.prepare(
      "SELECT coalesce(sum(last_id - first_id + 1), 0) AS n FROM event_chunks",
    ).get();
    return Number(row?.n ?? 0);
  }

  /**
   * Deletes every event with id < `bound`: whole chunks, and the chunk
   * `bound` falls in is cut down to its rows from `bound` on. Returns how
   * many events went; `onDeleted` sees the rows that went (those of an
   * unreadable chunk excepted). Several statements: run it in a transaction.
   */
  deleteBelow(
    bound: number,
    onDeleted?: (rows: Float64Array, count: number) => void,
  ): number {
    const whole = this.#db.prepare(
      `DELETE FROM event_chunks WHERE first_id < :bound AND last_id < :bound
       RETURNING last_id - first_id + 1 AS n${onDeleted ? ", data" : ""}`,
    ).all({ bound });
    // Spans go with their chunks, the cut one's too (stored anew below).
    this.#db.prepare("DELETE FROM event_chunk_times WHERE first_id < ?").run(
      bound,
    );
    let deleted = 0;
    for (const row of whole) {
      deleted += Number(row.n);
      if (onDeleted === undefined) continue;
      const chunk = tryDecode(row.data as Uint8Array);
      if (chunk === undefined) this.#countUnreadable();
      else onDeleted(chunk.rows, chunk.count);
    }
    const cut = this.#db.prepare(
      `SELECT first_id, last_id, data FROM event_chunks
       WHERE first_id < ? ORDER BY first_id DESC LIMIT 1`,
    ).get(bound);
    if (cut !== undefined) {
      const firstId = Number(cut.first_id);
      const lastId = Number(cut.last_id);
      this.#db.prepare("DELETE FROM event_chunks WHERE first_id = ?").run(
        firstId,
      );
      deleted += bound - firstId;
      const chunk = tryDecode(cut.data as Uint8Array);
      if (chunk === undefined) {
        this.#countUnreadable();
        deleted += lastId - bound + 1; // unreadable: nothing worth keeping
      } else {
        const at = (bound - firstId) * COLUMNS;
        onDeleted?.(chunk.rows.subarray(0, at), bound - firstId);
        const kept = chunk.rows.subarray(at);
        this.#insert.run(bound, lastId, encodeChunk(kept, lastId - bound + 1));
        this.#recordTimes(bound, kept, lastId - bound + 1);
      }
    }
    return deleted;
  }

  #countUnreadable(): void {
    this.corrupt++;
    unreadable++;
  }

  #decodeRow(row: Record<string, unknown>): EventChunk | undefined {
    const firstId = Number(row.first_id);
    const count = Number(row.last_id) - firstId + 1;
    const chunk = tryDecode(row.data as Uint8Array);
    if (chunk === undefined || chunk.count !== count) {
      this.#countUnreadable();
      return undefined;
    }
    return { firstId, count, rows: chunk.rows };
  }
}

function tryDecode(
  blob: Uint8Array,
): { count: number; rows: Float64Array } | undefined {
  try {
    return decodeChunk(blob);
  } catch {
    return undefined;
  }
}
