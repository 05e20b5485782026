/**
 * The `cache` settings in the units the hot path wants (seconds for TTLs,
 * milliseconds for waits), made once per settings object.
 */
import type { CacheSettings } from "../../pipeline/settings.ts";

/** `CacheSettings` (durations in ms) with TTLs in seconds. */
export interface CachePolicy {
  maxEntries: number;
  /** Most bytes of entries kept (answer_cache.ts entryBytes()). */
  maxBytes: number;
  /** Seconds. */
  minTtl: number;
  /** Seconds. */
  maxTtl: number;
  /** Seconds: the longest an NXDOMAIN or NODATA answer is kept. */
  negativeTtl: number;
  /** Hits within `prefetchWindowMs` that make an entry refresh early; 0 disables. */
  prefetchThreshold: number;
  prefetchWindowMs: number;
  serveStale: boolean;
  /** How long past expiry an entry may still be served stale. */
  staleTtlMs: number;
  /** Seconds: the TTL written into stale answers. */
  staleAnswerTtl: number;
  /** How long a client waits for the upstream before a stale answer. */
  maxWaitMs: number;
}

const parsed = new WeakMap<CacheSettings, CachePolicy>();

/**
 * The policy of `settings`, memoised per settings object (a snapshot keeps
 * the same object for all its queries).
 */
export function cachePolicyOf(settings: CacheSettings): CachePolicy {
  let policy = parsed.get(settings);
  if (policy === undefined) {
    policy = policyOf(settings);
    parsed.set(settings, policy);
  }
  return policy;
}

function policyOf(s: CacheSettings): CachePolicy {
  return {
    maxEntries: s.maxEntries,
    maxBytes: s.maxBytes,
    minTtl: seconds(s.minTTL),
    maxTtl: seconds(s.maxTTL),
    negativeTtl: seconds(s.negativeTTL),
    prefetchThreshold: s.prefetch.threshold,
    prefetchWindowMs: s.prefetch.window,
    serveStale: s.serveStale.enabled,
    staleTtlMs: s.serveStale.ttl,
    staleAnswerTtl: seconds(s.serveStale.answerTTL),
    maxWaitMs: s.serveStale.maxWait,
  };
}

/** Whole seconds in `ms`. */
function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}
