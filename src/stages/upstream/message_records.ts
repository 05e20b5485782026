/**
 * The records of an upstream's answer, read just far enough to judge them
 * (answer_scrub.ts): section, owner, type and class, and where the RDATA
 * is, for the few names the scrub reads out of it.
 */
import { TYPE } from "../../dns/wire/constants.ts";
import { HEADER_OCTETS } from "../../dns/wire/query.ts";
import { readName, skipName } from "../../dns/wire/read_name.ts";
import { WireFormatError } from "../../dns/wire/wire_format_error.ts";

/** Owner name excluded: type, class, TTL, RDLENGTH. */
const RR_FIXED_OCTETS = 10;

export const ANSWER = 0;
export const AUTHORITY = 1;
export const ADDITIONAL = 2;

export interface MessageRecord {
  /** Offset of the owner name: where the record starts. */
  start: number;
  /** ANSWER, AUTHORITY or ADDITIONAL. */
  section: number;
  /** Lowercased presentation form, as readName renders it. */
  owner: string;
  type: number;
  class: number;
  /** Offset of the RDATA. */
  rdata: number;
  /** Offset just after the record. */
  end: number;
}

export interface MessageRecords {
  /** Every record up to and including the first OPT of the additional section. */
  records: MessageRecord[];
  /**
   * Index of that OPT record, if any. Records after it are not read: the
   * answer made for the client leaves them out (forwarded_answer.ts), so a
   * fault there is no reason to refuse the answer.
   */
  opt?: number;
}

/**
 * Reads `message`'s records, indexed over the three sections together as
 * dropRecords counts them.
 *
 * @throws {WireFormatError} when the message is malformed
 */
export function readRecords(message: Uint8Array): MessageRecords {
  if (message.length < HEADER_OCTETS) {
    throw new WireFormatError("message shorter than 12 octets");
  }
  let pos = HEADER_OCTETS;
  for (let i = u16(message, 4); i > 0; i--) pos = skipName(message, pos) + 4;
  const records: MessageRecord[] = [];
  for (let section = ANSWER; section <= ADDITIONAL; section++) {
    for (let i = u16(message, 6 + 2 * section); i > 0; i--) {
      const owner = readName(message, pos);
      const rdata = owner.end + RR_FIXED_OCTETS;
      if (rdata > message.length) throw new WireFormatError("record truncated");
      const end = rdata + u16(message, owner.end + 8);
      if (end > message.length) throw new WireFormatError("record truncated");
      const type = u16(message, owner.end);
      records.push({
        start: pos,
        section,
        owner: owner.name.toLowerCase(),
        type,
        class: u16(message, owner.end + 2),
        rdata,
        end,
      });
      if (section === ADDITIONAL && type === TYPE.OPT) {
        return { records, opt: records.length - 1 };
      }
      pos = end;
    }
  }
  return { records };
}

/**
 * The lowercased name `skip` octets into `record`'s RDATA.
 *
 * @throws {WireFormatError} when it is malformed or runs past the RDATA
 */
export function nameInRdata(
  message: Uint8Array,
  record: MessageRecord,
  skip: number,
): string {
  const at = record.rdata + skip;
  if (at >= record.end) throw new WireFormatError("RDATA too short");
  const name = readName(message, at);
  if (name.end > record.end) {
    throw new WireFormatError("name runs past its RDATA");
  }
  return name.name.toLowerCase();
}

export function u16(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}
