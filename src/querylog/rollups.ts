/**
 * The rollups of a batch: counted in memory while the batch is encoded,
 * then added to the rollup tables with one upsert per (bucket, key): per
 * minute × status and × upstream, and event_minutes (the id range of each
 * minute), in the batch's transaction; per minute × client and × domain
 * (ClientDomainCounts) in the same transaction or, gathered over several
 * batches, a later one (batch_store.ts). Per-hour domain rows are folded
 * from the minute rows later (domain_hours.ts).
 */
import type { DatabaseSync } from "node:sqlite";
import { C } from "./chunk_codec.ts";
import { KIND_BLOCKED, KIND_UPSTREAM_ERROR } from "./encode.ts";
import { MultiRowInsert } from "./multi_row_insert.ts";
import { hourOf, MINUTE_MS, minuteOf } from "./settings.ts";

/**
 * bucket → key → counters (a fixed number per table). The counters sit in
 * one growing Float64Array, a slot per (bucket, key), not an array each: a
 * busy node's batch counts thousands of names, and those arrays were
 * garbage the main thread's collector had to mark once they outlived a
 * scavenge (counts may wait seconds to be written: batch_store.ts).
 */
class Counters {
  /** bucket → key → slot (the slot's counters start at slot × width). */
  readonly #buckets = new Map<number, Map<number, number>>();
  #values: Float64Array;
  /** (bucket, key) pairs held. */
  size = 0;
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
      slot = this.size++;
      keys.set(key, slot);
      if (this.size * this.width > this.#values.length) this.#grow();
    }
    const values = this.#values;
    const at = slot * this.width;
    values[at] = values[at]! + a;
    values[at + 1] = values[at + 1]! + b;
    if (this.width === 3) values[at + 2] = values[at + 2]! + c;
  }

  /** Calls `each` with every (bucket, key) and its counters. */
  forEach(
    each: (
      bucket: number,
      key: number,
      a: number,
      b: number,
      c: number,
    ) => void,
  ): void {
    const values = this.#values;
    const width = this.width;
    for (const [bucket, keys] of this.#buckets) {
      for (const [key, slot] of keys) {
        const at = slot * width;
        each(
          bucket,
          key,
          values[at]!,
          values[at + 1]!,
          width === 3 ? values[at + 2]! : 0,
        );
      }
    }
  }

  /** Adds every counter of `other` to this one's. */
  merge(other: Counters): void {
    other.forEach((bucket, key, a, b, c) => this.add(bucket, key, a, b, c));
  }

  write(insert: MultiRowInsert): void {
    if (this.width === 3) {
      this.forEach((bucket, key, a, b, c) => insert.add(bucket, key, a, b, c));
    } else {
      this.forEach((bucket, key, a, b) => insert.add(bucket, key, a, b));
    }
    insert.flush();
  }

  #grow(): void {
    const values = new Float64Array(this.#values.length * 2);
    values.set(this.#values);
    this.#values = values;
  }
}

/** Where a domain's minute counts go when they are written. */
export interface DomainRouting {
  /** Minutes before this one get no domain_minutes rows (they would be deleted at once). */
  oldestDomainMinute: number;
  /** meta.domain_hours_through: minutes before it are already in domain_hours. */
  domainHoursThrough: number;
}

/**
 * Queries and blocked answers per minute × client and per minute × domain:
 * the rollups with many keys (a busy node asks for thousands of names a
 * minute). They may be written batches later than their events (see
 * BatchStore), so where a domain's minute goes is decided when it is
 * written, by the routing read then.
 */
export class ClientDomainCounts {
  readonly #clients = new Counters(2);
  readonly #domains = new Counters(2);

  /** (minute, client) and (minute, domain) pairs held. */
  get size(): number {
    return this.#clients.size + this.#domains.size;
  }

  add(minute: number, client: number, qname: number, blocked: number): void {
    this.#clients.add(minute, client, 1, blocked);
    this.#domains.add(minute, qname, 1, blocked);
  }

  /** Adds every count of `other` to this one's. */
  merge(other: ClientDomainCounts): void {
    this.#clients.merge(other.#clients);
    this.#domains.merge(other.#domains);
  }

  /** Adds the counts to the tables (inside the caller's transaction). */
  write(statements: RollupStatements, routing: DomainRouting): void {
    this.#clients.write(statements.clients);
    // domain_hours gets minutes folded later (domain_hours.ts), except
    // those already folded or too old to have a minute row.
    const hours = new Counters(2);
    this.#domains.forEach((minute, name, queries, blocked) => {
      const toMinutes = minute >= routing.oldestDomainMinute;
      if (toMinutes) {
        statements.domainMinutes.add(minute, name, queries, blocked);
      }
      if (!toMinutes || minute < routing.domainHoursThrough) {
        hours.add(hourOf(minute * MINUTE_MS), name, queries, blocked);
      }
    });
    statements.domainMinutes.flush();
    hours.write(statements.domainHours);
  }
}

/** The rollup rows one batch adds, and the event_minutes ranges of its ids. */
export class BatchRollups {
  readonly #status = new Counters(2);
  readonly #upstreams = new Counters(3);
  /** minute → [first id, last id] */
  readonly #ids = new Map<number, [number, number]>();
  /** Counted only when `perClientAndDomain`; written by the caller. */
  readonly clientsAndDomains = new ClientDomainCounts();

  /** `perClientAndDomain`: false under privacy "none". */
  constructor(readonly perClientAndDomain: boolean) {}

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
    const minute = minuteOf(rows[at + C.time]!);
    const durationUs = rows[at + C.durationUs]!;
    this.#status.add(minute, rows[at + C.status]!, 1, durationUs);
    const upstream = rows[at + C.upstream]!;
    if (upstream !== 0) {
      const error = kinds & KIND_UPSTREAM_ERROR ? 1 : 0;
      this.#upstreams.add(minute, upstream, 1, error, durationUs);
    }
    if (this.perClientAndDomain) {
      this.clientsAndDomains.add(
        minute,
        rows[at + C.client]!,
        rows[at + C.qname]!,
        kinds & KIND_BLOCKED ? 1 : 0,
      );
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

  /**
   * Adds the per-status and per-upstream counts and the id ranges to the
   * tables (inside the caller's transaction); not `clientsAndDomains`.
   */
  write(statements: RollupStatements): void {
    this.#status.write(statements.status);
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
