/**
 * Answer records that answer something else. An upstream's answer section
 * may only hold the question's name and the CNAME/DNAME chain from it
 * (RFC 1034 §4.3.2, RFC 6672 §3.4); anything else (a record for another
 * name, as a poisoning attempt adds) is no answer to the question, RFC
 * 2181 §5.4.1 ranks it below everything, and passing it on would hand it
 * to the client and the cache. Unbound drops such records; so do we.
 */
import { dropRecords } from "../../dns/wire/drop_records.ts";
import {
  HEADER_OCTETS,
  readName,
  skipName,
  TYPE,
  WireFormatError,
} from "../../dns/wire/mod.ts";

/** Owner name excluded: type, class, TTL, RDLENGTH. */
const RR_FIXED_OCTETS = 10;

interface AnswerRecord {
  /** Lowercased presentation form. */
  owner: string;
  type: number;
  /** Lowercased CNAME target, for CNAME records. */
  target?: string;
}

/**
 * `message` (an answer to a question for `qname`, lowercased) without the
 * answer records off the chain from `qname`; `message` itself when every
 * record is on it.
 *
 * @throws {WireFormatError} when the message is malformed
 */
export function withoutOffChainAnswers(
  message: Uint8Array,
  qname: string,
): Uint8Array {
  const records = answerRecords(message);
  const onChain = chainIndexes(records, qname);
  if (onChain.size === records.length) return message;
  const drop = new Set<number>();
  for (let i = 0; i < records.length; i++) {
    if (!onChain.has(i)) drop.add(i);
  }
  return dropRecords(message, drop);
}

/**
 * Indexes of the records for `qname` or a name the chain leads to: a
 * CNAME's target, or a name below a DNAME's owner. The chain is followed
 * whatever the order of the records.
 */
function chainIndexes(records: AnswerRecord[], qname: string): Set<number> {
  const names = new Set([qname]);
  const kept = new Set<number>();
  let grew = true;
  while (grew) {
    grew = false;
    for (let i = 0; i < records.length; i++) {
      if (kept.has(i)) continue;
      const record = records[i]!;
      const onChain = names.has(record.owner) ||
        (record.type === TYPE.DNAME && belowAny(names, record.owner));
      if (!onChain) continue;
      kept.add(i);
      grew = true;
      if (record.target !== undefined) names.add(record.target);
    }
  }
  return kept;
}

function belowAny(names: ReadonlySet<string>, owner: string): boolean {
  const suffix = owner === "." ? "" : "." + owner;
  for (const name of names) {
    if (name !== owner && (owner === "." || name.endsWith(suffix))) return true;
  }
  return false;
}

function answerRecords(message: Uint8Array): AnswerRecord[] {
  let pos = HEADER_OCTETS;
  for (let i = u16(message, 4); i > 0; i--) pos = skipName(message, pos) + 4;
  const records: AnswerRecord[] = [];
  for (let i = u16(message, 6); i > 0; i--) {
    const owner = readName(message, pos);
    const fixed = owner.end;
    const rdata = fixed + RR_FIXED_OCTETS;
    if (rdata > message.length) throw new WireFormatError("record truncated");
    const type = u16(message, fixed);
    const record: AnswerRecord = { owner: owner.name.toLowerCase(), type };
    if (type === TYPE.CNAME) {
      record.target = readName(message, rdata).name.toLowerCase();
    }
    records.push(record);
    pos = rdata + u16(message, fixed + 8);
  }
  return records;
}

function u16(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}
