/**
 * Per-prefix rate limiting of UDP queries (`ratelimit`):
 * one token bucket per client prefix and prefix length, a bounded number of
 * buckets, and a deterministic share of over-limit queries answered with
 * TC=1 so that real clients retry over TCP while spoofed floods get nothing.
 */
import ipaddr from "ipaddr.js";
import type { ClientInfo } from "../../pipeline/handler.ts";
import type { RateLimitSettings } from "../../pipeline/settings.ts";
import { HEX_BYTES } from "../../dns/hex.ts";

/** What to do with one query. */
export type RateLimitVerdict = "pass" | "slip" | "drop";

/** Counts since the last drain. */
export interface RateLimitCounters {
  /** Queries over a limit (slipped + dropped). */
  limited: number;
  /** Over-limit queries answered with TC=1. */
  slipped: number;
  /** Over-limit queries not answered. */
  dropped: number;
  /** Buckets evicted to stay within maxBuckets. */
  evicted: number;
}

/** A rate limiter for one worker; see {@linkcode createRateLimiter}. */
export interface RateLimiter {
  /** Decides for one query and takes its tokens when it passes. */
  check(client: ClientInfo): RateLimitVerdict;
  /** Buckets held now (at most maxBuckets). */
  readonly buckets: number;
  /** Returns the counts since the previous drain and starts again from zero. */
  drain(): RateLimitCounters;
}

export interface RateLimiterOptions {
  /**
   * Milliseconds on any origin; only differences are used. The default is
   * monotonic so that setting the wall clock neither grants nor takes tokens.
   * @default performance.now
   */
  now?: () => number;
}

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date (ms). */
  at: number;
  level: Level;
}

/**
 * Buckets looked at, oldest first, for one eviction. The first that would
 * let a query pass goes; a limiting one (a flood's) is kept, so spraying
 * fresh source addresses cannot reset a limited prefix. When all of them
 * limit, the oldest goes anyway: the table stays bounded.
 */
const EVICTION_CANDIDATES = 16;

interface Level {
  prefix: number;
  /** Tokens a full bucket holds: one minute's allowance, so bursts pass. */
  capacity: number;
  /** Tokens added per millisecond. */
  rate: number;
}

interface Prefix {
  octets: number[];
  length: number;
}

const MS_PER_MINUTE = 60_000;

/**
 * Creates a limiter from `settings` (its `enabled` flag is the caller's to
 * check). A query passes when every configured prefix of its source address
 * has a token left: for IPv4 the /32 and the /24 by default, for IPv6 the
 * /128, /64 and /56. A limit of 0 queries per minute turns that prefix
 * length off. TCP, loopback and `exempt` clients always pass.
 *
 * Over-limit queries are split by `slip` percent with a running credit,
 * not at random: with 50 every second one slips, with 25 every fourth, so
 * tests and operators see exactly what the setting says. Buckets are kept
 * in least-recently-used order; a new prefix beyond `maxBuckets` evicts the
 * one unused longest (a full bucket forgets nothing when evicted, and an
 * active flood keeps its own buckets recent).
 */
export function createRateLimiter(
  settings: RateLimitSettings,
  opts: RateLimiterOptions = {},
): RateLimiter {
  const now = opts.now ?? (() => performance.now());
  const v4 = levelsOf(settings.ipv4, 32);
  const v6 = levelsOf(settings.ipv6, 128);
  const exempt = settings.exempt.map(parsePrefix).filter((p) =>
    p !== undefined
  );
  const buckets = new Map<string, Bucket>();
  const found: Bucket[] = [];
  let counters = emptyCounters();
  let slipCredit = 0;

  function bucketFor(key: string, level: Level, at: number): Bucket {
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: level.capacity, at, level };
      if (buckets.size >= settings.maxBuckets) evictOne(at);
    } else {
      buckets.delete(key); // re-inserted below: most recently used last
      refill(bucket, at);
    }
    buckets.set(key, bucket);
    return bucket;
  }

  /** Evicts the least recently used bucket that is not limiting (see EVICTION_CANDIDATES). */
  function evictOne(at: number): void {
    let victim: string | undefined;
    let looked = 0;
    for (const [key, bucket] of buckets) {
      victim ??= key;
      if (tokensAt(bucket, at) >= 1) {
        victim = key;
        break;
      }
      if (++looked >= EVICTION_CANDIDATES) break;
    }
    if (victim !== undefined) {
      buckets.delete(victim);
      counters.evicted++;
    }
  }

  function overLimit(): RateLimitVerdict {
    counters.limited++;
    slipCredit += settings.slip;
    if (slipCredit >= 100) {
      slipCredit -= 100;
      counters.slipped++;
      return "slip";
    }
    counters.dropped++;
    return "drop";
  }

  return {
    check(client) {
      if (client.transport !== "udp" || isLoopbackText(client.address)) {
        return "pass";
      }
      const octets = addressOctets(client.address);
      if (octets === undefined || isLoopback(octets)) return "pass";
      if (exempt.some((p) => inPrefix(octets, p))) return "pass";
      const levels = octets.length === 4 ? v4 : v6;
      const at = now();
      found.length = 0;
      let limited = false;
      for (const level of levels) {
        const bucket = bucketFor(prefixKey(octets, level.prefix), level, at);
        if (bucket.tokens < 1) limited = true;
        found.push(bucket);
      }
      if (limited) return overLimit();
      for (const bucket of found) bucket.tokens -= 1;
      return "pass";
    },
    get buckets() {
      return buckets.size;
    },
    drain() {
      const out = counters;
      counters = emptyCounters();
      return out;
    },
  };
}

/**
 * Adds the tokens earned since the bucket was last brought up to date. A
 * clock that went back (an injected wall clock stepped by NTP, a resumed VM)
 * earns nothing rather than a debt: unclamped, a step back of an hour would
 * keep every client limited for that hour.
 */
function refill(bucket: Bucket, at: number): void {
  bucket.tokens = tokensAt(bucket, at);
  bucket.at = at;
}

/** The tokens `bucket` holds at `at`, refilled (never fewer for a clock gone back). */
function tokensAt(bucket: Bucket, at: number): number {
  const elapsed = Math.max(0, at - bucket.at);
  return Math.min(
    bucket.level.capacity,
    bucket.tokens + elapsed * bucket.level.rate,
  );
}

function emptyCounters(): RateLimitCounters {
  return { limited: 0, slipped: 0, dropped: 0, evicted: 0 };
}

function levelsOf(limits: Record<string, number>, bits: number): Level[] {
  const levels: Level[] = [];
  for (const [prefix, qpm] of Object.entries(limits)) {
    const length = Number(prefix);
    if (qpm <= 0 || length > bits) continue;
    levels.push({ prefix: length, capacity: qpm, rate: qpm / MS_PER_MINUTE });
  }
  return levels;
}

/** The address's octets, IPv4-mapped IPv6 as IPv4; undefined when unparsable. */
export function addressOctets(address: string): number[] | undefined {
  const v4 = dottedQuad(address);
  if (v4 !== undefined) return v4;
  try {
    return ipaddr.process(address).toByteArray();
  } catch {
    return undefined;
  }
}

/** Plain IPv4 without ipaddr.js: most queries come from one, and this is per query. */
function dottedQuad(address: string): number[] | undefined {
  const octets: number[] = [];
  let value = -1;
  for (let i = 0; i < address.length; i++) {
    const c = address.charCodeAt(i);
    if (c === 0x2e) {
      if (value < 0 || octets.length === 3) return undefined;
      octets.push(value);
      value = -1;
    } else if (c >= 0x30 && c <= 0x39) {
      value = (value < 0 ? 0 : value * 10) + c - 0x30;
      if (value > 255) return undefined;
    } else {
      return undefined;
    }
  }
  if (value < 0 || octets.length !== 3) return undefined;
  octets.push(value);
  return octets;
}

function parsePrefix(text: string): Prefix | undefined {
  try {
    if (!text.includes("/")) {
      const octets = ipaddr.process(text).toByteArray();
      return { octets, length: octets.length * 8 };
    }
    const [address, length] = ipaddr.parseCIDR(text);
    if (
      address.kind() === "ipv6" &&
      (address as ipaddr.IPv6).isIPv4MappedAddress()
    ) {
      const v4 = (address as ipaddr.IPv6).toIPv4Address();
      return { octets: v4.toByteArray(), length: Math.max(0, length - 96) };
    }
    return { octets: address.toByteArray(), length };
  } catch {
    return undefined; // the config schema already rejected it
  }
}

function inPrefix(octets: number[], prefix: Prefix): boolean {
  if (octets.length !== prefix.octets.length) return false;
  return samePrefix(octets, prefix.octets, prefix.length);
}

function samePrefix(a: number[], b: number[], length: number): boolean {
  const whole = length >> 3;
  for (let i = 0; i < whole; i++) if (a[i] !== b[i]) return false;
  const spare = length & 7;
  if (spare === 0) return true;
  const mask = (0xff << (8 - spare)) & 0xff;
  return (a[whole]! & mask) === (b[whole]! & mask);
}

/**
 * Loopback as the socket reports it (dotted quad or "::1"), checked before
 * parsing: local load generators and health checks skip the octets array.
 * Other spellings (IPv4-mapped) are caught by isLoopback after parsing.
 */
function isLoopbackText(address: string): boolean {
  return address.startsWith("127.") || address === "::1";
}

function isLoopback(octets: number[]): boolean {
  if (octets.length === 4) return octets[0] === 127;
  for (let i = 0; i < 15; i++) if (octets[i] !== 0) return false;
  return octets[15] === 1;
}

/** "4/24/c0000200": family, prefix length and the masked octets in hex. */
function prefixKey(octets: number[], length: number): string {
  let key = `${octets.length === 4 ? 4 : 6}/${length}/`;
  const whole = length >> 3;
  for (let i = 0; i < whole; i++) key += HEX_BYTES[octets[i]!];
  const spare = length & 7;
  if (spare !== 0) {
    key += HEX_BYTES[octets[whole]! & ((0xff << (8 - spare)) & 0xff)];
  }
  return key;
}
