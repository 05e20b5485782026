/**
 * The query-log writer on the main thread (docs/design.md#query-log).
 * Workers' batches go into a bounded in-memory queue that never
 * blocks and never throws; a flush loop writes it out in batches, one
 * transaction each; every minute the retention sweep runs.
 *
 * The query path must never wait on logging
 * (docs/design.md#the-query-path-never-touches-the-store): when the queue is
 * full, new events are dropped and counted, and a failed batch stays queued
 * and is retried on the next tick (the queue bound caps what that costs).
 *
 * A file that does not open (a full disk, a newer kudurru's file) is tried
 * again on later ticks while events wait in the queue, and a damaged file is
 * moved aside for a new one, at start or when a write or a sweep finds it so
 * (writer_connection.ts). While writes fail, the log gets one line when it
 * starts, a summary a minute, and one when it works again (write_outage.ts).
 */
import type { LiveFeed } from "./live_feed.ts";
import type { DatabaseSync } from "node:sqlite";
import type { Logger } from "../log/logger.ts";
import type { QueryEvent } from "../pipeline/query_event.ts";
import {
  isPackedQueryEvents,
  type PackedQueryEvents,
} from "../pipeline/query_event_pack.ts";
import type { BatchSlice } from "./batch_store.ts";
import { unreadableChunks } from "./event_chunks.ts";
import { openQueryLogDb } from "./db.ts";
import { foldDomainMinutes } from "./domain_hours.ts";
import { createEventFilter, type EventFilter } from "./event_filter.ts";
import { EventQueue, packEvents } from "./event_queue.ts";
import {
  NO_RETENTION,
  type RetentionReport,
  type RetentionState,
  runRetention,
} from "./retention.ts";
import { type QueryLogSettings, retentionLimits } from "./settings.ts";
import { errorText, WriteOutage } from "./write_outage.ts";
import { WriterConnection } from "./writer_connection.ts";

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
  /**
   * Gets every queued event as it will be stored (exclusions and privacy
   * applied), for the API's live tail; costs nothing while nobody listens.
   */
  liveFeed?: LiveFeed;
}

/** The writer's counters since it started. */
export interface QueryLogWriterStats {
  /** Events waiting in memory. */
  queued: number;
  /** Events stored (or, under privacy "none", counted). */
  written: number;
  /** Events lost: the queue was full, or they could not be written. */
  dropped: number;
  /**
   * Of `dropped`, those whose batch failed three times, or that were still
   * unwritten when the writer closed (the rest found the queue full).
   */
  droppedWriteFailed: number;
  /** Events left out by querylog.exclude or enabled: false. */
  excluded: number;
  /** Events that were not valid QueryEvents. */
  invalid: number;
  /** Transactions committed. */
  batches: number;
  /** Transactions rolled back. */
  failedBatches: number;
  /** Time spent writing batches, in ms (on the main thread). */
  writeMs: number;
  /** Attempts to open the file that failed (each is tried again later). */
  failedOpens: number;
  /**
   * True while the log cannot be written: the file is not open, or writes
   * failed since the last one that worked.
   */
  failing: boolean;
  /** The last open, write or retention error, if any. */
  lastError: string | undefined;
  /** Chunks any reader of this process skipped as undecodable (unreadableChunks). */
  unreadableChunks: number;
  /** Damaged files moved aside and replaced with a new one, at start or later. */
  damagedFilesReplaced: number;
  /** Times the open file was deleted or replaced at its path, and reopened. */
  filesLostFromPath: number;
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
   * The writer's connection, for queries in the same process. Read it for
   * each use: a damaged file is replaced with a new connection, and one that
   * did not open is opened again later.
   * @throws {QueryLogNotOpenError} while the file is not open
   */
  readonly db: DatabaseSync;
  /**
   * Flushes what is queued (opening the file once more if it is not open),
   * stops the timers and closes the database. Events it cannot write are
   * counted as dropped, with one line that says how many and why.
   */
  close(): Promise<void>;
}

/** A batch that fails this many times in a row (not for a lock) is dropped. */
const MAX_BATCH_ATTEMPTS = 3;

/**
 * Opens `opts.path` (creating and migrating it) and starts the flush and
 * retention loops. A file that does not open is logged and tried again on
 * later ticks (see the file comment): this does not throw for it.
 */
export function createQueryLogWriter(
  opts: QueryLogWriterOptions,
): QueryLogWriter {
  const now = opts.now ?? Date.now;
  const maxQueue = opts.maxQueue ?? 200_000;
  const batchSize = Math.max(1, opts.batchSize ?? 100_000);
  const interval = opts.flushIntervalMs ?? 1000;
  const logger = opts.logger.with({ component: "querylog", node: opts.node });
  const connection = new WriterConnection({
    path: opts.path,
    // Short: a lock held elsewhere must not stall the main thread for long.
    open: () => openQueryLogDb(opts.path, { busyTimeoutMs: 50 }),
    logger,
    now,
  });
  let settings = opts.settings;
  let filter: EventFilter = createEventFilter(settings);
  const queue = new EventQueue();
  let attempts = 0;
  /** close() has begun: its own line says what could not be written. */
  let closing = false;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let draining: Promise<boolean> | undefined;
  const retentionState: RetentionState = {};
  let retentionRun: Promise<RetentionReport> | undefined;
  const counters = {
    written: 0,
    dropped: 0,
    droppedWriteFailed: 0,
    excluded: 0,
    invalid: 0,
    batches: 0,
    failedBatches: 0,
    writeMs: 0,
    lastError: undefined as string | undefined,
  };
  const outage = new WriteOutage(logger, now, () => ({
    failedBatches: counters.failedBatches,
    failedOpens: connection.failedOpens,
    dropped: counters.dropped,
  }));

  /** A failure, logged by the outage it belongs to (not while closing). */
  function report(
    level: "warn" | "error",
    message: string,
    err: unknown,
    fields: Record<string, unknown> = {},
  ): void {
    counters.lastError = errorText(err);
    if (!closing) outage.failed(level, message, err, fields);
  }

  /** True when the file is open, after opening it if it was due (or `force`). */
  function ensureOpen(force = false): boolean {
    if (connection.lostFromPath()) {
      logger.error(
        "The query log file was deleted or replaced while open; writing to the file at its path again",
        { path: opts.path },
      );
    }
    if (connection.isOpen) return true;
    const result = connection.openIfDue(force);
    if (result.open) {
      // Nothing waits to prove it: opening is the news. Else the next
      // write says whether it works.
      if (queue.size === 0) outage.succeeded();
      return true;
    }
    if ("error" in result) {
      report(
        "error",
        "Cannot open the query log; will try again, keeping events in memory meanwhile",
        result.error,
        { path: opts.path, maxQueue },
      );
    }
    return false;
  }

  /** After `err`: a damaged file is replaced; true when the new one is open. */
  function replaceIfDamaged(err: unknown): boolean {
    const replacement = connection.replaceDamaged(err);
    if ("error" in replacement) {
      report(
        "error",
        "Cannot replace the damaged query log; will try again, keeping events in memory meanwhile",
        replacement.error,
        { path: opts.path, damage: errorText(err) },
      );
    }
    return replacement.replaced;
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

  /** Writes the oldest batch; false when it failed (and is still queued). */
  function writeOneBatch(): boolean {
    const started = performance.now();
    try {
      return writeBatch();
    } finally {
      counters.writeMs += performance.now() - started;
    }
  }

  function writeBatch(): boolean {
    const batch = queue.front(batchSize);
    try {
      const result = connection.store.writeEvents(batch, filter, now());
      queue.consume(batch);
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
      outage.succeeded();
      return true;
    } catch (err) {
      return batchFailed(batch, err);
    }
  }

  /** A batch failed with `err`; true when it was written after all. */
  function batchFailed(batch: BatchSlice[], err: unknown): boolean {
    if (!connection.isOpen) {
      // Closed underneath ("database is not open"): no transaction ran.
      // The batch waits for the file to open again.
      connection.lost(err);
      report("error", "The query log was closed; opening it again", err);
      return false;
    }
    counters.failedBatches++;
    counters.lastError = errorText(err);
    if (replaceIfDamaged(err)) return writeBatch();
    // A replacement that failed left no file open: the batch waits for one.
    if (!connection.isOpen) return false;
    const locked = /locked|busy/i.test(counters.lastError);
    if (!locked && ++attempts >= MAX_BATCH_ATTEMPTS) {
      const events = queue.consume(batch);
      counters.dropped += events;
      counters.droppedWriteFailed += events;
      attempts = 0;
      if (!closing) outage.dropped(events, err);
    } else {
      report("warn", "Cannot write a query-log batch; will retry", err, {
        events: batch.reduce((n, s) => n + s.to - s.from, 0),
      });
    }
    return false;
  }

  /**
   * Writes batches until the queue is empty (true) or one fails, the file
   * is not open or the writer closed (false).
   */
  function drain(): Promise<boolean> {
    if (draining) return draining;
    const loop = async () => {
      if (!ensureOpen()) return false;
      while (queue.size > 0) {
        if (closed || !writeOneBatch()) return false;
        // Let the event loop (API, timers, workers' messages) breathe.
        if (queue.size > 0) await new Promise((r) => setTimeout(r, 0));
      }
      return true;
    };
    // .finally runs after the assignment, even when loop() ends at once.
    draining = loop().finally(() => draining = undefined);
    return draining;
  }

  /** Folds finished minutes into domain_hours, then the retention sweep. */
  async function maintain(): Promise<RetentionReport> {
    if (!connection.isOpen) return NO_RETENTION;
    const db = connection.db;
    await foldDomainMinutes(db, now());
    return await runRetention(db, {
      now: now(),
      limits: retentionLimits(settings),
      state: retentionState,
      logger,
      onDictionariesPruned: () => {
        if (connection.isOpen) connection.store.encoder.resetDictionaries();
      },
    });
  }

  async function retention(): Promise<RetentionReport> {
    retentionRun ??= maintain().catch((err) => {
      counters.lastError = errorText(err);
      if (!connection.isOpen) {
        connection.lost(err);
        return NO_RETENTION;
      }
      // While writes fail, their summary names this error too.
      if (!outage.active) {
        logger.warn("Query-log retention failed", { error: err });
      }
      replaceIfDamaged(err);
      return NO_RETENTION;
    }).finally(() => retentionRun = undefined);
    return await retentionRun;
  }

  /** Writes until the queue is empty, a batch fails or the file is not open. */
  async function flush(): Promise<void> {
    while (queue.size > 0 && !closed) {
      if (!await drain()) return;
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
        batch.release?.();
        return;
      }
      if (!settings.enabled) {
        counters.excluded += batch.count;
        batch.release?.();
        return;
      }
      // Released by the queue, once none of it is queued.
      const take = queue.push(batch, maxQueue);
      if (take < batch.count) counters.dropped += batch.count - take;
      // Now, while the queue holds the arrays (released once written).
      if (take > 0 && opts.liveFeed?.listening) {
        opts.liveFeed.publishPacked(batch, 0, take, filter, now());
      }
      if (queue.size >= batchSize) schedule(0);
    } catch (err) {
      counters.lastError = errorText(err);
    }
  }

  /** close(): what could not be written is counted and named once. */
  function dropUnwritten(): void {
    const events = queue.clear();
    if (events === 0) return;
    counters.dropped += events;
    counters.droppedWriteFailed += events;
    logger.error("Closed the query log with events it could not write", {
      events,
      error: counters.lastError ?? "not written",
    });
  }

  ensureOpen(true);
  const retentionEvery = opts.retentionIntervalMs ?? 60_000;
  const retentionTimer = retentionEvery > 0
    ? setInterval(() => void retention(), retentionEvery)
    : undefined;
  schedule(interval);

  return {
    get db() {
      return connection.db;
    },
    enqueue(events) {
      const { batch, invalid } = packEvents(events);
      counters.invalid += invalid;
      enqueuePacked(batch);
    },
    enqueuePacked,
    stats: () => ({
      queued: queue.size,
      ...counters,
      failedOpens: connection.failedOpens,
      failing: outage.active || !connection.isOpen,
      unreadableChunks: unreadableChunks(),
      damagedFilesReplaced: connection.damagedFilesReplaced,
      filesLostFromPath: connection.filesLostFromPath,
    }),
    flush,
    updateSettings(next) {
      settings = next;
      filter = createEventFilter(next);
    },
    runRetention: retention,
    async close() {
      if (closed || closing) return;
      closing = true;
      // The last chance for what is queued: a disk may have room again.
      if (queue.size > 0) ensureOpen(true);
      await flush();
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      if (retentionTimer !== undefined) clearInterval(retentionTimer);
      await draining;
      await retentionRun;
      dropUnwritten();
      connection.close();
    },
  };
}
