/**
 * Writes one batch of events, and their rollups, in one transaction: the
 * unit of work of the writer (and of the benchmark's generator). Either the
 * whole batch is in the file or none of it is.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { PackedQueryEvents } from "../pipeline/query_event_pack.ts";
import { rollback } from "../store/sqlite/sqlite_schema.ts";
import { COLUMNS } from "./chunk_codec.ts";
import { type DictionaryCacheSizes, EventEncoder } from "./encode.ts";
import { EncodedRows } from "./encoded_rows.ts";
import { EventChunks } from "./event_chunks.ts";
import type { EventFilter } from "./event_filter.ts";
import { readDomainHoursThrough } from "./domain_hours.ts";
import {
  BatchRollups,
  ClientDomainCounts,
  type DomainRouting,
  oldestDomainMinute,
  prepareRollupStatements,
  type RollupStatements,
} from "./rollups.ts";
import { DOMAIN_MINUTES_RETENTION_MS } from "./settings.ts";

/** What one batch did. */
export interface BatchResult {
  /** Events stored or counted. */
  written: number;
  /** Events left out by an exclusion. */
  excluded: number;
  /** Events that could not be encoded. */
  invalid: number;
  /** Why the last invalid event was refused. */
  lastInvalid?: string;
}

/** Events [from, to) of a packed batch. */
export interface BatchSlice {
  batch: PackedQueryEvents;
  from: number;
  to: number;
}

/**
 * When the per-client and per-domain counts of written batches may wait
 * to be added to their tables, gathered into one upsert per (minute, key):
 * a busy node's batch names thousands of domains, and upserting them every
 * batch was a quarter of the writer's time. A quiet node's are written at
 * once, so a query asked by hand shows in the statistics as soon as it
 * shows in the log.
 */
export interface RollupDeferral {
  /** How long counts may wait. */
  ms: number;
  /** Only a batch of at least this many events leaves its counts waiting. */
  fromEvents: number;
}

/** The writer's: batches of 10,000 events or more, i.e. ≥ 10k q/s. */
export const DEFAULT_ROLLUP_DEFERRAL: RollupDeferral = {
  ms: 10_000,
  fromEvents: 10_000,
};

export interface BatchStoreOptions {
  cacheSizes?: DictionaryCacheSizes;
  /** @default none: every batch adds its own counts */
  deferRollups?: RollupDeferral;
}

/**
 * Per-client and per-domain counts waiting at most: past this many
 * (minute, key) pairs the next batch writes them (~100 bytes each).
 */
export const MAX_DEFERRED_ROLLUP_KEYS = 200_000;

export class BatchStore {
  readonly encoder: EventEncoder;
  readonly chunks: EventChunks;
  readonly #db: DatabaseSync;
  readonly #saveNextId: StatementSync;
  readonly #rollups: RollupStatements;
  readonly #rows = new EncodedRows();
  #nextId: number;
  readonly #deferral: RollupDeferral | undefined;
  /** Client and domain counts of committed batches not yet in the tables. */
  #deferred = new ClientDomainCounts();
  /** When the oldest of them was written (undefined: none wait). */
  #deferredSince: number | undefined;

  constructor(db: DatabaseSync, opts: BatchStoreOptions = {}) {
    this.#db = db;
    this.#deferral = opts.deferRollups;
    this.encoder = new EventEncoder(db, opts.cacheSizes);
    this.chunks = new EventChunks(db);
    this.#saveNextId = db.prepare(
      "UPDATE meta SET value = ? WHERE key = 'next_event_id'",
    );
    this.#rollups = prepareRollupStatements(db);
    this.#nextId = this.#loadNextId();
  }

  /**
   * Filters, encodes and stores the events of `slices` with their rollups,
   * in one transaction. Bad events are counted, not thrown.
   *
   * @throws the SQLite error that rolled the batch back (nothing written)
   */
  writeEvents(
    slices: readonly BatchSlice[],
    filter: EventFilter,
    now: number,
  ): BatchResult {
    const result: BatchResult = { written: 0, excluded: 0, invalid: 0 };
    let committed = () => {};
    this.#transaction(() => {
      // One buffer for every batch: a batch of 100,000 rows is 15 MB.
      const rows = this.#rows;
      rows.count = 0;
      for (const { batch, from, to } of slices) {
        const counts = this.encoder.encode(batch, from, to, filter, rows, now);
        result.excluded += counts.excluded;
        result.invalid += counts.invalid;
        if (counts.lastInvalid !== undefined) {
          result.lastInvalid = counts.lastInvalid;
        }
      }
      committed = this.#store(rows, filter.privacy !== "none", now);
      result.written = rows.count;
    });
    committed();
    return result;
  }

  /** Client and domain counts waiting to be written ((minute, key) pairs). */
  get deferredRollups(): number {
    return this.#deferred.size;
  }

  /** True when counts have waited as long as the deferral allows. */
  deferredRollupsDue(now: number): boolean {
    const since = this.#deferredSince;
    return since !== undefined &&
      (now - since >= (this.#deferral?.ms ?? 0) || now < since);
  }

  /**
   * Adds the waiting client and domain counts to their tables, in a
   * transaction of their own (nothing when none wait).
   *
   * @throws the SQLite error that rolled it back (the counts still wait)
   */
  writeDeferredRollups(now: number): void {
    if (this.#deferredSince === undefined) return;
    this.#transaction(() =>
      this.#deferred.write(this.#rollups, this.#routing(now))
    );
    this.#clearDeferred();
  }

  /**
   * Stores the batch (inside its transaction); returns what to do once it
   * is committed.
   */
  #store(
    encoded: EncodedRows,
    storeEvents: boolean,
    now: number,
  ): () => void {
    // Time order makes ids follow time almost everywhere, which keeps the
    // id range of each minute tight.
    encoded.sortByTime();
    const rollups = new BatchRollups(storeEvents);
    const { rows, kinds, count } = encoded;
    const firstId = this.#nextId;
    for (let i = 0; i < count; i++) {
      rollups.add(
        rows,
        i * COLUMNS,
        kinds[i]!,
        storeEvents ? firstId + i : undefined,
      );
    }
    if (storeEvents && count > 0) {
      this.chunks.append(firstId, rows, count);
      this.#nextId += count;
    }
    rollups.write(this.#rollups);
    const committed = this.#writeOrDefer(
      rollups.clientsAndDomains,
      count,
      now,
    );
    for (const dictionary of this.encoder.all()) dictionary.writeBumps();
    this.#saveNextId.run(String(this.#nextId));
    return committed;
  }

  /**
   * Writes `counts` (of a batch of `events`) with those waiting, unless
   * the deferral lets them wait; returns what to do once the batch is
   * committed. A batch rolled back leaves the waiting ones as they were.
   */
  #writeOrDefer(
    counts: ClientDomainCounts,
    events: number,
    now: number,
  ): () => void {
    if (counts.size === 0) return () => {};
    const waiting = this.#deferredSince !== undefined;
    const deferral = this.#deferral;
    if (
      deferral === undefined || events < deferral.fromEvents ||
      this.deferredRollupsDue(now) ||
      this.#deferred.size + counts.size > MAX_DEFERRED_ROLLUP_KEYS
    ) {
      if (waiting) counts.merge(this.#deferred);
      counts.write(this.#rollups, this.#routing(now));
      return waiting ? () => this.#clearDeferred() : () => {};
    }
    return () => {
      if (waiting) this.#deferred.merge(counts);
      else {
        this.#deferred = counts;
        this.#deferredSince = now;
      }
    };
  }

  #clearDeferred(): void {
    this.#deferred = new ClientDomainCounts();
    this.#deferredSince = undefined;
  }

  /** Read in the transaction: the fold may have moved since the last one. */
  #routing(now: number): DomainRouting {
    return {
      oldestDomainMinute: oldestDomainMinute(now, DOMAIN_MINUTES_RETENTION_MS),
      domainHoursThrough: readDomainHoursThrough(this.#db),
    };
  }

  #transaction(body: () => void): void {
    const firstId = this.#nextId;
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      body();
      this.#db.exec("COMMIT");
    } catch (err) {
      rollback(this.#db);
      for (const insert of Object.values(this.#rollups)) insert.clear();
      // Ids cached during the batch may name rows that were rolled back.
      this.encoder.resetDictionaries();
      this.#nextId = firstId;
      throw err;
    }
  }

  #loadNextId(): number {
    const saved = this.#db.prepare(
      "SELECT value FROM meta WHERE key = 'next_event_id'",
    ).get();
    const newest = this.chunks.newestId() ?? 0;
    return Math.max(Number(saved?.value ?? 1), newest + 1);
  }
}
