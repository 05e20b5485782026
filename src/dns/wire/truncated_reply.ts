/**
 * The header and question of a message that was cut when it was read (a
 * datagram larger than the buffer it was received into), with TC set and
 * no records: a copy that tells the other side "this needs TCP".
 */
import { skipName } from "./read_name.ts";
import { WireFormatError } from "./wire_format_error.ts";

const HEADER_OCTETS = 12;
const TC = 0x02;

/**
 * Header and question of `message` with TC=1 and ANCOUNT, NSCOUNT and
 * ARCOUNT zero; undefined when not even the header and one question can be
 * read (QDCOUNT other than 1 keeps the header only, QDCOUNT 0).
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
  copy[2]! |= TC;
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
