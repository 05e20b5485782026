/**
 * The cache stage's rules (cache.ts applies them): its bounds before any
 * settings are seen, which upstream answers are kept and which are
 * failures, how many askers may wait on one question, which entries go to
 * the other workers, and when an expired entry is answered stale.
 */
import type { Request } from "../../pipeline/request.ts";
import type { Response } from "../../pipeline/response.ts";
import { cacheSchema } from "../../config/schema_resolver.ts";
import type { CacheEntry } from "./cache_entry.ts";
import { type CachePolicy, cachePolicyOf } from "./cache_policy.ts";

/**
 * The policy assumed before any settings were seen: the `cache` schema's
 * defaults (maxEntries, maxBytes, the serve-stale window), so they are
 * written in one place.
 */
export const DEFAULT_POLICY: CachePolicy = cachePolicyOf(cacheSchema.parse({}));

/**
 * Largest entry (wire octets) handed to the other listener workers: each
 * taker keeps its own copy, and answers this big are rare (the retry over
 * TCP of one then misses in the TCP worker, which asks upstream itself;
 * see README.md).
 */
export const MAX_SHARED_OCTETS = 16 * 1024;

/**
 * Most askers that wait on one question in flight, besides the first:
 * each keeps its query (a UDP receive buffer) until the upstream answers or
 * times out. Past this, an asker is answered stale when it can be, else
 * turned away (overloaded(): nothing over UDP, SERVFAIL over TCP), and a
 * stub resolver waits seconds to ask
 * again: so the bound is high (a popular name after a flush gathers many
 * askers in one upstream round trip). Over UDP the listener's own bound of
 * awaited answers (udpMaxInFlight) is lower still.
 */
export const MAX_WAITERS = 1000;

const STALE_STATUSES = new Set([
  "servfail_upstream",
  "timeout_upstream",
  "overloaded_upstream",
]);

/**
 * RFC 8767 §4's failure recheck timer: after a failed refresh, an expired
 * entry is answered stale at once, without asking upstream, for this long
 * (BIND's stale-refresh-time); clients no longer wait maxWait each time.
 */
export const STALE_RECHECK_MS = 30_000;

/**
 * True when `stale` is answered without asking upstream: a refresh failed
 * less than STALE_RECHECK_MS ago, or the listener is overloaded (a stale
 * answer now beats a dropped query).
 */
export function answerStaleAtOnce(
  stale: CacheEntry,
  req: Request,
  now: number,
): boolean {
  if (req.client.overloaded) return true;
  if (stale.refreshFailedAt === undefined) return false;
  const since = now - stale.refreshFailedAt;
  return since >= 0 && since < STALE_RECHECK_MS;
}

export function isServableStale(
  entry: CacheEntry,
  policy: CachePolicy,
  at: number,
): boolean {
  return policy.serveStale && at >= entry.expiresAt &&
    at < entry.expiresAt + policy.staleTtlMs;
}

/** Only upstream answers enter the cache (local, authoritative, blocked: never). */
export function isStorable(res: Response): boolean {
  return res.status === "forwarded" && res.cacheable !== false &&
    res.wire !== undefined;
}

/** The upstreams failed: a stale answer is better (RFC 8767 §4). */
export function isFailure(res: Response): boolean {
  return STALE_STATUSES.has(res.status);
}

/**
 * A failure worth remembering for the question (failure_cache.ts): not an
 * upstream group's overload, which says nothing about the name and ends
 * as soon as the group's waiting queries do.
 */
export function isResolutionFailure(res: Response): boolean {
  return isFailure(res) && res.status !== "overloaded_upstream";
}
