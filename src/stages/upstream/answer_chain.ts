/**
 * Answer records that answer something else. An upstream's answer section
 * may only hold the question's name and the CNAME/DNAME chain from it
 * (RFC 1034 §4.3.2, RFC 6672 §3.4); anything else (a record for another
 * name, as a poisoning attempt adds) is no answer to the question, RFC
 * 2181 §5.4.1 ranks it below everything, and passing it on would hand it
 * to the client and the cache. Unbound drops such records; so do we.
 */
import { splitLabels } from "../../dns/name.ts";
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

/**
 * Most names a chain may reach (the question's included); records past
 * them are dropped. Resolvers give up on CNAME chains sooner (Unbound after
 * about a dozen), and the bound keeps a hostile answer of thousands of
 * records from holding the listener.
 */
const MAX_CHAIN_NAMES = 32;

interface AnswerRecord {
  /** Lowercased presentation form. */
  owner: string;
  type: number;
  /** Lowercased CNAME or DNAME target. */
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
 * Indexes of the records on the chain from `qname`: the records of each
 * name it reaches, a CNAME leading to its target, and a DNAME above a name
 * leading to that name rewritten (RFC 6672 §2.2, so its target's data
 * stays even without the synthesized CNAME), whatever the records' order.
 */
function chainIndexes(records: AnswerRecord[], qname: string): Set<number> {
  const byOwner = new Map<string, number[]>();
  const dnames: number[] = [];
  records.forEach((record, i) => {
    const list = byOwner.get(record.owner);
    if (list === undefined) byOwner.set(record.owner, [i]);
    else list.push(i);
    if (record.type === TYPE.DNAME) dnames.push(i);
  });
  const kept = new Set<number>();
  const reached = new Set<string>();
  const queue = [qname];
  while (queue.length > 0 && reached.size < MAX_CHAIN_NAMES) {
    const name = queue.shift()!;
    if (reached.has(name)) continue;
    reached.add(name);
    for (const i of byOwner.get(name) ?? []) {
      kept.add(i);
      const { type, target } = records[i]!;
      if (type === TYPE.CNAME && target !== undefined) queue.push(target);
    }
    for (const i of dnames) {
      const { owner, target } = records[i]!;
      const rewritten = target === undefined
        ? undefined
        : dnameRewrite(name, owner, target);
      if (rewritten === undefined) continue;
      kept.add(i);
      queue.push(rewritten);
    }
  }
  return kept;
}

/**
 * `name` with its ancestor `owner` replaced by `target` (a DNAME's
 * substitution, RFC 6672 §2.2), or undefined when `name` is not strictly
 * below `owner`. Label by label: the dot in `x\\.example.org.` is inside a
 * label. Names as readName renders them, lowercased (one text per name).
 */
export function dnameRewrite(
  name: string,
  owner: string,
  target: string,
): string | undefined {
  const labels = splitLabels(name);
  const ownerLabels = splitLabels(owner);
  const cut = labels.length - ownerLabels.length;
  if (cut < 1) return undefined;
  for (let i = 0; i < ownerLabels.length; i++) {
    if (labels[cut + i] !== ownerLabels[i]) return undefined;
  }
  const prefix = labels.slice(0, cut).join(".");
  return target === "." ? `${prefix}.` : `${prefix}.${target}`;
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
    if (type === TYPE.CNAME || type === TYPE.DNAME) {
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
