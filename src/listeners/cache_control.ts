/**
 * The HTTP freshness of a DoH answer (RFC 8484 §5.1): an HTTP cache must
 * not keep it longer than a DNS cache would keep its records. Read from
 * the wire without decoding the message: the header's counts, the
 * question skipped, then each record's type, TTL and length.
 */

const HEADER_OCTETS = 12;
const TYPE_SOA = 6;
const TYPE_OPT = 41;
/** RFC 2181 §8: a TTL with the top bit set is taken as 0. */
const MAX_TTL = 0x7fff_ffff;

/**
 * The smallest TTL of the answer's records, in the answer, authority and
 * additional sections, OPT excepted (its "TTL" holds EDNS flags, RFC 6891
 * §6.1.3). An SOA in the authority section marks a negative answer
 * (NXDOMAIN, NODATA), which RFC 2308 §5 lets be cached for the smaller of
 * the SOA's TTL and its MINIMUM field: both count (RFC 8484 §5.1 asks for
 * no more than MINIMUM when the answer section is empty).
 *
 * 0 for a message without records (a SERVFAIL, REFUSED, a negative
 * answer without SOA) and for one that cannot be read. RFC 2308 §5 says a
 * negative answer without SOA SHOULD NOT be cached at all, and RFC 9111
 * §4.2.2 would let an HTTP cache guess a lifetime for a 200 that names
 * none; `max-age=0` says "not fresh" outright.
 */
export function answerMaxAge(message: Uint8Array): number {
  if (message.length < HEADER_OCTETS) return 0;
  const qdcount = u16(message, 4);
  const ancount = u16(message, 6);
  const nscount = u16(message, 8);
  const records = ancount + nscount + u16(message, 10);
  let at = HEADER_OCTETS;
  for (let i = 0; i < qdcount; i++) {
    const end = skipOwner(message, at);
    if (end < 0) return 0;
    at = end + 4; // QTYPE, QCLASS
  }
  let smallest = -1;
  for (let i = 0; i < records; i++) {
    const fixed = skipOwner(message, at);
    if (fixed < 0 || fixed + 10 > message.length) return 0;
    const type = u16(message, fixed);
    const rdata = fixed + 10;
    at = rdata + u16(message, fixed + 8);
    if (at > message.length) return 0;
    if (type === TYPE_OPT) continue;
    let ttl = ttlAt(message, fixed + 4);
    const inAuthority = i >= ancount && i < ancount + nscount;
    if (type === TYPE_SOA && inAuthority && at - 4 >= rdata) {
      // MINIMUM is the last field of the SOA's RDATA (RFC 1035 §3.3.13).
      ttl = Math.min(ttl, ttlAt(message, at - 4));
    }
    if (smallest < 0 || ttl < smallest) smallest = ttl;
  }
  return smallest < 0 ? 0 : smallest;
}

/** The Cache-Control header value for `message`. */
export function cacheControl(message: Uint8Array): string {
  return "max-age=" + answerMaxAge(message);
}

function u16(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}

function ttlAt(bytes: Uint8Array, at: number): number {
  const ttl = ((bytes[at]! << 24) >>> 0) + (bytes[at + 1]! << 16) +
    (bytes[at + 2]! << 8) + bytes[at + 3]!;
  return ttl > MAX_TTL ? 0 : ttl;
}

/**
 * The offset after the owner name at `at`: labels up to the root octet, or
 * up to a compression pointer, which ends the name where it stands (its
 * target need not be followed to skip it). -1 past the end or on a label
 * type that is neither.
 */
function skipOwner(bytes: Uint8Array, at: number): number {
  for (;;) {
    if (at >= bytes.length) return -1;
    const len = bytes[at]!;
    if (len === 0) return at + 1;
    if ((len & 0xc0) === 0xc0) return at + 2 <= bytes.length ? at + 2 : -1;
    if ((len & 0xc0) !== 0) return -1;
    at += len + 1;
  }
}
