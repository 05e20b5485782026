/**
 * The query-log writer on the main thread (seed §3.1 "ring → SQLite →
 * rollups"). Workers' batches go into a bounded in-memory queue that never
 * blocks and never throws; a flush loop writes it out in batches, one
 * transaction each; every minute the retention sweep runs.
 *
 * The query path must never wait on logging (principle 4): when the queue is
 * full, new events are dropped and counted, and a failed batch stays queued
 * and is retried on the next tick (the queue bound caps what that costs).
 */
import type { DatabaseSync } from "node:sqlite";
import type { Logger } from "../log/logger.ts";
import type { QueryEvent } from "../pipeline/query_event.ts";
import { BatchStore } from "./batch_store.ts";
import { openQueryLogDb } from "./db.ts";
import { foldDomainMinutes } from "./domain_hours.ts";
import { createEventFilter, type EventFilter } from "./event_filter.ts";
import {
  type RetentionReport,
  type RetentionState,
  runRetention,
} from "./retention.ts";
import { type QueryLogSettings, retentionLimits } from "./settings.ts";

export interface QueryLogWriterOptions {
  /** The database file (`<dataDir>/querylog.db`). */
  path: string;
  /** This node's name (events carry their own; this names the log lines). */
  node: string;
  settings: QueryLogSettings;
  logger: Logger;
  /** @default Date.now */
  now?: () => number;
  /** Events held in memory at most; more are dropped. @default 50_000 */
  maxQueue?: number;
  /** Events per transaction. @default 5_000 */
  batchSize?: number;
  /** Time between flushes when no full batch is waiting. @default 250 */
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
}

export interface QueryLogWriter {
  /** Queues `events`; O(events), never blocks, never throws. */
  enqueue(events: readonly QueryEvent[]): void;
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
  /** The writer's connection, for queries in the same process. */
  readonly db: DatabaseSync;
  /** Flushes what is queued, stops the timers and closes the database. */
  close(): Promise<void>;
}

/** A batch that fails this many times in a row (not for a lock) is dropped. */
const MAX_BATCH_ATTEMPTS = 3;

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
  const maxQueue = opts.maxQueue ?? 50_000;
  const batchSize = Math.max(1, opts.batchSize ?? 5_000);
  const interval = opts.flushIntervalMs ?? 250;
  const logger = opts.logger.with({ component: "querylog", node: opts.node });
  // Short: a lock held elsewhere must not stall the main thread for long.
  const db = openQueryLogDb(opts.path, { busyTimeoutMs: 50 });
  const store = new BatchStore(db);
  let settings = opts.settings;
  let filter: EventFilter = createEventFilter(settings);
  let queue: QueryEvent[] = [];
  let attempts = 0;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let draining: Promise<void> | undefined;
  const retentionState: RetentionState = {};
  let retentionRun: Promise<RetentionReport> | undefined;
  const counters: Omit<QueryLogWriterStats, "queued"> = {
    written: 0,
    dropped: 0,
    excluded: 0,
    invalid: 0,
    batches: 0,
    failedBatches: 0,
    lastError: undefined,
  };

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

  /** Writes the oldest batch; false when it failed (and is still queued). */
  function writeOneBatch(): boolean {
    const batch = queue.length <= batchSize ? queue : queue.slice(0, batchSize);
    try {
      const result = store.writeEvents(batch, filter, now());
      queue = batch === queue ? [] : queue.slice(batch.length);
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
      const locked = /locked|busy/i.test(counters.lastError);
      if (!locked && ++attempts >= MAX_BATCH_ATTEMPTS) {
        queue = queue.slice(batch.length);
        counters.dropped += batch.length;
        attempts = 0;
        logger.error("Dropped a query-log batch that failed repeatedly", {
          events: batch.length,
          error: err,
        });
      } else {
        logger.warn("Cannot write a query-log batch; will retry", {
          events: batch.length,
          error: err,
        });
      }
      return false;
    }
  }

  function drain(): Promise<void> {
    if (draining) return draining;
    const loop = async () => {
      while (queue.length > 0 && !closed && writeOneBatch()) {
        // Let the event loop (API, timers, workers' messages) breathe.
        if (queue.length > 0) await new Promise((r) => setTimeout(r, 0));
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
      onDictionariesPruned: () => {
        for (const d of store.encoder.all()) d.reset();
      },
    });
  }

  async function retention(): Promise<RetentionReport> {
    retentionRun ??= maintain().catch((err) => {
      counters.lastError = err instanceof Error ? err.message : String(err);
      logger.warn("Query-log retention failed", { error: err });
      return { deletedEvents: 0 } as RetentionReport;
    }).finally(() => retentionRun = undefined);
    return await retentionRun;
  }

  /** Writes until the queue is empty or a batch fails. */
  async function flush(): Promise<void> {
    while (queue.length > 0 && !closed) {
      const before = counters.failedBatches;
      await drain();
      if (counters.failedBatches !== before) return;
    }
  }

  const retentionEvery = opts.retentionIntervalMs ?? 60_000;
  const retentionTimer = retentionEvery > 0
    ? setInterval(() => void retention(), retentionEvery)
    : undefined;
  schedule(interval);

  return {
    db,
    enqueue(events) {
      try {
        if (closed) {
          counters.dropped += events.length;
          return;
        }
        if (!settings.enabled) {
          counters.excluded += events.length;
          return;
        }
        const room = maxQueue - queue.length;
        const take = Math.min(room, events.length);
        for (let i = 0; i < take; i++) queue.push(events[i]!);
        if (take < events.length) counters.dropped += events.length - take;
        if (queue.length >= batchSize) schedule(0);
      } catch (err) {
        counters.lastError = err instanceof Error ? err.message : String(err);
      }
    },
    stats: () => ({ queued: queue.length, ...counters }),
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
      counters.dropped += queue.length;
      queue = [];
      db.close();
    },
  };
}
