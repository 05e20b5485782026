/**
 * The cache stage (docs/design.md#stage-order): answers repeated questions from
 * stored upstream answers without a trip upstream, and keeps answering from
 * expired ones when the upstreams fail (RFC 8767). See README.md.
 */
import type { Request } from "../../pipeline/request.ts";
import { overloaded, type Response } from "../../pipeline/response.ts";
import type { Next } from "../../pipeline/stage.ts";
import { AnswerCache } from "./answer_cache.ts";
import { buildEntry, type CacheEntry } from "./cache_entry.ts";
import { exportEntries, importEntries, serializeEntry } from "./cache_dump.ts";
import {
  MAX_DUMP_BYTES,
  type SerializedEntry,
} from "../../pipeline/cache_dump.ts";
import {
  cacheKey,
  cacheVariant,
  isCacheableQuery,
} from "../../pipeline/cache_key.ts";
import { type CachePolicy, cachePolicyOf } from "./cache_policy.ts";
import { emptyCacheStats } from "../../pipeline/cache_stats.ts";
import {
  isTruncated,
  writeCachedAnswer,
  writeStaleAnswer,
} from "./entry_answer.ts";
import { type Outcome, waiterResponse } from "./waiter_response.ts";
import { FailureCache } from "./failure_cache.ts";
import { FlushLog } from "./flush_log.ts";
import type { CacheStage, CacheStageOptions } from "./cache_stage.ts";
import {
  answerStaleAtOnce,
  DEFAULT_POLICY,
  isFailure,
  isResolutionFailure,
  isServableStale,
  isStorable,
  MAX_SHARED_OCTETS,
  MAX_WAITERS,
} from "./cache_rules.ts";

/** Creates the cache stage; it passes everything on until the snapshot carries cache settings. */
export function createCacheStage(opts: CacheStageOptions = {}): CacheStage {
  const now = opts.now ?? Date.now;
  const cache = new AnswerCache(
    DEFAULT_POLICY.maxEntries,
    DEFAULT_POLICY.maxBytes,
  );
  const inflight = new Map<string, InFlight>();
  const background = new Set<Promise<unknown>>();
  const stats = emptyCacheStats();
  /**
   * The policy of the settings last seen (a snapshot or a query); its
   * bounds are the cache's, its stale window bounds a dump.
   */
  let lastPolicy: CachePolicy | undefined;
  let shareCut: ((entry: SerializedEntry) => void) | undefined;
  const flushes = new FlushLog();
  const failures = new FailureCache();

  /** The upstream's answer, stored when it may be. */
  function settle(
    key: string,
    scope: string,
    req: Request,
    res: Response,
    policy: CachePolicy,
  ): Outcome {
    const entry = isStorable(res)
      ? buildEntry(
        res.wholeWire ?? res.wire!,
        req,
        key,
        scope,
        policy,
        now(),
        res.clientSubnet,
      )
      : undefined;
    if (entry !== undefined) {
      cache.set(entry);
      stats.inserts++;
      if (res.wholeWire !== undefined) share(entry, policy);
    }
    const outcome = { res, entry };
    if (isResolutionFailure(res)) failures.failed(key, outcome, now());
    // Only an answer ends a failure: an overloaded listener's drop is none.
    else if (res.status === "forwarded") failures.answered(key);
    return outcome;
  }

  /**
   * Hands `entry` to the other listener workers, once: a client it was cut
   * for retries over TCP, which another worker serves.
   */
  function share(entry: CacheEntry, policy: CachePolicy): void {
    if (entry.shared || shareCut === undefined) return;
    if (entry.wire.length > MAX_SHARED_OCTETS) return;
    entry.shared = true;
    shareCut(serializeEntry(entry, policy.serveStale ? policy.staleTtlMs : 0));
  }

  /** Shares `entry` when `wire`, made from it, tells the client to retry over TCP. */
  function shareIfTruncated(
    entry: CacheEntry,
    wire: Uint8Array,
    policy: CachePolicy,
  ): void {
    if (isTruncated(wire)) share(entry, policy);
  }

  /** Runs `next` once for `key`; concurrent askers share the promise. */
  function fetch(
    key: string,
    scope: string,
    req: Request,
    next: Next,
    policy: CachePolicy,
  ): Outcome | Promise<Outcome> {
    const result = next(req);
    if (!(result instanceof Promise)) {
      return settle(key, scope, req, result, policy);
    }
    const shared = result
      .then((res) => settle(key, scope, req, res, policy))
      .finally(() => inflight.delete(key));
    inflight.set(key, { outcome: shared, waiters: 0 });
    const tracked = shared.then(noop, noop);
    background.add(tracked);
    tracked.finally(() => background.delete(tracked));
    return shared;
  }

  function staleResponse(
    entry: CacheEntry,
    req: Request,
    policy: CachePolicy,
  ): Response | undefined {
    const wire = writeStaleAnswer(entry, req, policy.staleAnswerTtl);
    if (wire === undefined) return undefined;
    stats.staleHits++;
    shareIfTruncated(entry, wire, policy);
    return {
      wire,
      wireSource: entry,
      status: "cached_stale",
      stage: "cache",
    };
  }

  /**
   * The answer this asker gets from an outcome, stale instead of a failure.
   * Once stored, the leader's answer is made from the entry like everyone
   * else's, so the first asker sees the TTLs the cache serves (clamped to
   * minTTL/maxTTL), not the upstream's; unless it was cut for the leader.
   */
  function finish(
    o: Outcome,
    req: Request,
    leader: boolean,
    stale: CacheEntry | undefined,
    policy: CachePolicy,
  ): Response {
    if (stale !== undefined && isFailure(o.res)) {
      const res = staleResponse(stale, req, policy);
      if (res !== undefined) return res;
    }
    // An answer cut for the leader (additional records left out, or TC=1)
    // goes to it as the upstream stage made it: made from the whole entry
    // it could only be an empty TC=1 one.
    const asMade = o.entry === undefined || o.res.wholeWire !== undefined;
    if (leader && asMade) return o.res;
    const res = waiterResponse(o, req);
    if (o.entry !== undefined && res.wire !== undefined) {
      shareIfTruncated(o.entry, res.wire, policy);
    }
    return res;
  }

  /**
   * Starts the failure recheck timer of `stale` when its refresh failed,
   * and ends it when the upstream answered (even an answer not kept, which
   * leaves `stale` in place).
   */
  function noteRefreshFailure(o: Outcome, stale: CacheEntry): void {
    if (isFailure(o.res)) {
      stale.refreshFailedAt = now();
      // The other workers should learn of it with the next TC=1 answer.
      stale.shared = false;
    } else delete stale.refreshFailedAt;
  }

  /** Waits for the upstream at most maxWait when a stale answer is at hand. */
  function raceStale(
    pending: Promise<Outcome>,
    req: Request,
    leader: boolean,
    stale: CacheEntry,
    policy: CachePolicy,
  ): Promise<Response> {
    return new Promise((resolve, reject) => {
      let staleSent = false;
      const timer = setTimeout(() => {
        const res = staleResponse(stale, req, policy);
        if (res === undefined) return;
        staleSent = true;
        resolve(res);
      }, policy.maxWaitMs);
      pending.then((o) => {
        clearTimeout(timer);
        noteRefreshFailure(o, stale);
        // Answered stale already: finish() would count a second stale hit.
        if (!staleSent) resolve(finish(o, req, leader, stale, policy));
      }, (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  }

  function miss(
    scope: string,
    req: Request,
    next: Next,
    policy: CachePolicy,
    stale: CacheEntry | undefined,
  ): Response | Promise<Response> {
    if (stale !== undefined && answerStaleAtOnce(stale, req, now())) {
      const res = staleResponse(stale, req, policy);
      if (res !== undefined) return res;
    }
    const key = cacheKey(req, scope);
    const pending = inflight.get(key);
    if (pending === undefined && stale === undefined) {
      // Failed a moment ago and nothing stale to give: that failure again
      // (RFC 9520), without another trip upstream.
      const failed = failures.get(key, now());
      if (failed !== undefined) {
        stats.failureHits++;
        // Not a trip upstream: per-upstream counts must not see it.
        const { upstream: _, ...res } = waiterResponse(failed, req);
        return { ...res, stage: "cache" };
      }
    }
    if (pending !== undefined) {
      // An overloaded listener's query must not wait (it would keep its
      // receive buffer), and one question gathers at most MAX_WAITERS.
      if (req.client.overloaded || pending.waiters >= MAX_WAITERS) {
        const res = stale === undefined
          ? undefined
          : staleResponse(stale, req, policy);
        return res ?? overloaded(req, "cache");
      }
      pending.waiters++;
      stats.coalesced++;
    }
    stats.misses++;
    const leader = pending === undefined;
    const outcome = pending?.outcome ??
      fetch(key, scope, req, next, policy);
    if (!(outcome instanceof Promise)) {
      if (stale !== undefined) noteRefreshFailure(outcome, stale);
      return finish(outcome, req, leader, stale, policy);
    }
    if (stale !== undefined) {
      return raceStale(outcome, req, leader, stale, policy);
    }
    return outcome.then((o) => finish(o, req, leader, undefined, policy));
  }

  /** Refreshes a hot entry near its end in the background (the client has its answer). */
  function prefetch(
    entry: CacheEntry,
    req: Request,
    next: Next,
    policy: CachePolicy,
    at: number,
  ): void {
    // An overloaded listener asks no upstream; the entry waits for a
    // calmer hit.
    if (policy.prefetchThreshold === 0 || req.client.overloaded) return;
    if (at - entry.windowStart > policy.prefetchWindowMs) {
      entry.windowStart = at;
      entry.hits = 0;
    }
    entry.hits++;
    if (entry.hits < policy.prefetchThreshold || entry.prefetching) return;
    if ((entry.expiresAt - at) * 10 > entry.ttl * 1000) return;
    if (inflight.has(entry.key)) return;
    entry.prefetching = true;
    stats.prefetches++;
    // The hit is answered at once and the listener reads the next query
    // into the same buffer: the refresh keeps a copy of this one.
    fetch(
      entry.key,
      entry.scope,
      { ...req, bytes: req.bytes.slice() },
      next,
      policy,
    );
  }

  /** Makes `policy` the cache's: its bounds apply at once. */
  function applyPolicy(policy: CachePolicy): void {
    lastPolicy = policy;
    cache.setLimits(policy.maxEntries, policy.maxBytes);
  }

  return {
    name: "cache",
    applySettings(settings) {
      if (settings !== undefined) applyPolicy(cachePolicyOf(settings));
    },
    flush(name, opts) {
      flushes.note(name, now(), opts);
      failures.forget(name, opts);
      return cache.flush(name, opts);
    },
    stats: () => ({
      ...stats,
      entries: cache.size,
      evictions: cache.evictions,
    }),
    exportEntries(at = now()) {
      if (lastPolicy?.maxEntries === 0) return [];
      const policy = lastPolicy ?? DEFAULT_POLICY;
      const staleMs = policy.serveStale ? policy.staleTtlMs : 0;
      return exportEntries(cache, at, staleMs);
    },
    importEntries(entries, at = now()) {
      if (lastPolicy === undefined) {
        // Before the first snapshot the bounds are unknown: make room for
        // the dump (at most MAX_DUMP_BYTES of entries kept, the most
        // recently used); applySettings() or the first query brings the
        // bounds to the settings' and drops what they do not allow.
        cache.setLimits(
          Math.max(cache.limit, 2 * (cache.size + entries.length)),
          Math.max(cache.maxBytes, 2 * MAX_DUMP_BYTES),
        );
      } else if (lastPolicy.maxEntries === 0) return 0;
      return importEntries(cache, entries, at);
    },
    importShared(entries, at = now()) {
      if (cache.limit === 0) return 0;
      // A share posted before a flush may arrive after it: not taken.
      const fresh = entries.filter((e) => !flushes.covers(e));
      return importEntries(cache, fresh, at);
    },
    onCutAnswerStored(listener) {
      shareCut = listener;
    },
    async whenIdle() {
      while (background.size > 0) await Promise.all(background);
    },
    serve(req: Request, next: Next) {
      const settings = req.snapshot?.settings?.cache;
      if (settings === undefined || !isCacheableQuery(req)) return next(req);
      const policy = cachePolicyOf(settings);
      if (policy !== lastPolicy) applyPolicy(policy);
      if (policy.maxEntries === 0) return next(req);
      const scope = opts.scope === undefined ? "" : opts.scope(req);
      if (scope === false) return next(req);
      const at = now();
      let entry = cache.get(req.qname, cacheVariant(req), scope);
      // Explained: a hit shows what a client would get; a miss asks no one
      // and joins no question in flight (its answer is no answer).
      if (req.explain) return explainedLookup(entry, req, next, at);
      if (entry !== undefined && at < entry.expiresAt) {
        const age = Math.floor((at - entry.storedAt) / 1000);
        const wire = writeCachedAnswer(entry, req, age);
        if (wire !== undefined) {
          stats.hits++;
          shareIfTruncated(entry, wire, policy);
          prefetch(entry, req, next, policy, at);
          return { wire, wireSource: entry, status: "cached", stage: "cache" };
        }
      }
      if (entry !== undefined && !isServableStale(entry, policy, at)) {
        if (at >= entry.expiresAt) cache.delete(entry);
        entry = undefined;
      }
      return miss(scope, req, next, policy, entry);
    },
  };
}

/** What a client would get from the cache now, counting and refreshing nothing. */
function explainedLookup(
  entry: CacheEntry | undefined,
  req: Request,
  next: Next,
  at: number,
): Response | Promise<Response> {
  if (entry === undefined || at >= entry.expiresAt) return next(req);
  const wire = writeCachedAnswer(
    entry,
    req,
    Math.floor((at - entry.storedAt) / 1000),
  );
  if (wire === undefined) return next(req);
  return { wire, status: "cached", stage: "cache" };
}

/** A question in flight, and how many askers wait on it besides the first. */
interface InFlight {
  outcome: Promise<Outcome>;
  waiters: number;
}

function noop(): void {}
