/**
 * The stages that exist, assembled for the data plane. The worker entry in
 * src/listeners/ calls {@linkcode createStandardQueryHandler}; tests and
 * benchmarks may pick stages themselves with `createQueryHandler`.
 */
import type { Logger } from "../log/logger.ts";
import {
  buildChain,
  continuationThrough,
  type ContinueChain,
  createQueryHandler,
  createStageCounters,
  type Next,
  type PipelineQueryHandler,
  type Stage,
  type StageCounters,
} from "../pipeline/mod.ts";
import {
  type AuthoritativeOptions,
  createAuthoritativeStage,
} from "./authoritative/mod.ts";
import { createControlStage } from "./control/mod.ts";
import { createIdentifyStage } from "./identify/mod.ts";
import { createBlockingStage } from "./blocking/mod.ts";
import { ptrLookupThrough } from "./ptr_lookup.ts";
import { createIngressStage, type IngressStage } from "./ingress/mod.ts";
import { createLocalStage } from "./local/mod.ts";
import {
  createLogStage,
  createQueryEventBuffer,
  type QueryEventBatch,
} from "./log/mod.ts";
import {
  type CacheStage,
  createCacheStage,
  type FlushOptions,
  type SerializedEntry,
} from "./cache/mod.ts";
import {
  createUpstreamStage,
  upstreamCacheScope,
  type UpstreamStage,
} from "./upstream/mod.ts";
import { createResolver } from "../upstream/resolver.ts";

export interface StandardStagesOptions {
  /** Counted into by the log stage. */
  counters: StageCounters;
  /** For the upstream stage's one line per failure. */
  logger: Logger;
  authoritative?: AuthoritativeOptions;
  /** The cache stage to use (the handler keeps it to dump and restore). @default a new one */
  cache?: CacheStage;
  /** How identify learns a client's host name (a PTR lookup). @default none: hostname entries never match */
  resolvePtr?: (address: string) => Promise<string | null>;
  /** How upstream continues a chain by its target's route. @default none: answered cut */
  continueChain?: ContinueChain;
}

/**
 * The cache stage as the standard chain uses it: conditional forwarding
 * bypasses it, and answers are kept per Policy upstream group and per ECS
 * option sent (upstream/cache_scope.ts).
 */
export function createStandardCacheStage(): CacheStage {
  return createCacheStage({ scope: upstreamCacheScope });
}

/** One instance of every stage that exists so far (order does not matter: the chain sorts). */
export function createStandardStages(opts: StandardStagesOptions): Stage[] {
  return [
    createIngressStage(),
    createIdentifyStage({
      logger: opts.logger,
      ...(opts.resolvePtr && { resolvePtr: opts.resolvePtr }),
    }),
    createControlStage(),
    createLocalStage(),
    createAuthoritativeStage(opts.authoritative ?? {}),
    createBlockingStage({ logger: opts.logger }),
    opts.cache ?? createStandardCacheStage(),
    // The resolver is built from the snapshot's upstreams settings, inside
    // the worker, and rebuilt only when those settings change.
    createUpstreamStage({
      resolver: (settings) => createResolver(settings, { logger: opts.logger }),
      logger: opts.logger,
      ...(opts.continueChain && { continueChain: opts.continueChain }),
    }),
    createLogStage(opts.counters),
  ];
}

export interface StandardQueryHandlerOptions {
  logger: Logger;
  /** @default "kudurru" (until a snapshot names the node) */
  nodeName?: string;
  /** @default the version in deno.json */
  version?: string;
  /** @default fresh counters; drain them with `handler.counters.drain()` */
  counters?: StageCounters;
  /** Record a QueryEvent per answer for `drainEvents()`. @default true */
  queryLog?: boolean;
  authoritative?: AuthoritativeOptions;
}

/** How a listener worker dumps and restores its cache across a restart. */
export interface CacheDumpHooks {
  /** The cache's usable entries as plain data (bounded; see the cache README). */
  exportCache(): SerializedEntry[];
  /** Takes entries from a dump; returns how many were still usable. */
  importCache(entries: readonly unknown[]): number;
  /** Takes entries another worker shares; within the cache's size bound. */
  importSharedCache(entries: readonly unknown[]): number;
  /**
   * Drops every cached answer, or those for `name` (with `subtree`, and for
   * the names below it); returns how many went.
   */
  flushCache(name?: string, opts?: FlushOptions): number;
  /** The cache's counters (hits, misses, evictions, …) and size, for metrics. */
  cacheStats(): ReturnType<CacheStage["stats"]>;
  /** See CacheStage.onCutAnswerStored: entries the other listeners should have. */
  onCutAnswerStored(listener: (entry: SerializedEntry) => void): void;
}

/** How a listener worker hands its query events to the main thread. */
export interface QueryEventHooks {
  /** The query events since the previous call (bounded; drops counted). */
  drainEvents(): QueryEventBatch;
  /** Makes the next batch start a new string table. */
  restartEventStrings(): void;
  /** Takes back a drained batch's arrays, for a later drain to fill. */
  recycleEventBuffers(times: Float64Array, ints: Int32Array): void;
}

/** How a listener worker reports its rate limiter's bucket evictions. */
export interface RateLimitHooks {
  /** Buckets evicted to stay within ratelimit.maxBuckets since the previous call. */
  drainBucketEvictions(): number;
}

/** The QueryHandler a listener worker uses: every standard stage, one set of counters. */
export function createStandardQueryHandler(
  opts: StandardQueryHandlerOptions,
):
  & PipelineQueryHandler
  & CacheDumpHooks
  & QueryEventHooks
  & RateLimitHooks
  & { close(): Promise<void> } {
  const counters = opts.counters ?? createStageCounters();
  const cache = createStandardCacheStage();
  // Host names of clients come from PTR queries through this very handler,
  // and chains are continued through its stages from `local` on.
  const built: { handler?: PipelineQueryHandler; rest?: Next } = {};
  const stages = createStandardStages({
    counters,
    logger: opts.logger,
    cache,
    resolvePtr: ptrLookupThrough(() => built.handler),
    continueChain: continuationThrough(() => built.rest),
    ...(opts.authoritative && { authoritative: opts.authoritative }),
  });
  built.rest = buildChain(stages, {
    logger: opts.logger,
    counters,
    from: "local",
  });
  const ingress = stages.find((s) => s.name === "ingress") as IngressStage;
  const upstream = stages.find((s) => s.name === "upstream") as UpstreamStage;
  const events = createQueryEventBuffer();
  const handler = createQueryHandler({
    logger: opts.logger,
    stages,
    counters,
    ...(opts.queryLog !== false && { onAnswered: events.record }),
    ...(opts.nodeName !== undefined && { nodeName: opts.nodeName }),
    ...(opts.version !== undefined && { version: opts.version }),
  });
  built.handler = handler;
  const setSnapshot = handler.setSnapshot;
  return Object.assign(handler, {
    // The cache's bounds apply from the snapshot on, before any query: to
    // entries from a dump or another worker too.
    setSnapshot(snapshot: Parameters<typeof setSnapshot>[0]) {
      setSnapshot(snapshot);
      cache.applySettings(snapshot.settings?.cache);
    },
    exportCache: () => cache.exportEntries(),
    importCache: (entries: readonly unknown[]) => cache.importEntries(entries),
    importSharedCache: (entries: readonly unknown[]) =>
      cache.importShared(entries),
    flushCache: (name?: string, opts?: FlushOptions) => cache.flush(name, opts),
    drainEvents: () => events.drain(),
    restartEventStrings: () => events.restartStrings(),
    recycleEventBuffers: (times: Float64Array, ints: Int32Array) =>
      events.recycle(times, ints),
    cacheStats: () => cache.stats(),
    onCutAnswerStored: (listener: (entry: SerializedEntry) => void) =>
      cache.onCutAnswerStored(listener),
    drainBucketEvictions: () => ingress.drainRateLimitCounters().evicted,
    /** Closes the upstream connections the handler opened. */
    close: () => upstream.close(),
  });
}
