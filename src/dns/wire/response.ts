/**
 * Encodes whole responses: header, question, the three record sections with
 * name compression, and the OPT record, within the transport's size limit.
 *
 * Truncation: RRsets are written whole. When an answer or authority RRset
 * does not fit, the response carries TC=1 and ends before it: the whole
 * RRsets written before it stay (a CNAME before a large RRset), later ones
 * and the additional section go; question and OPT are kept. NSD and Knot
 * answer the same over UDP (tests/interop). An additional RRset that does
 * not fit is left out without TC (RFC 2181 §9), and later, smaller ones
 * may still go in.
 */
import { shortLivedCopy } from "./short_lived_bytes.ts";
import type { RRSet } from "../rrset.ts";
import { TYPE } from "./constants.ts";
import {
  COMPRESSED,
  MAX_MESSAGE_OCTETS,
  MESSAGE_OVERFLOW,
  MessageWriter,
} from "./message_writer.ts";
import { writeRdata } from "./rdata_wire.ts";

/** Everything a response says; the encoder decides only what fits. */
export interface ResponseSpec {
  id: number;
  opcode: number;
  /** 0..4095; bits above 4 go into the OPT TTL (extended RCODE, RFC 6891). */
  rcode: number;
  aa?: boolean;
  tc?: boolean;
  rd?: boolean;
  ra?: boolean;
  ad?: boolean;
  cd?: boolean;
  /** Written first, in the case given: answer owners equal to it point here. */
  question?: { name: string; type: number; class: number };
  answer?: RRSet[];
  authority?: RRSet[];
  additional?: RRSet[];
  /**
   * How many leading `additional` RRsets the message must carry (a
   * referral's in-domain glue, RFC 9471 §3): when one does not fit, the
   * rest of the additional section is left out and TC is set.
   */
  requiredAdditional?: number;
  /**
   * A whole record written after the OPT record, the last of the message:
   * a TSIG record (RFC 8945 §5.1 puts it last). Left out, with TC set, when
   * it does not fit in maxSize beside the header, question and OPT.
   */
  last?: Uint8Array;
  /** Present when the query had EDNS: the OPT record to add (RFC 6891). */
  edns?: {
    udpSize: number;
    dnssecOk?: boolean;
    options?: { code: number; data: Uint8Array }[];
  };
}

const HEADER_OCTETS = 12;
/** OPT owner (root), type, class, TTL and RDLENGTH. */
const OPT_FIXED_OCTETS = 11;
const QUESTION_NAME = {
  compress: false,
  register: true,
  cacheable: false,
} as const;

const writer = new MessageWriter();

/**
 * Encodes a response of at most `maxSize` octets (512 for UDP without EDNS,
 * the client's EDNS size clamped to 512-65535 with it, 65535 for TCP). The
 * header, question and OPT record are always written, even in the unlikely
 * case that they alone exceed `maxSize`.
 *
 * @throws {RangeError} when `rcode` is above 4095, or above 15 without
 *   `edns`, or a field does not fit its wire size
 * @throws {TypeError} when a name or address in the spec is not valid
 */
export function encodeResponse(
  spec: ResponseSpec,
  maxSize: number,
): Uint8Array {
  checkRcode(spec);
  const w = writer;
  w.reset();
  w.reserve(HEADER_OCTETS);
  try {
    if (spec.question !== undefined) {
      w.name(spec.question.name, QUESTION_NAME);
      w.u16(spec.question.type);
      w.u16(spec.question.class);
    }
  } catch (error) {
    throw error === MESSAGE_OVERFLOW
      ? new RangeError("Cannot encode response: question too long")
      : error;
  }
  const afterQuestion = w.mark();
  const room = Math.min(maxSize, MAX_MESSAGE_OCTETS) - optOctets(spec);
  // A TSIG record that cannot fit even beside the question alone is left
  // out and TC set: the client asks again over TCP, where it fits (an
  // answer over the client's UDP limit would be dropped on the way).
  const last = spec.last !== undefined &&
      afterQuestion.pos + spec.last.length <= room
    ? spec.last
    : undefined;
  w.limit = Math.max(room - (last?.length ?? 0), afterQuestion.pos);
  // Whole RRsets only (RFC 2181 §9): the answer and authority end before
  // the first RRset that does not fit, TC set; what fit before it stays,
  // as NSD and Knot send it (a CNAME before a large RRset).
  const answer = writeSection(w, spec.answer);
  const authority = answer.complete
    ? writeSection(w, spec.authority)
    : CUT_SECTION;
  const additional = authority.complete
    ? writeAdditional(w, spec.additional, spec.requiredAdditional ?? 0)
    : CUT_SECTION;
  const ancount = answer.count;
  const nscount = authority.count;
  let arcount = additional.count;
  const truncated = !authority.complete || !additional.complete ||
    last !== spec.last;
  w.limit = MAX_MESSAGE_OCTETS;
  if (spec.edns !== undefined) {
    writeOpt(w, spec);
    arcount++;
  }
  if (last !== undefined) {
    w.bytes(last);
    arcount++;
  }
  writeHeader(w, spec, truncated, [ancount, nscount, arcount]);
  return w.finish();
}

/**
 * A copy of `message` with its ID replaced (for memoised answers), for one
 * exchange only (short_lived_bytes.ts: never keep it).
 */
export function patchId(message: Uint8Array, id: number): Uint8Array {
  const copy = shortLivedCopy(message);
  copy[0] = id >>> 8;
  copy[1] = id;
  return copy;
}

function checkRcode(spec: ResponseSpec): void {
  const { rcode } = spec;
  if (!Number.isInteger(rcode) || rcode < 0 || rcode > 4095) {
    throw new RangeError(
      `Cannot encode response: rcode ${rcode} is not 0-4095`,
    );
  }
  if (rcode > 15 && spec.edns === undefined) {
    throw new RangeError(
      `Cannot encode response: rcode ${rcode} needs EDNS (extended RCODE)`,
    );
  }
}

function optOctets(spec: ResponseSpec): number {
  if (spec.edns === undefined) return 0;
  let octets = OPT_FIXED_OCTETS;
  for (const option of spec.edns.options ?? []) {
    octets += 4 + option.data.length;
  }
  return octets;
}

/** Writes whole RRsets; returns the record count, or -1 when one did not fit. */
/** What a section wrote, and whether all of it fit. */
interface SectionWritten {
  count: number;
  complete: boolean;
}

const CUT_SECTION: SectionWritten = Object.freeze({
  count: 0,
  complete: false,
});

/** Writes RRsets until one does not fit, which is undone and ends the section. */
function writeSection(
  w: MessageWriter,
  rrsets: RRSet[] | undefined,
): SectionWritten {
  let count = 0;
  for (const rrset of rrsets ?? []) {
    const mark = w.mark();
    try {
      count += writeRRSet(w, rrset);
    } catch (error) {
      if (error !== MESSAGE_OVERFLOW) throw error;
      w.rollback(mark);
      return { count, complete: false };
    }
  }
  return { count, complete: true };
}

/**
 * Writes the RRsets that fit; an RRset that does not is left out (RFC 2181
 * §9: additional data is optional), unless it is one of the first
 * `required`: then the section ends there and `complete` is false.
 */
function writeAdditional(
  w: MessageWriter,
  rrsets: RRSet[] | undefined,
  required: number,
): SectionWritten {
  let count = 0;
  for (const [index, rrset] of (rrsets ?? []).entries()) {
    const mark = w.mark();
    try {
      count += writeRRSet(w, rrset);
    } catch (error) {
      if (error !== MESSAGE_OVERFLOW) throw error;
      w.rollback(mark);
      if (index < required) return { count, complete: false };
    }
  }
  return { count, complete: true };
}

function writeRRSet(w: MessageWriter, rrset: RRSet): number {
  const rrclass = rrset.class ?? 1;
  for (const rdata of rrset.rdata) {
    w.name(rrset.name, COMPRESSED);
    w.u16(rrset.type);
    w.u16(rrclass);
    w.u32(rrset.ttl);
    const lengthAt = w.reserve(2);
    writeRdata(w, rdata);
    w.setU16(lengthAt, w.pos - lengthAt - 2);
  }
  return rrset.rdata.length;
}

function writeOpt(w: MessageWriter, spec: ResponseSpec): void {
  const edns = spec.edns!;
  w.u8(0);
  w.u16(TYPE.OPT);
  w.u16(edns.udpSize);
  // TTL: extended RCODE (upper 8 bits), version 0, DO, Z.
  w.u32(((spec.rcode >>> 4) << 24 | (edns.dnssecOk ? 0x8000 : 0)) >>> 0);
  const lengthAt = w.reserve(2);
  for (const option of edns.options ?? []) {
    w.u16(option.code);
    w.u16(option.data.length);
    w.bytes(option.data);
  }
  w.setU16(lengthAt, w.pos - lengthAt - 2);
}

function writeHeader(
  w: MessageWriter,
  spec: ResponseSpec,
  truncated: boolean,
  [ancount, nscount, arcount]: [number, number, number],
): void {
  const flags = 0x8000 | (spec.opcode & 0xf) << 11 |
    (spec.aa ? 0x0400 : 0) | (spec.tc || truncated ? 0x0200 : 0) |
    (spec.rd ? 0x0100 : 0) | (spec.ra ? 0x0080 : 0) |
    (spec.ad ? 0x0020 : 0) | (spec.cd ? 0x0010 : 0) | (spec.rcode & 0xf);
  w.setU16(0, spec.id);
  w.setU16(2, flags);
  w.setU16(4, spec.question === undefined ? 0 : 1);
  w.setU16(6, ancount);
  w.setU16(8, nscount);
  w.setU16(10, arcount);
}
