/**
 * Hand-written query parsing for the hot path
 * (docs/design.md#wire-fast-path): the header, the one question and the OPT
 * record, with every other record skipped after checking its framing. No
 * dns-packet, few allocations.
 */
import { TYPE } from "./constants.ts";
import { readName, skipName } from "./read_name.ts";
import { WireFormatError } from "./wire_format_error.ts";

/** Owner name excluded: type, class, TTL, RDLENGTH. */
const RR_FIXED_OCTETS = 10;

/** The question of a query. */
export interface Question {
  /**
   * Presentation form in the case the client sent, with a trailing dot;
   * see {@linkcode readName} for the escapes.
   */
  name: string;
  type: number;
  class: number;
}

/** One EDNS option (RFC 6891 §6.1.2). */
export interface EdnsOption {
  code: number;
  /** A copy: safe to keep after the receive buffer is reused. */
  data: Uint8Array;
}

/** What the OPT record of a query says (RFC 6891 §6.1.3). */
export interface EdnsInfo {
  /** The requestor's UDP payload size, as sent (not clamped). */
  udpSize: number;
  version: number;
  /** The DO bit (RFC 3225). */
  dnssecOk: boolean;
  /** The upper 8 bits of the extended RCODE (0 in a sane query). */
  extendedRcode: number;
  options: EdnsOption[];
}

/** A parsed query. */
export interface QueryInfo {
  id: number;
  opcode: number;
  /** The raw second header word (QR, opcode, AA, TC, RD, RA, Z, AD, CD, RCODE). */
  flags: number;
  qr: boolean;
  rd: boolean;
  cd: boolean;
  ad: boolean;
  qdcount: number;
  ancount: number;
  nscount: number;
  arcount: number;
  /** Undefined when QDCOUNT is 0 (e.g. a DNS cookie-only query). */
  question: Question | undefined;
  /** Offset just after the question (12 without one). */
  questionEnd: number;
  /** Undefined when the additional section has no OPT record. */
  edns: EdnsInfo | undefined;
  /**
   * Where the TSIG record is (RFC 8945): the offset of its owner name and
   * of its end. Always the last record when present (else FORMERR).
   */
  tsig: { start: number; end: number } | undefined;
  /**
   * Offset just after the last counted record. Octets beyond it are ignored
   * (lenient, like NSD; Knot answers FORMERR); a caller that wants to refuse them compares this
   * with the message length.
   */
  end: number;
}

/**
 * Parses a query: header, question, and the OPT record of the additional
 * section. Answer and authority records (a NOTIFY or UPDATE carries them)
 * are skipped after checking their names and lengths.
 *
 * @throws {WireFormatError} when the message is malformed: shorter than the
 *   header, more than one question, a truncated section, a bad name (see
 *   {@linkcode readName}), more than one OPT record, an OPT record outside
 *   the additional section, or one whose owner is not the root or whose
 *   options overrun it, a TSIG record that is not the last record
 */
export function parseQuery(bytes: Uint8Array): QueryInfo {
  if (bytes.length < HEADER_OCTETS) {
    throw new WireFormatError("message shorter than 12 octets");
  }
  const flags = u16(bytes, 2);
  const qdcount = u16(bytes, 4);
  const ancount = u16(bytes, 6);
  const nscount = u16(bytes, 8);
  const arcount = u16(bytes, 10);
  if (qdcount > 1) throw new WireFormatError("more than one question");
  let question: Question | undefined;
  let pos = HEADER_OCTETS;
  if (qdcount === 1) {
    const { name, end } = readName(bytes, pos);
    if (end + 4 > bytes.length) throw new WireFormatError("question truncated");
    question = { name, type: u16(bytes, end), class: u16(bytes, end + 2) };
    pos = end + 4;
  }
  const questionEnd = pos;
  for (let i = ancount + nscount; i > 0; i--) {
    const fixed = skipName(bytes, pos);
    // RFC 6891 §6.1.1: an OPT record belongs in the additional section only;
    // RFC 8945 §5.1: a TSIG record is the last of the additional section.
    if (fixed + 2 <= bytes.length) {
      const type = u16(bytes, fixed);
      if (type === TYPE.OPT) {
        throw new WireFormatError("OPT record outside the additional section");
      }
      if (type === TYPE.TSIG) {
        throw new WireFormatError("TSIG record outside the additional section");
      }
    }
    pos = recordEnd(bytes, fixed);
  }
  let edns: EdnsInfo | undefined;
  let tsig: { start: number; end: number } | undefined;
  for (let i = arcount; i > 0; i--) {
    const ownerStart = pos;
    const fixed = skipName(bytes, pos);
    const next = recordEnd(bytes, fixed);
    if (u16(bytes, fixed) === TYPE.TSIG) {
      if (i !== 1) throw new WireFormatError("TSIG record not the last one");
      tsig = { start: ownerStart, end: next };
    }
    if (u16(bytes, fixed) === TYPE.OPT) {
      if (edns !== undefined) {
        throw new WireFormatError("more than one OPT record");
      }
      if (bytes[ownerStart] !== 0) {
        throw new WireFormatError("OPT record not at the root");
      }
      edns = readOpt(bytes, fixed, next);
    }
    pos = next;
  }
  return {
    id: u16(bytes, 0),
    opcode: (flags >> 11) & 0xf,
    flags,
    qr: (flags & 0x8000) !== 0,
    rd: (flags & 0x0100) !== 0,
    cd: (flags & 0x0010) !== 0,
    ad: (flags & 0x0020) !== 0,
    qdcount,
    ancount,
    nscount,
    arcount,
    question,
    questionEnd,
    edns,
    tsig,
    end: pos,
  };
}

/** Octets in a DNS header (RFC 1035 §4.1.1). */
export const HEADER_OCTETS = 12;

/** The header fields of `bytes`, with no question and no EDNS (zeros without a header). */
export function headerOnlyQuery(bytes: Uint8Array): QueryInfo {
  const word = (at: number) =>
    bytes.length >= HEADER_OCTETS ? (bytes[at]! << 8) | bytes[at + 1]! : 0;
  const flags = word(2);
  return {
    id: word(0),
    opcode: (flags >> 11) & 0xf,
    flags,
    qr: (flags & 0x8000) !== 0,
    rd: (flags & 0x0100) !== 0,
    cd: (flags & 0x0010) !== 0,
    ad: (flags & 0x0020) !== 0,
    qdcount: word(4),
    ancount: word(6),
    nscount: word(8),
    arcount: word(10),
    question: undefined,
    questionEnd: Math.min(bytes.length, HEADER_OCTETS),
    edns: undefined,
    tsig: undefined,
    end: Math.min(bytes.length, HEADER_OCTETS),
  };
}

function u16(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}

/** The end of a record whose fixed part (after the owner) starts at `fixed`. */
function recordEnd(bytes: Uint8Array, fixed: number): number {
  if (fixed + RR_FIXED_OCTETS > bytes.length) {
    throw new WireFormatError("record truncated");
  }
  const end = fixed + RR_FIXED_OCTETS + u16(bytes, fixed + 8);
  if (end > bytes.length) throw new WireFormatError("record data truncated");
  return end;
}

function readOpt(bytes: Uint8Array, fixed: number, end: number): EdnsInfo {
  const options: EdnsOption[] = [];
  let pos = fixed + RR_FIXED_OCTETS;
  while (pos < end) {
    if (pos + 4 > end) throw new WireFormatError("EDNS option truncated");
    const length = u16(bytes, pos + 2);
    if (pos + 4 + length > end) {
      throw new WireFormatError("EDNS option truncated");
    }
    options.push({
      code: u16(bytes, pos),
      data: bytes.slice(pos + 4, pos + 4 + length),
    });
    pos += 4 + length;
  }
  return {
    udpSize: u16(bytes, fixed + 2),
    extendedRcode: bytes[fixed + 4]!,
    version: bytes[fixed + 5]!,
    dnssecOk: (bytes[fixed + 6]! & 0x80) !== 0,
    options,
  };
}
