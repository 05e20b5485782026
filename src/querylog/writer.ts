/**
 * The query-log writer on the main thread (seed §3.1 "ring → SQLite →
 * rollups"). Workers' batches go into a bounded in-memory queue that never
 * blocks and never throws; a flush loop writes it out in batches, one
 * transaction each; every minute the retention sweep runs.
 *
 * The query path must never wait on logging (principle 4): when the queue is
 * full, new events are dropped and counted, and a failed batch stays queued
 * and is retried on the next tick (the queue bound caps what that costs).
 *
 * A file that opens but turns out damaged later (SQLite reads most pages
 * only when a write or a sweep needs them) would fail every batch for good:
 * it is moved aside and a new one started, as `kudurru serve` does with a
 * file that does not open.
 */
import type { DatabaseSync } from "node:sqlite";
import type { Logger } from "../log/logger.ts";
import type { QueryEvent } from "../pipeline/query_event.ts";
import {
  isPackedQueryEvents,
  type PackedQueryEvents,
  QueryEventPacker,
} from "../pipeline/query_event_pack.ts";
import { type BatchSlice, BatchStore } from "./batch_store.ts";
import { unreadableChunks } from "./event_chunks.ts";
import {
  isDamagedDatabaseError,
  moveAsideDamaged,
  openQueryLogDb,
} from "./db.ts";
import { foldDomainMinutes } from "./domain_hours.ts";
import { createEventFilter, type EventFilter } from "./event_filter.ts";
import {
  type RetentionReport,
  type RetentionState,
  runRetention,
} from "./retention.ts";
import { HOUR_MS, type QueryLogSettings, retentionLimits } from "./settings.ts";

export interface QueryLogWriterOptions {
  /** The database file (`<dataDir>/querylog.db`). */
  path: string;
  /** This node's name (events carry their own; this names the log lines). */
  node: string;
  settings: QueryLogSettings;
  logger: Logger;
  /** @default Date.now */
  now?: () => number;
  /** Events held in memory at most; more are dropped. @default 200_000 */
  maxQueue?: number;
  /**
   * Events per transaction at most. Larger batches share their commit and
   * their rollup upserts (one per name and minute) among more events: at
   * 80k events/s, 20,000 → 100,000 measured 1.14 → 0.72 µs of main-thread
   * CPU per event (bench/querylog/worker_fed.ts), and the main thread is
   * held ~60 ms a second.
   * @default 100_000
   */
  batchSize?: number;
  /**
   * Time between flushes when no full batch is waiting. Longer means
   * larger batches: a name asked again within the interval costs no extra
   * rollup upsert (250 → 1000 ms measured ~25 % less CPU per event at 25k
   * q/s); shorter means a live tail sees queries sooner. @default 1000
   */
  flushIntervalMs?: number;
  /** Time between retention sweeps; 0 turns them off. @default 60_000 */
  retentionIntervalMs?: number;
}

/** The writer's counters since it started. */
export interface QueryLogWriterStats {
  /** Events waiting in memory. */
  queued: number;
  /** Events stored (or, under privacy "none", counted). */
  written: number;
  /** Events lost: the queue was full, or a batch failed three times. */
  dropped: number;
  /** Events left out by querylog.exclude or enabled: false. */
  excluded: number;
  /** Events that were not valid QueryEvents. */
  invalid: number;
  /** Transactions committed. */
  batches: number;
  /** Transactions rolled back. */
  failedBatches: number;
  /** The last write or retention error, if any. */
  lastError: string | undefined;
  /** Chunks any reader of this process skipped as undecodable (unreadableChunks). */
  unreadableChunks: number;
  /** Damaged files moved aside and replaced with a new one while running. */
  damagedFilesReplaced: number;
}

export interface QueryLogWriter {
  /** Queues `events`; O(events), never blocks, never throws. */
  enqueue(events: readonly QueryEvent[]): void;
  /** Queues a worker's packed batch; same rules as enqueue. */
  enqueuePacked(batch: PackedQueryEvents): void;
  stats(): QueryLogWriterStats;
  /** Resolves once everything queued before the call is written (or failed). */
  flush(): Promise<void>;
  /** Applies changed `querylog` settings to events written from now on. */
  updateSettings(settings: QueryLogSettings): void;
  /**
   * Folds finished minutes into domain_hours and runs one retention sweep
   * now (both also run on their own every minute).
   */
  runRetention(): Promise<RetentionReport>;
  /**
   * The writer's connection, for queries in the same process (read it for
   * each use: a damaged file is replaced with a new connection).
   */
  readonly db: DatabaseSync;
  /** Flushes what is queued, stops the timers and closes the database. */
  close(): Promise<void>;
}

/** A batch that fails this many times in a row (not for a lock) is dropped. */
const MAX_BATCH_ATTEMPTS = 3;
/**
 * A damaged file is replaced at most this often: a disk that damages every
 * file it is given must not fill up with copies.
 */
const MIN_MS_BETWEEN_REPLACEMENTS = HOUR_MS;

/**
 * Opens `opts.path` (creating and migrating it) and starts the flush and
 * retention loops.
 *
 * @throws when the file cannot be opened or is from a newer kudurru
 */
export function createQueryLogWriter(
  opts: QueryLogWriterOptions,
): QueryLogWriter {
  const now = opts.now ?? Date.now;
  const maxQueue = opts.maxQueue ?? 200_000;
  const batchSize = Math.max(1, opts.batchSize ?? 100_000);
  const interval = opts.flushIntervalMs ?? 1000;
  const logger = opts.logger.with({ component: "querylog", node: opts.node });
  // Short: a lock held elsewhere must not stall the main thread for long.
  const open = () => openQueryLogDb(opts.path, { busyTimeoutMs: 50 });
  let db = open();
  let store = new BatchStore(db);
  let lastReplacement = -Infinity;
  let settings = opts.settings;
  let filter: EventFilter = createEventFilter(settings);
  /** Batches waiting, oldest first; the first may be partly written. */
  let queue: BatchSlice[] = [];
  let queued = 0;
  let attempts = 0;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let draining: Promise<void> | undefined;
  const retentionState: RetentionState = {};
  let retentionRun: Promise<RetentionReport> | undefined;
  const counters: Omit<QueryLogWriterStats, "queued" | "unreadableChunks"> = {
    written: 0,
    dropped: 0,
    excluded: 0,
    invalid: 0,
    batches: 0,
    failedBatches: 0,
    lastError: undefined,
    damagedFilesReplaced: 0,
  };

  /**
   * After `err`, when it says the file is damaged: moves the file aside and
   * opens a new one (see the file comment). True when it did.
   */
  function replaceDamagedFile(err: unknown): boolean {
    if (!isDamagedDatabaseError(err)) return false;
    if (now() - lastReplacement < MIN_MS_BETWEEN_REPLACEMENTS) return false;
    lastReplacement = now();
    try {
      db.close();
      const aside = moveAsideDamaged(opts.path);
      db = open();
      store = new BatchStore(db);
      counters.damagedFilesReplaced++;
      logger.error(
        "The query log is damaged; moved it aside and started a new one",
        { path: opts.path, movedTo: aside, error: err },
      );
      return true;
    } catch (replaceErr) {
      logger.error("Cannot replace the damaged query log", {
        path: opts.path,
        error: replaceErr,
      });
      if (!db.isOpen) {
        try {
          db = open();
          store = new BatchStore(db);
        } catch {
          // Batches fail and are counted as before; nothing more to do.
        }
      }
      return false;
    }
  }

  function schedule(delay: number): void {
    if (closed) return;
    if (timer !== undefined) {
      if (delay > 0) return;
      clearTimeout(timer);
    }
    timer = setTimeout(() => {
      timer = undefined;
      drain().finally(() => schedule(interval));
    }, delay);
  }

  /** Up to batchSize events from the front of the queue. */
  function front(): BatchSlice[] {
    const slices: BatchSlice[] = [];
    let room = batchSize;
    for (const slice of queue) {
      if (room === 0) break;
      const take = Math.min(room, slice.to - slice.from);
      slices.push({ ...slice, to: slice.from + take });
      room -= take;
    }
    return slices;
  }

  /** Removes the events of `slices` (the queue's front) from the queue. */
  function consume(slices: readonly BatchSlice[]): number {
    let events = 0;
    for (const slice of slices) {
      const head = queue[0]!;
      head.from = slice.to;
      events += slice.to - slice.from;
      if (head.from === head.to) queue.shift();
    }
    queued -= events;
    return events;
  }

  /** Writes the oldest batch; false when it failed (and is still queued). */
  function writeOneBatch(): boolean {
    const batch = front();
    try {
      const result = store.writeEvents(batch, filter, now());
      consume(batch);
      attempts = 0;
      counters.batches++;
      counters.written += result.written;
      counters.excluded += result.excluded;
      if (result.invalid > 0) {
        counters.invalid += result.invalid;
        logger.debug("Skipped invalid query events", {
          count: result.invalid,
          reason: result.lastInvalid,
        });
      }
      return true;
    } catch (err) {
      counters.failedBatches++;
      counters.lastError = err instanceof Error ? err.message : String(err);
      if (replaceDamagedFile(err)) return writeOneBatch();
      const locked = /locked|busy/i.test(counters.lastError);
      if (!locked && ++attempts >= MAX_BATCH_ATTEMPTS) {
        const events = consume(batch);
        counters.dropped += events;
        attempts = 0;
        logger.error("Dropped a query-log batch that failed repeatedly", {
          events,
          error: err,
        });
      } else {
        logger.warn("Cannot write a query-log batch; will retry", {
          events: batch.reduce((n, s) => n + s.to - s.from, 0),
          error: err,
        });
      }
      return false;
    }
  }

  function drain(): Promise<void> {
    if (draining) return draining;
    const loop = async () => {
      while (queued > 0 && !closed && writeOneBatch()) {
        // Let the event loop (API, timers, workers' messages) breathe.
        if (queued > 0) await new Promise((r) => setTimeout(r, 0));
      }
    };
    // .finally runs after the assignment, even when loop() ends at once.
    draining = loop().finally(() => draining = undefined);
    return draining;
  }

  /** Folds finished minutes into domain_hours, then the retention sweep. */
  async function maintain(): Promise<RetentionReport> {
    await foldDomainMinutes(db, now());
    return await runRetention(db, {
      now: now(),
      limits: retentionLimits(settings),
      state: retentionState,
      logger,
      onDictionariesPruned: () => store.encoder.resetDictionaries(),
    });
  }

  async function retention(): Promise<RetentionReport> {
    retentionRun ??= maintain().catch((err) => {
      counters.lastError = err instanceof Error ? err.message : String(err);
      logger.warn("Query-log retention failed", { error: err });
      replaceDamagedFile(err);
      return { deletedEvents: 0 } as RetentionReport;
    }).finally(() => retentionRun = undefined);
    return await retentionRun;
  }

  /** Writes until the queue is empty or a batch fails. */
  async function flush(): Promise<void> {
    while (queued > 0 && !closed) {
      const before = counters.failedBatches;
      await drain();
      if (counters.failedBatches !== before) return;
    }
  }

  function enqueuePacked(batch: PackedQueryEvents): void {
    try {
      if (!isPackedQueryEvents(batch)) {
        counters.invalid++;
        return;
      }
      if (closed) {
        counters.dropped += batch.count;
        return;
      }
      if (!settings.enabled) {
        counters.excluded += batch.count;
        return;
      }
      const take = Math.min(maxQueue - queued, batch.count);
      if (take > 0) {
        queue.push({ batch, from: 0, to: take });
        queued += take;
      }
      if (take < batch.count) counters.dropped += batch.count - take;
      if (queued >= batchSize) schedule(0);
    } catch (err) {
      counters.lastError = err instanceof Error ? err.message : String(err);
    }
  }

  const retentionEvery = opts.retentionIntervalMs ?? 60_000;
  const retentionTimer = retentionEvery > 0
    ? setInterval(() => void retention(), retentionEvery)
    : undefined;
  schedule(interval);

  return {
    get db() {
      return db;
    },
    enqueue(events) {
      const packer = new QueryEventPacker(128);
      let bad = 0;
      try {
        for (const event of events) {
          try {
            packer.add(event);
          } catch {
            bad++; // not a QueryEvent
          }
        }
      } catch {
        bad++; // not a list
      }
      counters.invalid += bad;
      enqueuePacked(packer.take());
    },
    enqueuePacked,
    stats: () => ({
      queued,
      ...counters,
      unreadableChunks: unreadableChunks(),
    }),
    flush,
    updateSettings(next) {
      settings = next;
      filter = createEventFilter(next);
    },
    runRetention: retention,
    async close() {
      if (closed) return;
      await flush();
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      if (retentionTimer !== undefined) clearInterval(retentionTimer);
      await draining;
      await retentionRun;
      counters.dropped += queued;
      queue = [];
      queued = 0;
      if (db.isOpen) db.close();
    },
  };
}
