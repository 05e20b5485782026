/**
 * Checks the record data of a message from another server before we keep or
 * pass it on: each domain name inside RDATA must parse within the RDATA
 * (compression pointers backwards only, no loops), and each type must fill
 * its RDATA exactly (A 4 octets, MX 2 + a name, SOA 2 names + 20 octets, …).
 * `parseQuery` checks owner names and RDLENGTHs only, so without this a
 * record whose data a client cannot parse ("bad compression pointer") would
 * be cached and served again; Unbound answers SERVFAIL to such answers
 * (its scrubber, and `scrub_sanitize_rr_length` for A and AAAA).
 */
import { typeName } from "./constants.ts";
import { skipName } from "./read_name.ts";
import { WireFormatError } from "./wire_format_error.ts";

/** Owner name excluded: type, class, TTL, RDLENGTH. */
const RR_FIXED_OCTETS = 10;
const CLASS_IN = 1;
const MAX_NAME_OCTETS = 255;

/** Where the names are in one type's RDATA, and what may follow them. */
export interface RdataLayout {
  /** Octets before the first name. */
  skip: number;
  /** Character-strings between those octets and the first name (NAPTR). */
  strings?: number;
  /** Names one after the other. */
  names: number;
  /**
   * Whether the names may be compressed: RFC 1035's types, and those RFC
   * 3597 §4 asks receivers to decompress (plus KX and DNAME, which servers
   * were seen to compress). Types defined later forbid it (RFC 4034 §6.2,
   * RFC 9460 §2.2): a pointer there is a fault.
   */
  compressed: boolean;
  /**
   * What follows the names: an exact number of octets, "any" (a signature,
   * a type bitmap), or "params" (SVCB's key-length-value list, RFC 9460).
   */
  after: number | "any" | "params";
}

const NAME: RdataLayout = { skip: 0, names: 1, compressed: true, after: 0 };
const TWO_NAMES: RdataLayout = { ...NAME, names: 2 };
const PREFERENCE_NAME: RdataLayout = { ...NAME, skip: 2 };

/** The types with names in their data, by type code. */
export const RDATA_LAYOUTS: ReadonlyMap<number, RdataLayout> = new Map([
  [2, NAME], // NS
  [3, NAME], // MD
  [4, NAME], // MF
  [5, NAME], // CNAME
  [6, { ...TWO_NAMES, after: 20 }], // SOA: MNAME, RNAME, five 32-bit numbers
  [7, NAME], // MB
  [8, NAME], // MG
  [9, NAME], // MR
  [12, NAME], // PTR
  [14, TWO_NAMES], // MINFO
  [15, PREFERENCE_NAME], // MX
  [17, TWO_NAMES], // RP
  [18, PREFERENCE_NAME], // AFSDB
  [21, PREFERENCE_NAME], // RT
  [24, { ...NAME, skip: 18, after: "any" }], // SIG: signer, then signature
  [26, { ...TWO_NAMES, skip: 2 }], // PX
  [30, { ...NAME, after: "any" }], // NXT: next name, then the type bitmap
  [33, { ...NAME, skip: 6 }], // SRV
  [35, { ...NAME, skip: 4, strings: 3 }], // NAPTR: flags, services, regexp
  [36, PREFERENCE_NAME], // KX
  [23, { ...NAME, compressed: false }], // NSAP-PTR (RFC 1706)
  [39, NAME], // DNAME
  [46, { ...NAME, skip: 18, compressed: false, after: "any" }], // RRSIG
  [47, { ...NAME, compressed: false, after: "any" }], // NSEC
  [58, { ...TWO_NAMES, compressed: false }], // TALINK
  [64, { ...NAME, skip: 2, compressed: false, after: "params" }], // SVCB
  [65, { ...NAME, skip: 2, compressed: false, after: "params" }], // HTTPS
  [107, { ...PREFERENCE_NAME, compressed: false }], // LP (RFC 6742)
]);

/** Type 0 is reserved (RFC 6895 §3.1): no record has it, and dig refuses a message with one. */
const RESERVED_TYPE = 0;

/** RDATA sizes fixed by the type, in class IN only (a CH A record differs). */
const FIXED_SIZES: ReadonlyMap<number, number> = new Map([
  [1, 4], // A
  [28, 16], // AAAA
]);

/** Types whose data is nothing but character-strings. */
const STRING_TYPES: ReadonlySet<number> = new Set([16, 99]); // TXT, SPF

/**
 * Checks the data of the `records` records that start at `start` (the end
 * of the question), whatever section they are in.
 *
 * @throws {WireFormatError} naming the type of the first record whose data
 *   is malformed, or when the records themselves are cut short
 */
export function checkRecordData(
  message: Uint8Array,
  start: number,
  records: number,
): void {
  let pos = start;
  for (let i = 0; i < records; i++) {
    const fixed = skipName(message, pos);
    if (fixed + RR_FIXED_OCTETS > message.length) {
      throw new WireFormatError("record truncated");
    }
    const type = u16(message, fixed);
    const rdata = fixed + RR_FIXED_OCTETS;
    const end = rdata + u16(message, fixed + 8);
    if (end > message.length) throw new WireFormatError("record truncated");
    const fault = rdataFault(
      message,
      type,
      u16(message, fixed + 2),
      rdata,
      end,
    );
    if (fault !== undefined) {
      throw new WireFormatError(`${typeName(type)} record data: ${fault}`);
    }
    pos = end;
  }
}

/** What is wrong with one record's data (`start` to `end`), if anything. */
function rdataFault(
  message: Uint8Array,
  type: number,
  rrClass: number,
  start: number,
  end: number,
): string | undefined {
  if (type === RESERVED_TYPE) return "reserved type";
  const size = FIXED_SIZES.get(type);
  if (size !== undefined && rrClass === CLASS_IN) {
    return end - start === size
      ? undefined
      : `${end - start} octets, not ${size}`;
  }
  if (STRING_TYPES.has(type)) {
    return skipStrings(message, start, end, Infinity) === end
      ? undefined
      : "character-string past its end";
  }
  const layout = RDATA_LAYOUTS.get(type);
  return layout === undefined
    ? undefined
    : layoutFault(message, layout, start, end);
}

function layoutFault(
  message: Uint8Array,
  layout: RdataLayout,
  start: number,
  end: number,
): string | undefined {
  let pos = start + layout.skip;
  if (layout.strings !== undefined) {
    pos = skipStrings(message, pos, end, layout.strings);
  }
  if (pos > end) return "too short";
  for (let n = 0; n < layout.names; n++) {
    if (layout.compressed) {
      try {
        pos = skipName(message, pos);
      } catch (error) {
        if (!(error instanceof WireFormatError)) throw error;
        return error.reason;
      }
      if (pos > end) return "name runs past the record data";
    } else {
      pos = skipUncompressedName(message, pos, end);
      if (pos < 0) return "name malformed or compressed";
    }
  }
  const rest = end - pos;
  if (layout.after === "any") return undefined;
  if (layout.after === "params") {
    return paramsEnd(message, pos, end) === end
      ? undefined
      : "params malformed";
  }
  return rest === layout.after
    ? undefined
    : `${rest} octets after the names, not ${layout.after}`;
}

/**
 * The end of `count` character-strings from `pos` (at most, stopping at
 * `end`); past `end` when one runs over it.
 */
function skipStrings(
  message: Uint8Array,
  pos: number,
  end: number,
  count: number,
): number {
  for (let n = 0; n < count && pos < end; n++) pos += 1 + message[pos]!;
  return pos;
}

/** The end of a name of labels only within `end`, or -1. */
function skipUncompressedName(
  message: Uint8Array,
  pos: number,
  end: number,
): number {
  const first = pos;
  while (pos < end) {
    const len = message[pos]!;
    if (len === 0) return pos + 1 - first <= MAX_NAME_OCTETS ? pos + 1 : -1;
    if (len > 63) return -1; // a pointer, or an extended label type
    pos += 1 + len;
  }
  return -1;
}

/** The end of SvcParams (key, length, value) from `pos`; past `end` on overrun. */
function paramsEnd(message: Uint8Array, pos: number, end: number): number {
  while (pos + 4 <= end) pos += 4 + u16(message, pos + 2);
  return pos === end ? pos : end + 1;
}

function u16(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}
