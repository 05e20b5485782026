/**
 * Messages cut when they were read (a datagram larger than the buffer it
 * was received into): what can still be said from their header and
 * question. An upstream answer cut so is taken as truncated (TC=1); a
 * client's query cut so gets the answer oversizeQueryAnswer makes.
 */
import { skipName } from "./read_name.ts";
import { WireFormatError } from "./wire_format_error.ts";

const HEADER_OCTETS = 12;
const TC = 0x02;

/**
 * A copy of the header and question of `message`, flags as they were,
 * ANCOUNT, NSCOUNT and ARCOUNT zero; undefined when not even the header and
 * one question can be read (QDCOUNT other than 1 keeps the header only,
 * QDCOUNT 0).
 */
export function headerAndQuestion(
  message: Uint8Array,
): Uint8Array | undefined {
  if (message.length < HEADER_OCTETS) return undefined;
  let end = HEADER_OCTETS;
  const qdcount = (message[4]! << 8) | message[5]!;
  if (qdcount === 1) {
    try {
      end = skipName(message, HEADER_OCTETS) + 4;
    } catch (error) {
      if (!(error instanceof WireFormatError)) throw error;
      return undefined;
    }
    if (end > message.length) return undefined;
  }
  const copy = message.slice(0, end);
  copy.fill(0, 6, HEADER_OCTETS);
  if (qdcount !== 1) copy.fill(0, 4, 6);
  return copy;
}

const OPT = 41;

/**
 * The OPT record of the additional section of a cut `message`, as far as its
 * octets go: records are walked from the question on, and a record of the
 * additional section whose owner (the root) and type are there counts even
 * if the rest was cut off (the padding that made the message too large
 * usually sits in the OPT record itself). Its EDNS version when the octet
 * is there, else 0; undefined without an OPT record.
 */
export function optRecordOf(
  message: Uint8Array,
): { version: number } | undefined {
  const u16 = (at: number) => (message[at]! << 8) | message[at + 1]!;
  if (message.length < HEADER_OCTETS || u16(4) !== 1) return undefined;
  const before = u16(6) + u16(8); // answer and authority records
  const additional = u16(10);
  try {
    let at = skipName(message, HEADER_OCTETS) + 4;
    for (let i = 0; i < before + additional; i++) {
      const fixed = skipName(message, at);
      if (fixed + 2 > message.length) return undefined;
      if (i >= before && u16(fixed) === OPT) {
        // Type, class, then the TTL field: extended RCODE, version, flags.
        return { version: message[fixed + 5] ?? 0 };
      }
      if (fixed + 10 > message.length) return undefined;
      at = fixed + 10 + u16(fixed + 8);
    }
  } catch (error) {
    if (!(error instanceof WireFormatError)) throw error;
  }
  return undefined;
}

/**
 * Our OPT record (RFC 6891): root owner, payload 1232, version 0, no flags,
 * no options; `extendedRcode` is the upper 8 bits of the RCODE (1 for
 * BADVERS).
 */
function ourOpt(extendedRcode: number): Uint8Array {
  return new Uint8Array([0, 0, 41, 0x04, 0xd0, extendedRcode, 0, 0, 0, 0, 0]);
}

const FORMERR = 1;
/** BADVERS (16): RCODE 0 in the header, 1 in the OPT's extended RCODE. */
const BADVERS_EXTENDED = 1;

/**
 * The answer to a query too large to read, as for a query read whole where
 * its header and question decide (QR set; AA, RA, AD clear; opcode, RD and
 * CD kept; an OPT record when the query had one, RFC 6891 §7): FORMERR
 * without exactly one question, BADVERS for an EDNS version above 0, else
 * the header and question with TC=1 so the client asks over TCP. Nothing
 * for a datagram that is itself a response (QR=1), as for any other.
 */
export function oversizeQueryAnswer(
  datagram: Uint8Array,
): Uint8Array | undefined {
  if ((datagram[2]! & 0x80) !== 0) return undefined;
  const head = headerAndQuestion(datagram);
  if (head === undefined) return undefined;
  const opt = optRecordOf(datagram);
  const oneQuestion = head[5] === 1 && head[4] === 0;
  const badVersion = oneQuestion && opt !== undefined && opt.version > 0;
  const reply = new Uint8Array(head.length + (opt === undefined ? 0 : 11));
  reply.set(head);
  if (opt !== undefined) {
    reply.set(ourOpt(badVersion ? BADVERS_EXTENDED : 0), head.length);
    reply[11] = 1; // ARCOUNT
  }
  const tc = oneQuestion && !badVersion ? TC : 0;
  reply[2] = (reply[2]! & 0x79) | 0x80 | tc;
  reply[3] = (reply[3]! & 0x10) | (oneQuestion ? 0 : FORMERR);
  return reply;
}
