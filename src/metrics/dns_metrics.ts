/**
 * Every metric `kudurru serve` exposes on the metrics listener, on one
 * registry: the listener workers' counter batches (`record`, fed from
 * `startDnsListeners({ onCounters })`), the query log writer's stats, the
 * snapshot age and the process metrics. See README.md for the names.
 */
import type { CounterDeltas } from "../listeners/worker_messages.ts";
import {
  createCacheMetrics,
  createUpstreamMetrics,
} from "./cache_upstream_metrics.ts";
import { registerProcessMetrics } from "./process_metrics.ts";
import { createQueryMetrics } from "./query_metrics.ts";
import type { Registry } from "./registry.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import { createStateMetrics, type QueryLogStats } from "./state_metrics.ts";

export type { QueryLogStats } from "./state_metrics.ts";

/** The worker a batch came from (`BoundAddress` fits). */
export interface CountersSource {
  transport: string;
  hostname?: string;
  port?: number;
  /** Which of the sockets sharing the address (`listeners.sockets` > 1). */
  socket?: number;
}

/** The metrics of a running server. */
export interface DnsMetrics {
  /** Adds one worker's counter batch (`onCounters` of the listeners). */
  record(deltas: CounterDeltas, from: CountersSource): void;
  /** A worker stopped: its cache no longer counts in kudurru_cache_entries. */
  forgetWorker(from: CountersSource): void;
  /** Sets the query log metrics from the writer's current stats. */
  setQueryLogStats(stats: QueryLogStats): void;
  /** Reads the query log writer's stats at every scrape instead. */
  readQueryLogStatsFrom(read: () => QueryLogStats): void;
  /**
   * Where the snapshot metrics (age, version, zones, block-list rules) read
   * the last snapshot posted to the listeners; undefined before the first.
   */
  readSnapshotFrom(read: () => Snapshot | undefined): void;
}

/**
 * Registers every server metric on `registry` (once per registry: the
 * names are unique) and returns what feeds them.
 */
export function createDnsMetrics(registry: Registry): DnsMetrics {
  const queries = createQueryMetrics(registry);
  const cache = createCacheMetrics(registry);
  const upstream = createUpstreamMetrics(registry);
  const state = createStateMetrics(registry);
  registerProcessMetrics(registry);
  // The sockets that share one address each have a worker and a cache of
  // their own: the key tells them apart, or the gauge would hold only the
  // size the last of them reported.
  const workerKey = (from: CountersSource) =>
    `${from.transport}/${from.hostname ?? ""}/${from.port ?? ""}/${
      from.socket ?? ""
    }`;
  return {
    record(deltas, from) {
      if (deltas === null || typeof deltas !== "object") return;
      queries.record(deltas, from);
      if (deltas.cache !== undefined) {
        cache.record(deltas.cache, workerKey(from));
      }
      if (deltas.upstream !== undefined) upstream.record(deltas.upstream);
    },
    forgetWorker: (from) => cache.forget(workerKey(from)),
    setQueryLogStats: state.setQueryLogStats,
    readQueryLogStatsFrom: state.readQueryLogStatsFrom,
    readSnapshotFrom: state.readSnapshotFrom,
  };
}
