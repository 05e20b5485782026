/**
 * The `cache` settings in the units the hot path wants (seconds for TTLs,
 * milliseconds for waits), parsed once per settings object.
 */
import { parseDuration } from "../../config/duration.ts";
import { parseSize } from "../../config/size.ts";
import type { CacheSettings } from "../../pipeline/settings.ts";

/** `CacheSettings` with its durations parsed. */
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
 *
 * @throws {Error} when a duration does not parse (the settings schema
 *   rejects those before they reach a snapshot)
 */
export function cachePolicyOf(settings: CacheSettings): CachePolicy {
  let policy = parsed.get(settings);
  if (policy === undefined) {
    policy = parseCachePolicy(settings);
    parsed.set(settings, policy);
  }
  return policy;
}

function parseCachePolicy(s: CacheSettings): CachePolicy {
  return {
    maxEntries: s.maxEntries,
    maxBytes: bytes("maxBytes", s.maxBytes ?? DEFAULT_MAX_BYTES),
    minTtl: seconds("minTTL", s.minTTL),
    maxTtl: seconds("maxTTL", s.maxTTL),
    negativeTtl: seconds("negativeTTL", s.negativeTTL),
    prefetchThreshold: s.prefetch.threshold,
    prefetchWindowMs: millis("prefetch.window", s.prefetch.window),
    serveStale: s.serveStale.enabled,
    staleTtlMs: millis("serveStale.ttl", s.serveStale.ttl),
    staleAnswerTtl: seconds("serveStale.answerTTL", s.serveStale.answerTTL),
    maxWaitMs: millis("serveStale.maxWait", s.serveStale.maxWait),
  };
}

/** The default of `cache.maxBytes` (settings made before it existed have none). */
export const DEFAULT_MAX_BYTES = "64MiB";

function bytes(key: string, text: string): number {
  const value = parseSize(text);
  if (value === undefined) {
    throw new Error(
      `Cannot read cache setting "${key}": "${text}" is not a size`,
    );
  }
  return value;
}

function millis(key: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) {
    throw new Error(
      `Cannot read cache setting "${key}": "${text}" is not a duration`,
    );
  }
  return ms;
}

function seconds(key: string, text: string): number {
  return Math.floor(millis(key, text) / 1000);
}
