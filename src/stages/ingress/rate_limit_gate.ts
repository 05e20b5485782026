/**
 * The ingress stage's use of the rate limiter: one limiter per worker (one
 * UDP listener is one worker), built lazily from the snapshot's `ratelimit`
 * settings and rebuilt only when they change, and the answer for a limited
 * query.
 */
import { RCODE } from "../../dns/wire/constants.ts";
import type { Request } from "../../pipeline/request.ts";
import { replyTo, type Response } from "../../pipeline/response.ts";
import type { RateLimitSettings } from "../../pipeline/settings.ts";
import {
  createRateLimiter,
  type RateLimitCounters,
  type RateLimiter,
  type RateLimiterOptions,
} from "./rate_limit.ts";

/** Decides whether a query is rate limited; see {@linkcode createRateLimitGate}. */
export interface RateLimitGate {
  /** The answer for a limited query (a drop or TC=1), or undefined when it passes. */
  limit(req: Request): Response | undefined;
  /** Counts since the previous drain, across limiter rebuilds. */
  drain(): RateLimitCounters;
}

/**
 * Creates the gate. Every snapshot a worker receives is a structured clone,
 * so a new settings object does not mean new settings: the limiter (and
 * the buckets an ongoing flood has emptied) is kept while the settings'
 * JSON is the same, one stringify per snapshot rather than per query.
 *
 * Limited answers are `unlogged`: a flood must not be able to fill the
 * query log; the limiter's own counters count them.
 */
export function createRateLimitGate(
  opts: RateLimiterOptions = {},
): RateLimitGate {
  let settings: RateLimitSettings | undefined;
  let key = "";
  let limiter: RateLimiter | undefined;
  let carried = { limited: 0, slipped: 0, dropped: 0, evicted: 0 };

  function limiterFor(next: RateLimitSettings): RateLimiter {
    if (next === settings && limiter !== undefined) return limiter;
    const nextKey = JSON.stringify(next);
    settings = next;
    if (limiter === undefined || nextKey !== key) {
      if (limiter !== undefined) carried = sum(carried, limiter.drain());
      limiter = createRateLimiter(next, opts);
      key = nextKey;
    }
    return limiter;
  }

  return {
    limit(req) {
      if (req.client.transport !== "udp") return undefined;
      const current = req.snapshot?.settings?.ratelimit;
      if (current === undefined || !current.enabled) return undefined;
      const verdict = limiterFor(current).check(req.client);
      if (verdict === "pass") return undefined;
      // A response or a message without a header gets nothing, limited or not.
      if (verdict === "drop" || req.malformed !== undefined || req.query.qr) {
        return {
          drop: true,
          status: verdict === "drop" ? "rate_limited" : "dropped",
          stage: "ingress",
          unlogged: true,
        };
      }
      return truncatedAnswer(req);
    },
    drain() {
      const out = limiter === undefined
        ? carried
        : sum(carried, limiter.drain());
      carried = { limited: 0, slipped: 0, dropped: 0, evicted: 0 };
      return out;
    },
  };
}

/**
 * TC=1 and no records: a real client retries over TCP, which is never
 * limited and cannot be spoofed.
 */
function truncatedAnswer(req: Request): Response {
  const message = replyTo(req, RCODE.NOERROR);
  message.tc = true;
  return { message, status: "rate_limited", stage: "ingress", unlogged: true };
}

function sum(a: RateLimitCounters, b: RateLimitCounters): RateLimitCounters {
  return {
    limited: a.limited + b.limited,
    slipped: a.slipped + b.slipped,
    dropped: a.dropped + b.dropped,
    evicted: a.evicted + b.evicted,
  };
}
