/**
 * Which answer records answer the question. An upstream's answer section
 * may only hold the question's name and the CNAME/DNAME chain from it
 * (RFC 1034 §4.3.2, RFC 6672 §3.4), and at each name of the chain only
 * the type asked for: anything else (a record for another name, as a
 * poisoning attempt adds; an A record in an AAAA answer) is no answer to
 * the question, RFC 2181 §5.4.1 ranks it below everything, and passing it
 * on would hand it to the client and the cache. Unbound's scrubber drops
 * such records ("normalize: removing irrelevant RRset"); so do we.
 */
import { splitLabels } from "../../dns/name.ts";
import { TYPE } from "../../dns/wire/constants.ts";
import { type MessageRecord, nameInRdata } from "./message_records.ts";

/**
 * Most names a chain may reach (the question's included); records past
 * them are dropped. Resolvers give up on CNAME chains sooner (Unbound after
 * about a dozen), and the bound keeps a hostile answer of thousands of
 * records from holding the listener.
 */
const MAX_CHAIN_NAMES = 32;

/** The question as the scrub needs it. */
export interface AskedQuestion {
  /** Lowercased presentation form (`Request.qname`). */
  name: string;
  type: number;
  class: number;
}

export interface AnswerChain {
  /** Indexes of the answer records kept (RRSIGs aside, answer_scrub.ts). */
  kept: Set<number>;
  /** The names the chain reached, the question's first: where the answer is. */
  reached: Set<string>;
  /**
   * The first name the chain led to that the upstream may not speak for
   * (see `speaksFor`): the chain stops before it, and nothing the
   * upstream said about it or beyond it is kept.
   */
  continueAt?: string;
}

/**
 * Whether the upstream that answered may speak for `name`, a name the
 * chain reached after the question's (names as readName renders them,
 * lowercased).
 */
export type SpeaksFor = (name: string) => boolean;

/**
 * The answer records (`answer`, indexes 0…n-1 of `message`'s records) on
 * the chain from the question's name: at each name it reaches, records of
 * the question's class that are of its type (any type for ANY) or a CNAME
 * leading on to its target; and a DNAME above a name, leading on to that
 * name rewritten (RFC 6672 §2.2, so its target's data stays even without
 * the synthesized CNAME); whatever the records' order. The chain stops at
 * the first name `speaksFor` rejects.
 *
 * @throws {WireFormatError} when a CNAME or DNAME target is malformed
 */
export function answerChain(
  message: Uint8Array,
  answer: MessageRecord[],
  question: AskedQuestion,
  speaksFor?: SpeaksFor,
): AnswerChain {
  const byOwner = new Map<string, number[]>();
  const dnames: { index: number; owner: string; target: string }[] = [];
  answer.forEach((record, i) => {
    if (record.class !== question.class) return;
    if (record.type === TYPE.DNAME) {
      const target = nameInRdata(message, record, 0);
      dnames.push({ index: i, owner: record.owner, target });
    }
    const list = byOwner.get(record.owner);
    if (list === undefined) byOwner.set(record.owner, [i]);
    else list.push(i);
  });
  const kept = new Set<number>();
  const reached = new Set<string>();
  let continueAt: string | undefined;
  const queue = [question.name];
  while (queue.length > 0 && reached.size < MAX_CHAIN_NAMES) {
    const name = queue.shift()!;
    if (reached.has(name)) continue;
    if (
      name !== question.name && speaksFor !== undefined && !speaksFor(name)
    ) {
      continueAt ??= name;
      continue;
    }
    reached.add(name);
    for (const i of byOwner.get(name) ?? []) {
      const record = answer[i]!;
      if (record.type === TYPE.CNAME) {
        kept.add(i);
        queue.push(nameInRdata(message, record, 0));
      } else if (isAsked(record.type, question.type)) {
        kept.add(i);
      }
    }
    for (const { index, owner, target } of dnames) {
      const rewritten = dnameRewrite(name, owner, target);
      if (rewritten === undefined) continue;
      kept.add(index);
      queue.push(rewritten);
    }
  }
  return continueAt === undefined
    ? { kept, reached }
    : { kept, reached, continueAt };
}

const TKEY = 249;

/**
 * Whether a record of `type` answers a question for `qtype`. Meta-types
 * (OPT, TKEY, TSIG) never do, not even for ANY: they only mean something
 * on the hop that carried them.
 */
function isAsked(type: number, qtype: number): boolean {
  if (type === TYPE.OPT || type === TKEY || type === TYPE.TSIG) return false;
  return qtype === TYPE.ANY || type === qtype;
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
