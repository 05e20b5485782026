/**
 * Where the TTLs of an encoded message live, so a cache can keep the message
 * as bytes and serve it with counted-down TTLs by writing a few octets
 * (docs/design.md#wire-fast-path) instead of decoding and encoding it again.
 */
import { TYPE } from "./constants.ts";
import { HEADER_OCTETS } from "./query.ts";
import { skipName } from "./read_name.ts";
import { WireFormatError } from "./wire_format_error.ts";

/** Type, class, TTL and RDLENGTH after an owner name. */
const RR_FIXED_OCTETS = 10;
/** SOA data ends with serial, refresh, retry, expire and minimum (RFC 1035 §3.3.13). */
const SOA_NUMBERS_OCTETS = 20;
/** The largest TTL a message may carry; larger values mean 0 (RFC 2181 §8). */
const MAX_TTL = 0x7fffffff;

/** What {@linkcode readTtlOffsets} found in a message. */
export interface TtlOffsets {
  /** Offsets of the TTL fields of every record but OPT, in message order. */
  offsets: number[];
  /** The TTL of each record, same order as `offsets` (above 2^31-1 read as 0). */
  ttls: number[];
  /** The smallest of `ttls`; 0 when the message has no record besides OPT. */
  minTtl: number;
  /** The full RCODE: the header's 4 bits, plus the OPT record's upper 8 bits. */
  rcode: number;
  /** ANCOUNT. */
  answerCount: number;
  /** The type of each answer record, in message order. */
  answerTypes: number[];
  /**
   * For negative answers (RFC 2308 §5): min(SOA TTL, SOA MINIMUM) of the
   * first SOA record of the authority section; undefined without one.
   */
  soaMinimum?: number;
  /** Offset of the OPT record, when the additional section has one. */
  optStart?: number;
  /** Offset just after the last counted record (trailing octets ignored). */
  end: number;
}

/**
 * Walks every record of the answer, authority and additional sections and
 * returns the offsets of their TTL fields. The OPT record is skipped: its
 * TTL field holds the extended RCODE and flags.
 *
 * @throws {WireFormatError} when the message is shorter than its header,
 *   a name is bad, or a record or the question runs past the end
 */
export function readTtlOffsets(message: Uint8Array): TtlOffsets {
  if (message.length < HEADER_OCTETS) {
    throw new WireFormatError("message shorter than 12 octets");
  }
  const qdcount = u16(message, 4);
  const answerCount = u16(message, 6);
  const nscount = u16(message, 8);
  const records = answerCount + nscount + u16(message, 10);
  let pos = HEADER_OCTETS;
  for (let i = 0; i < qdcount; i++) {
    pos = skipName(message, pos) + 4;
    if (pos > message.length) throw new WireFormatError("question truncated");
  }
  const found: TtlOffsets = {
    offsets: [],
    ttls: [],
    minTtl: 0,
    rcode: message[3]! & 0x0f,
    answerCount,
    answerTypes: [],
    end: 0,
  };
  let minTtl = Infinity;
  for (let i = 0; i < records; i++) {
    const start = pos;
    const fixed = skipName(message, pos);
    if (fixed + RR_FIXED_OCTETS > message.length) {
      throw new WireFormatError("record truncated");
    }
    const rdataStart = fixed + RR_FIXED_OCTETS;
    pos = rdataStart + u16(message, fixed + 8);
    if (pos > message.length) throw new WireFormatError("record truncated");
    const type = u16(message, fixed);
    if (type === TYPE.OPT) {
      found.optStart = start;
      found.rcode |= message[fixed + 4]! << 4;
      continue;
    }
    if (i < answerCount) found.answerTypes.push(type);
    const ttl = readTtl(message, fixed + 4);
    found.offsets.push(fixed + 4);
    found.ttls.push(ttl);
    if (ttl < minTtl) minTtl = ttl;
    const inAuthority = i >= answerCount && i < answerCount + nscount;
    if (inAuthority && type === TYPE.SOA && found.soaMinimum === undefined) {
      if (pos - rdataStart < SOA_NUMBERS_OCTETS + 2) {
        throw new WireFormatError("SOA record too short");
      }
      found.soaMinimum = Math.min(ttl, readTtl(message, pos - 4));
    }
  }
  found.minTtl = minTtl === Infinity ? 0 : minTtl;
  found.end = pos;
  return found;
}

/** Writes `ttl` (seconds) into every TTL field at `offsets` (stale answers). */
export function patchTtls(
  message: Uint8Array,
  offsets: ArrayLike<number>,
  ttl: number,
): void {
  for (let i = 0; i < offsets.length; i++) writeU32(message, offsets[i]!, ttl);
}

/**
 * Writes `max(0, ttls[i] - age)` into the TTL field at `offsets[i]`: the
 * TTLs a cached message was stored with, counted down by its age in seconds.
 */
export function decrementTtls(
  message: Uint8Array,
  offsets: ArrayLike<number>,
  ttls: ArrayLike<number>,
  age: number,
): void {
  for (let i = 0; i < offsets.length; i++) {
    const left = ttls[i]! - age;
    writeU32(message, offsets[i]!, left > 0 ? left : 0);
  }
}

function readTtl(message: Uint8Array, at: number): number {
  const ttl = (message[at]! * 0x1000000) +
    ((message[at + 1]! << 16) | (message[at + 2]! << 8) | message[at + 3]!);
  return ttl > MAX_TTL ? 0 : ttl;
}

function writeU32(message: Uint8Array, at: number, value: number): void {
  message[at] = value >>> 24;
  message[at + 1] = value >>> 16;
  message[at + 2] = value >>> 8;
  message[at + 3] = value;
}

function u16(message: Uint8Array, at: number): number {
  if (at + 2 > message.length) throw new WireFormatError("record truncated");
  return (message[at]! << 8) | message[at + 1]!;
}
