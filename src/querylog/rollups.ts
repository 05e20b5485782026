/**
 * The rollups of one batch: counted in memory while the batch is encoded,
 * then added to the rollup tables with one upsert per (bucket, key), in the
 * batch's transaction: per minute × status, × client, × domain, × upstream,
 * and event_minutes (the id range of each minute). Per-hour domain rows are
 * folded from the minute rows later (domain_hours.ts).
 */
import type { DatabaseSync } from "node:sqlite";
import { C } from "./chunk_codec.ts";
import { KIND_BLOCKED, KIND_UPSTREAM_ERROR } from "./encode.ts";
import { MultiRowInsert } from "./multi_row_insert.ts";
import { hourOf, MINUTE_MS, minuteOf } from "./settings.ts";

/**
 * bucket → key → counters (a fixed number per table). The counters sit in
 * one growing Float64Array, a slot per (bucket, key), not an array each: a
 * busy node's batch counts thousands of names, and an array each was
 * garbage for the main thread's collector.
 */
class Counters {
  /** bucket → key → slot (the slot's counters start at slot × width). */
  readonly #buckets = new Map<number, Map<number, number>>();
  #values: Float64Array;
  /** Slots in use. */
  #slots = 0;
  /** The bucket added to last and its keys: a batch is mostly one minute. */
  #lastBucket = NaN;
  #lastKeys: Map<number, number> | undefined;

  constructor(readonly width: 2 | 3) {
    this.#values = new Float64Array(64 * width);
  }

  add(bucket: number, key: number, a: number, b: number, c = 0): void {
    let keys = bucket === this.#lastBucket ? this.#lastKeys : undefined;
    if (keys === undefined) {
      keys = this.#buckets.get(bucket);
      if (keys === undefined) {
        keys = new Map();
        this.#buckets.set(bucket, keys);
      }
      this.#lastBucket = bucket;
      this.#lastKeys = keys;
    }
    let slot = keys.get(key);
    if (slot === undefined) {
      slot = this.#slots++;
      keys.set(key, slot);
      if (this.#slots * this.width > this.#values.length) this.#grow();
    }
    const values = this.#values;
    const at = slot * this.width;
    values[at] = values[at]! + a;
    values[at + 1] = values[at + 1]! + b;
    if (this.width === 3) values[at + 2] = values[at + 2]! + c;
  }

  write(insert: MultiRowInsert): void {
    const values = this.#values;
    const width = this.width;
    for (const [bucket, keys] of this.#buckets) {
      for (const [key, slot] of keys) {
        const at = slot * width;
        if (width === 3) {
          insert.add(
            bucket,
            key,
            values[at]!,
            values[at + 1]!,
            values[at + 2]!,
          );
        } else {
          insert.add(bucket, key, values[at]!, values[at + 1]!);
        }
      }
    }
    insert.flush();
  }

  #grow(): void {
    const values = new Float64Array(this.#values.length * 2);
    values.set(this.#values);
    this.#values = values;
  }
}

export interface RollupOptions {
  /** Count per client and per domain (false under privacy "none"). */
  perClientAndDomain: boolean;
  /** Minutes before this one get no domain_minutes rows (they would be deleted at once). */
  oldestDomainMinute: number;
  /** meta.domain_hours_through: minutes before it are already in domain_hours. */
  domainHoursThrough: number;
}

/** The rollup rows one batch adds, and the event_minutes ranges of its ids. */
export class BatchRollups {
  readonly #status = new Counters(2);
  readonly #clients = new Counters(2);
  readonly #domainMinutes = new Counters(2);
  readonly #domainHours = new Counters(2);
  readonly #upstreams = new Counters(3);
  /** minute → [first id, last id] */
  readonly #ids = new Map<number, [number, number]>();

  constructor(readonly opts: RollupOptions) {}

  /**
   * Counts the row at `at` in `rows` (chunk_codec columns) with its KIND_*
   * bits; `id` is its event id, or undefined when no event is stored.
   */
  add(
    rows: Float64Array,
    at: number,
    kinds: number,
    id: number | undefined,
  ): void {
    const time = rows[at + C.time]!;
    const minute = minuteOf(time);
    const blocked = kinds & KIND_BLOCKED ? 1 : 0;
    const durationUs = rows[at + C.durationUs]!;
    this.#status.add(minute, rows[at + C.status]!, 1, durationUs);
    const upstream = rows[at + C.upstream]!;
    if (upstream !== 0) {
      const error = kinds & KIND_UPSTREAM_ERROR ? 1 : 0;
      this.#upstreams.add(minute, upstream, 1, error, durationUs);
    }
    if (this.opts.perClientAndDomain) {
      const qname = rows[at + C.qname]!;
      this.#clients.add(minute, rows[at + C.client]!, 1, blocked);
      // domain_hours gets minutes folded later (domain_hours.ts), except
      // those already folded or too old to have a minute row.
      const toMinutes = minute >= this.opts.oldestDomainMinute;
      if (toMinutes) this.#domainMinutes.add(minute, qname, 1, blocked);
      if (!toMinutes || minute < this.opts.domainHoursThrough) {
        this.#domainHours.add(hourOf(time), qname, 1, blocked);
      }
    }
    if (id !== undefined) {
      const range = this.#ids.get(minute);
      if (range === undefined) this.#ids.set(minute, [id, id]);
      else {
        if (id < range[0]) range[0] = id;
        if (id > range[1]) range[1] = id;
      }
    }
  }

  /** Adds everything counted to the tables (inside the caller's transaction). */
  write(statements: RollupStatements): void {
    this.#status.write(statements.status);
    this.#clients.write(statements.clients);
    this.#domainMinutes.write(statements.domainMinutes);
    this.#domainHours.write(statements.domainHours);
    this.#upstreams.write(statements.upstreams);
    for (const [minute, [first, last]] of this.#ids) {
      statements.eventMinutes.add(minute, first, last);
    }
    statements.eventMinutes.flush();
  }
}

export interface RollupStatements {
  status: MultiRowInsert;
  clients: MultiRowInsert;
  domainMinutes: MultiRowInsert;
  domainHours: MultiRowInsert;
  upstreams: MultiRowInsert;
  eventMinutes: MultiRowInsert;
}

/** Adds rows to `table`, or their counters to the rows already there. */
function upsert(
  db: DatabaseSync,
  table: string,
  bucket: string,
  key: string,
  counters: string[],
): MultiRowInsert {
  return new MultiRowInsert(
    db,
    `INSERT INTO ${table} (${bucket}, ${key}, ${counters.join(", ")}) VALUES`,
    2 + counters.length,
    `ON CONFLICT (${bucket}, ${key}) DO UPDATE SET ${
      counters.map((c) => `${c} = ${c} + excluded.${c}`).join(", ")
    }`,
  );
}

/** Prepares the upserts of every rollup table. */
export function prepareRollupStatements(db: DatabaseSync): RollupStatements {
  return {
    status: upsert(db, "status_minutes", "minute", "status", [
      "queries",
      "duration_us",
    ]),
    clients: upsert(db, "client_minutes", "minute", "client", [
      "queries",
      "blocked",
    ]),
    domainMinutes: upsert(db, "domain_minutes", "minute", "name", [
      "queries",
      "blocked",
    ]),
    domainHours: upsert(db, "domain_hours", "hour", "name", [
      "queries",
      "blocked",
    ]),
    upstreams: upsert(db, "upstream_minutes", "minute", "upstream", [
      "queries",
      "errors",
      "duration_us",
    ]),
    eventMinutes: new MultiRowInsert(
      db,
      "INSERT INTO event_minutes (minute, first_id, last_id) VALUES",
      3,
      `ON CONFLICT (minute) DO UPDATE SET
         first_id = min(first_id, excluded.first_id),
         last_id = max(last_id, excluded.last_id)`,
    ),
  };
}

/** The first minute still inside the domain_minutes retention at `now`. */
export function oldestDomainMinute(now: number, retentionMs: number): number {
  return Math.ceil((now - retentionMs) / MINUTE_MS);
}
