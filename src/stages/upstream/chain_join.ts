/**
 * One answer made of two: the CNAME/DNAME chain an upstream answered up to
 * a name it may not speak for (answer_chain.ts), and the answer for that
 * name from the name's own route (a local zone, another upstream group).
 * BIND and Unbound answer a chain that crosses into another zone the same
 * way: the chain so far, then what the target's own source says.
 */
import { HEADER_FLAG, RCODE } from "../../dns/wire/constants.ts";
import { expandedRecord } from "../../dns/wire/expanded_record.ts";
import { HEADER_OCTETS } from "../../dns/wire/query.ts";
import { skipName } from "../../dns/wire/read_name.ts";
import { WireFormatError } from "../../dns/wire/wire_format_error.ts";
import {
  ADDITIONAL,
  ANSWER,
  AUTHORITY,
  readRecords,
  u16,
} from "./message_records.ts";

const { QR, TC, RD, RA, AD, RCODE_MASK } = HEADER_FLAG;
/** The largest DNS message (TCP's two-octet length prefix). */
const MAX_MESSAGE_OCTETS = 65535;

/**
 * `first`'s header ID, RD and question and its answer records, then every
 * record of `rest` (its OPT included, which carries the extended RCODE and
 * any Extended DNS Errors), under `rest`'s RCODE and TC. AA and AD are
 * clear: the message mixes two sources, and neither vouches for the
 * other's part. Records are written without compression, so each stands
 * on its own.
 *
 * @throws {WireFormatError} when either message is malformed or the
 *   joined message would exceed 65535 octets
 */
export function joinedChain(first: Uint8Array, rest: Uint8Array): Uint8Array {
  if (first.length < HEADER_OCTETS || rest.length < HEADER_OCTETS) {
    throw new WireFormatError("message shorter than 12 octets");
  }
  const questionEnd = skipName(first, HEADER_OCTETS) + 4;
  if (questionEnd > first.length) {
    throw new WireFormatError("question truncated");
  }
  const records: Uint8Array[] = [];
  const counts = [0, 0, 0];
  for (const record of readRecords(first).records) {
    if (record.section !== ANSWER) continue;
    records.push(expandedRecord(first, record.start).bytes);
    counts[ANSWER]!++;
  }
  for (const record of readRecords(rest).records) {
    records.push(expandedRecord(rest, record.start).bytes);
    counts[record.section]!++;
  }
  let length = questionEnd;
  for (const record of records) length += record.length;
  if (length > MAX_MESSAGE_OCTETS) {
    throw new WireFormatError("joined answer over 65535 octets");
  }
  const out = new Uint8Array(length);
  out.set(first.subarray(0, questionEnd));
  const flags = QR | (u16(first, 2) & RD) | RA |
    (u16(rest, 2) & (TC | RCODE_MASK));
  put16(out, 2, flags);
  put16(out, 4, 1);
  put16(out, 6, counts[ANSWER]!);
  put16(out, 8, counts[AUTHORITY]!);
  put16(out, 10, counts[ADDITIONAL]!);
  let pos = questionEnd;
  for (const record of records) {
    out.set(record, pos);
    pos += record.length;
  }
  return out;
}

/**
 * `message`, a chain cut before a name its upstream may not speak for,
 * answered as it stands when that name cannot be resolved here: NOERROR
 * (the upstream's NXDOMAIN was about the name left out), AD clear.
 */
export function danglingChain(message: Uint8Array): Uint8Array {
  const out = message.slice();
  let flags = u16(out, 2) & ~AD;
  if ((flags & RCODE_MASK) === RCODE.NXDOMAIN) flags &= ~RCODE_MASK;
  put16(out, 2, flags);
  return out;
}

function put16(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >> 8;
  bytes[at + 1] = value & 0xff;
}
