/**
 * One cached answer: the upstream's message as bytes (without its OPT
 * record: every hit writes the client's own), where its TTLs are, the TTLs
 * it was stored with, and when it expires.
 */
import { RCODE, TYPE } from "../../dns/wire/constants.ts";
import { HEADER_OCTETS } from "../../dns/wire/query.ts";
import { skipName } from "../../dns/wire/read_name.ts";
import { readTtlOffsets } from "../../dns/wire/ttl_offsets.ts";
import { WireFormatError } from "../../dns/wire/wire_format_error.ts";
import type { Request } from "../../pipeline/request.ts";
import { cacheVariant } from "../../pipeline/cache_key.ts";
import type { CachePolicy } from "./cache_policy.ts";

/** A message in the form hits are written from. */
export interface StoredAnswer {
  /** Header, question and records; no OPT record, TTLs as in `ttls`. */
  readonly wire: Uint8Array;
  /** Offsets of the TTL fields in `wire`. */
  readonly offsets: Uint16Array;
  /** The TTL each record was stored with, in seconds. */
  readonly ttls: Uint32Array;
  /**
   * Where the additional section starts in `wire` (`wire.length` when it
   * has no records), and how many of `offsets` come before it: a hit too
   * big for its client leaves the additional section out before it sets
   * TC (RFC 2181 §9), as the upstream stage does with a first answer.
   */
  readonly additional: AdditionalSection;
  /**
   * The EDNS Client Subnet the answer was asked with, with the SCOPE the
   * upstream answered (RFC 7871); hits echo it to clients that sent an option.
   */
  readonly clientSubnet?: Uint8Array;
}

/** Where a stored message's additional section starts. */
export interface AdditionalSection {
  /** Offset of its first record: the message cut here is whole without it. */
  readonly start: number;
  /** TTL fields before `start` (the answer and authority records). */
  readonly ttlsBefore: number;
}

/** A cached answer. */
export interface CacheEntry extends StoredAnswer {
  readonly key: string;
  /** The lowercased question name. */
  readonly name: string;
  /** Type, class, DO and CD as one number (cacheVariant()). */
  readonly variant: number;
  /** The ECS scope the answer depends on; "" for none. */
  readonly scope: string;
  /** `Date.now()`-style milliseconds. */
  readonly storedAt: number;
  readonly expiresAt: number;
  /** Seconds from storedAt to expiresAt. */
  readonly ttl: number;
  /** NXDOMAIN or NODATA (RFC 2308). */
  readonly negative: boolean;
  /** Hits since `windowStart`, for prefetch. */
  hits: number;
  windowStart: number;
  /** A background refresh is running. */
  prefetching: boolean;
  /**
   * When the last refresh of this expired entry failed (`Date.now()`-style
   * ms): for a while after, it is answered stale at once (RFC 8767 §4).
   */
  refreshFailedAt?: number;
  /**
   * The other listener workers were handed this entry (`onCutAnswerStored`):
   * a client that got it truncated retries over TCP, another worker. Cleared
   * when a refresh fails, so the failure goes with the next hand-over.
   */
  shared: boolean;
}

/** What a message is, once read. */
interface ReadAnswer {
  stored: StoredAnswer;
  rcode: number;
  /** The answer section holds data of the question's type (or ANY's). */
  hasData: boolean;
  minTtl: number;
  soaMinimum: number | undefined;
}

/**
 * Reads `message` (an answer to `req`) into the stored form: the OPT record
 * and anything after the last record cut off, TTLs as sent. Undefined when
 * the message is malformed, does not answer `req`'s question, or has its
 * OPT record anywhere but last (cutting it out could break compression
 * pointers into the records after it).
 */
export function readAnswer(
  message: Uint8Array,
  req: Request,
): ReadAnswer | undefined {
  let found;
  try {
    found = readTtlOffsets(message);
  } catch (error) {
    if (error instanceof WireFormatError) return undefined;
    throw error;
  }
  if (!answersQuestion(message, req)) return undefined;
  let end = found.end;
  let arcount = (message[10]! << 8) | message[11]!;
  const additional = additionalSectionOf(
    message,
    found.offsets,
    req.query.questionEnd,
  );
  if (additional === undefined) return undefined;
  if (found.optStart !== undefined) {
    // An OPT record outside the additional section is no EDNS we can cut.
    if (found.optStart < additional.start) return undefined;
    if (found.offsets.some((at) => at > found.optStart!)) return undefined;
    end = found.optStart;
    arcount--;
  }
  const wire = message.slice(0, end);
  wire[10] = arcount >>> 8;
  wire[11] = arcount;
  return {
    stored: {
      wire,
      offsets: Uint16Array.from(found.offsets),
      ttls: Uint32Array.from(found.ttls),
      additional,
    },
    rcode: found.rcode,
    hasData: hasData(found.answerTypes, req.query.question?.type),
    minTtl: found.minTtl,
    soaMinimum: found.soaMinimum,
  };
}

/**
 * A cache entry for `message`, the answer to `req` (under `key`, for ECS
 * `scope`, with the upstream's `clientSubnet` option), or undefined when it
 * must not be kept: truncated (TC=1), an RCODE other than NOERROR and
 * NXDOMAIN (SERVFAIL included, see README.md), a negative answer without
 * an SOA (RFC 2308 §5), a referral, or a TTL of 0 after clamping.
 *
 * An answer is negative when it is NXDOMAIN, or NOERROR without data of
 * the question's type (NODATA, RFC 2308 §2.2), also behind a CNAME chain.
 *
 * TTLs are clamped as they are stored: positive answers to
 * [minTTL, maxTTL]; negative answers live min(SOA-derived TTL, negativeTTL),
 * and no longer than any record in them (a CNAME of the chain) lives
 * (at least minTTL unless negativeTTL is smaller); no record says more.
 */
export function buildEntry(
  message: Uint8Array,
  req: Request,
  key: string,
  scope: string,
  policy: CachePolicy,
  now: number,
  clientSubnet?: Uint8Array,
): CacheEntry | undefined {
  if (message.length < HEADER_OCTETS || (message[2]! & 0x02) !== 0) {
    return undefined;
  }
  const read = readAnswer(message, req);
  if (read === undefined) return undefined;
  const negative = read.rcode === RCODE.NXDOMAIN ||
    (read.rcode === RCODE.NOERROR && !read.hasData);
  if (!negative && read.rcode !== RCODE.NOERROR) return undefined;
  let ttl: number, low: number, high: number;
  if (negative) {
    if (read.soaMinimum === undefined) return undefined;
    ttl = Math.min(
      policy.negativeTtl,
      policy.maxTtl,
      Math.max(policy.minTtl, Math.min(read.soaMinimum, read.minTtl)),
    );
    low = Math.min(policy.minTtl, ttl);
    high = ttl;
  } else {
    ttl = clamp(read.minTtl, policy.minTtl, policy.maxTtl);
    low = policy.minTtl;
    high = policy.maxTtl;
  }
  if (ttl <= 0) return undefined;
  const { stored } = read;
  for (let i = 0; i < stored.ttls.length; i++) {
    stored.ttls[i] = clamp(stored.ttls[i]!, low, high);
  }
  return {
    ...stored,
    ...(clientSubnet !== undefined && { clientSubnet }),
    key,
    name: req.qname,
    variant: cacheVariant(req),
    scope,
    storedAt: now,
    expiresAt: now + ttl * 1000,
    ttl,
    negative,
    hits: 0,
    windowStart: now,
    prefetching: false,
    shared: false,
  };
}

/**
 * Where the additional section of `message` starts: just after the last
 * answer or authority record, whose TTL field is the (ANCOUNT + NSCOUNT)th
 * of `offsets` (RDLENGTH follows the TTL), or at the end of the question
 * (`questionEnd`; found when undefined) without such records. Undefined when
 * the offsets and counts do not agree (a malformed message or dump).
 */
export function additionalSectionOf(
  message: Uint8Array,
  offsets: ArrayLike<number>,
  questionEnd?: number,
): AdditionalSection | undefined {
  if (message.length < HEADER_OCTETS) return undefined;
  const before = u16(message, 6) + u16(message, 8);
  if (before > offsets.length) return undefined;
  if (before === 0) {
    let start = questionEnd;
    if (start === undefined) {
      try {
        start = skipName(message, HEADER_OCTETS) + 4;
      } catch (error) {
        if (error instanceof WireFormatError) return undefined;
        throw error;
      }
    }
    return start > message.length ? undefined : { start, ttlsBefore: 0 };
  }
  const ttlAt = offsets[before - 1]!;
  if (ttlAt + 6 > message.length) return undefined;
  const start = ttlAt + 6 + u16(message, ttlAt + 4);
  if (start > message.length) return undefined;
  return { start, ttlsBefore: before };
}

function u16(message: Uint8Array, at: number): number {
  return (message[at]! << 8) | message[at + 1]!;
}

/**
 * True when `answerTypes` include `qtype` (any record answers ANY): what
 * is left is a CNAME or DNAME chain that ends without the data asked for.
 */
function hasData(answerTypes: number[], qtype: number | undefined): boolean {
  if (qtype === TYPE.ANY) return answerTypes.length > 0;
  return qtype !== undefined && answerTypes.includes(qtype);
}

function clamp(value: number, low: number, high: number): number {
  return value < low ? low : value > high ? high : value;
}

/** The message's question is `req`'s (name in any case, type, class). */
function answersQuestion(message: Uint8Array, req: Request): boolean {
  const end = req.query.questionEnd;
  if (((message[4]! << 8) | message[5]!) !== 1 || end > message.length) {
    return false;
  }
  const query = req.bytes;
  const nameEnd = end - 4; // type and class follow the name
  for (let i = HEADER_OCTETS; i < nameEnd; i++) {
    if (foldCase(message[i]!) !== foldCase(query[i]!)) return false;
  }
  for (let i = nameEnd; i < end; i++) {
    if (message[i] !== query[i]) return false;
  }
  return true;
}

function foldCase(octet: number): number {
  return octet >= 0x41 && octet <= 0x5a ? octet | 0x20 : octet;
}
