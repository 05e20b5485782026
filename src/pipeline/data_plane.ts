/**
 * What a listener worker runs (docs/design.md#threads): a QueryHandler and
 * the controls the worker needs around it, in one explicit interface. The
 * standard chain builds one (src/stages/data_plane.ts); listener tests
 * build small ones. A worker knows nothing of stages: only this.
 */
import type { Snapshot } from "./snapshot.ts";
import type { SerializedEntry } from "./cache_dump.ts";
import type { CacheStats } from "./cache_stats.ts";
import type { Explanation } from "./explanation.ts";
import type { FlushOptions } from "./flushed_names.ts";
import type { QueryHandler } from "./handler.ts";
import type { Logger } from "../log/logger.ts";
import type { PostedQueryEvents } from "./query_event_pack.ts";
import type { CounterBatch, DetailBatch } from "./stage_counters.ts";

/** The answer cache, as the worker dumps, restores, shares and flushes it. */
export interface CacheControls {
  /** The usable entries as plain data (bounded; see the cache README). */
  exportEntries(): SerializedEntry[];
  /** Takes entries from a dump; returns how many were still usable. */
  importEntries(entries: readonly unknown[]): number;
  /** Takes entries another worker shares, within the cache's size bound. */
  importShared(entries: readonly unknown[]): number;
  /**
   * Drops every cached answer, or those for `name` (with `subtree`, and
   * for the names below it); returns how many went.
   */
  flush(name?: string, opts?: FlushOptions): number;
  /** Hits, misses, evictions, … and the size now, for metrics. */
  stats(): CacheStats;
  /**
   * Hears of entries stored from answers cut for their client (TC=1): the
   * client asks again over TCP, which another worker serves.
   */
  onCutAnswerStored(listener: (entry: SerializedEntry) => void): void;
}

/** The query events since the previous drain, and how many were dropped. */
export interface QueryEventBatch {
  /**
   * Packed for the trip to the main thread; its `times` and `ints` are
   * arrays of their own, so they can be transferred rather than copied,
   * and its strings are what the buffer's string table gained.
   */
  events: PostedQueryEvents;
  /** Events dropped since the previous drain because the buffer was full. */
  dropped: number;
}

/** The query events the worker posts to the main thread's query log. */
export interface QueryEventSource {
  /** The events since the previous call (bounded; drops counted). */
  drain(): QueryEventBatch;
  /** Makes the next batch start a new string table. */
  restartStrings(): void;
  /** Takes back a drained batch's arrays, for a later drain to fill. */
  recycle(times: Float64Array, ints: Int32Array): void;
}

/** One listener worker's data plane. */
export interface DataPlane {
  /** Answers queries; swaps snapshots in. */
  readonly handler: QueryHandler;
  /** The chain's counts, drained about once a second. */
  readonly counters: {
    drain(): CounterBatch;
    drainDetail?(): DetailBatch;
  };
  /** The answer cache, when the chain has one. */
  readonly cache?: CacheControls;
  /** The query events, when the query log is on. */
  readonly events?: QueryEventSource;
  /**
   * Rate-limit buckets evicted to stay within `ratelimit.maxBuckets` since
   * the previous call, when the chain limits rates.
   */
  drainRateLimitEvictions?(): number;
  /**
   * From now on the health check fails (the server is stopping); every
   * other query is answered as before.
   */
  enterLameduck(): void;
  /**
   * Why `question` asked by `client` (an address) would be answered as it
   * would be now: nothing is forwarded, counted or logged. Absent when the
   * plane cannot explain (listener tests' small planes).
   */
  explain?(question: ExplainedQuestion, client: string): Promise<Explanation>;
  /**
   * Makes ready what zone transfers from `snapshot` will send (a TCP
   * listener does this before it says it serves the snapshot, so the
   * transfer a NOTIFY brings finds it ready). Resolves when done.
   */
  prepareTransfers?(snapshot: Snapshot): Promise<void>;
}

/** A question to explain: a name and a type code (class IN). */
export interface ExplainedQuestion {
  name: string;
  type: number;
}

/** What a worker passes when it builds its data plane. */
export interface DataPlaneOptions {
  logger: Logger;
  nodeName: string;
  version: string;
  /** Whether to record query events. */
  queryLog: boolean;
  /** A NOTIFY for a secondary zone was taken: tell the main thread. */
  onNotify?: (zone: string, from: string) => void;
}

/** Builds a worker's data plane (one pipeline instance per worker). */
export type DataPlaneFactory = (opts: DataPlaneOptions) => DataPlane;
