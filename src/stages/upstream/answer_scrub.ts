/**
 * What an upstream's answer may carry before we pass it on and cache it,
 * after Unbound's scrubber (iterator/iter_scrub.c, scrub_normalize), which
 * a forwarding Unbound runs on every answer before believing any of it.
 * A record that fails is left out; nothing is added (no CNAME synthesized
 * from a DNAME). The cache keeps the whole message as one answer to one
 * question, but a client, or a cache downstream, may take any record in it
 * for the truth about its name: so what answers no question asked goes.
 */
import { dropRecords } from "../../dns/wire/drop_records.ts";
import { TYPE } from "../../dns/wire/constants.ts";
import type { Request } from "../../pipeline/request.ts";
import {
  answerChain,
  type AskedQuestion,
  type SpeaksFor,
} from "./answer_chain.ts";
import {
  ADDITIONAL,
  ANSWER,
  AUTHORITY,
  type MessageRecord,
  nameInRdata,
  readRecords,
  u16,
} from "./message_records.ts";

export type { AskedQuestion, SpeaksFor };

/** The question `req` forwarded (it has one: the stage forwards no other). */
export function askedQuestion(req: Request): AskedQuestion {
  const { type, class: qclass } = req.query.question!;
  return { name: req.qname, type, class: qclass };
}

const KX = 36;

/**
 * Types whose target name's addresses an answer may bring along in its
 * additional section (Unbound's get_additional_name, plus SVCB and HTTPS,
 * RFC 9460 §4.2): the octets before that name, and whether the root as
 * target stands for the owner (SVCB's ".", RFC 9460 §2.5).
 */
const TARGET_NAME: ReadonlyMap<number, { skip: number; rootIsOwner: boolean }> =
  new Map([
    [TYPE.NS, { skip: 0, rootIsOwner: false }],
    [TYPE.MX, { skip: 2, rootIsOwner: false }],
    [KX, { skip: 2, rootIsOwner: false }],
    [TYPE.SRV, { skip: 6, rootIsOwner: false }],
    [TYPE.SVCB, { skip: 2, rootIsOwner: true }],
    [TYPE.HTTPS, { skip: 2, rootIsOwner: true }],
  ]);

/** A scrubbed answer, and where its chain must be continued. */
export interface ScrubbedAnswer {
  message: Uint8Array;
  /** See AnswerChain.continueAt: the message's chain stops before it. */
  continueAt?: string;
}

/** {@linkcode scrubAnswer}'s message, for an upstream that speaks for every name. */
export function scrubbedAnswer(
  message: Uint8Array,
  question: AskedQuestion,
): Uint8Array {
  return scrubAnswer(message, question).message;
}

/**
 * `message`, an upstream's answer to `question`, with only:
 *
 * - answer: the chain from the question's name, and at each of its names
 *   the type asked for (answer_chain.ts), up to the first name the
 *   upstream may not speak for (`speaksFor`; `continueAt` names it);
 * - authority: SOA and NS records owned by a name of the chain or one
 *   above it (the zone that answered, and its servers; not another zone's
 *   servers), and the DNSSEC proofs DS, NSEC and NSEC3 (they only mean
 *   something to a validator, which checks them against the zone's keys);
 *   nothing else belongs there (RFC 2308 §2, RFC 4035 §3.1.3);
 * - additional: only A and AAAA records for a name that a record kept
 *   above names as a server (NS, MX, SRV, KX, SVCB, HTTPS), and the OPT
 *   record, left for forwarded_answer.ts. Unbound drops the other
 *   addresses, and NS, CNAME and DNAME, and keeps the rest; we drop the
 *   rest too: additional data is optional (RFC 2181 §9, a client asks
 *   again), what else comes there is rare (DNS-SD's SRV and TXT, RFC 6763
 *   §12), and it would go out unchecked. That includes a TSIG, TKEY or
 *   SIG(0): they belong to one hop's message (RFC 8945, RFC 2930, RFC
 *   2931), and a TSIG must be the last record, which it no longer is
 *   once our OPT follows (clients reject the message);
 * - in every section, records of the question's class only, and an RRSIG
 *   only beside the records it signs (same section, owner and type).
 *
 * `message` itself when nothing goes: the common case costs no copy.
 *
 * @throws {WireFormatError} when the message is malformed
 */
export function scrubAnswer(
  message: Uint8Array,
  question: AskedQuestion,
  speaksFor?: SpeaksFor,
): ScrubbedAnswer {
  const { records, opt } = readRecords(message);
  const answer = records.filter((r) => r.section === ANSWER);
  const chain = answerChain(message, answer, question, speaksFor);
  const scrubbed = (message: Uint8Array): ScrubbedAnswer =>
    chain.continueAt === undefined
      ? { message }
      : { message, continueAt: chain.continueAt };
  const kept = new Set(chain.kept);
  let zones: Set<string> | undefined; // most answers have no authority
  records.forEach((record, i) => {
    if (record.section !== AUTHORITY) return;
    zones ??= namesAndAncestors(chain.reached);
    if (inAuthority(record, zones, question)) kept.add(i);
  });
  const targets = serverNames(message, records, kept);
  records.forEach((record, i) => {
    if (
      record.section === ADDITIONAL && i !== opt &&
      inAdditional(record, targets, question)
    ) kept.add(i);
  });
  keepSignatures(message, records, kept, question);
  if (opt !== undefined) kept.add(opt);
  if (kept.size === records.length) return scrubbed(message);
  const drop = new Set<number>();
  for (let i = 0; i < records.length; i++) {
    if (!kept.has(i)) drop.add(i);
  }
  return scrubbed(dropRecords(throughOpt(message, records, opt), drop));
}

function inAuthority(
  record: MessageRecord,
  zones: ReadonlySet<string>,
  question: AskedQuestion,
): boolean {
  if (record.class !== question.class) return false;
  switch (record.type) {
    case TYPE.SOA:
    case TYPE.NS:
      return zones.has(record.owner);
    case TYPE.DS:
    case TYPE.NSEC:
    case TYPE.NSEC3:
      return true;
    default:
      return false; // RRSIGs: keepSignatures
  }
}

function inAdditional(
  record: MessageRecord,
  targets: ReadonlySet<string>,
  question: AskedQuestion,
): boolean {
  return record.class === question.class &&
    (record.type === TYPE.A || record.type === TYPE.AAAA) &&
    targets.has(record.owner);
}

/** The names whose addresses the kept answer and authority records ask for. */
function serverNames(
  message: Uint8Array,
  records: MessageRecord[],
  kept: ReadonlySet<number>,
): Set<string> {
  const names = new Set<string>();
  for (const i of kept) {
    const record = records[i]!;
    const target = TARGET_NAME.get(record.type);
    if (target === undefined || record.section === ADDITIONAL) continue;
    const name = nameInRdata(message, record, target.skip);
    names.add(name === "." && target.rootIsOwner ? record.owner : name);
  }
  return names;
}

/** Keeps each RRSIG whose records (same section, owner, covered type) are kept. */
function keepSignatures(
  message: Uint8Array,
  records: MessageRecord[],
  kept: Set<number>,
  question: AskedQuestion,
): void {
  if (!records.some((r) => r.type === TYPE.RRSIG)) return; // no DO, no cost
  const signed = new Set<string>();
  for (const i of kept) {
    const { section, owner, type } = records[i]!;
    signed.add(`${section} ${type} ${owner}`);
  }
  records.forEach((record, i) => {
    if (record.type !== TYPE.RRSIG || record.class !== question.class) return;
    if (record.rdata + 2 > record.end) return;
    const covered = u16(message, record.rdata);
    if (signed.has(`${record.section} ${covered} ${record.owner}`)) kept.add(i);
  });
}

/**
 * Every name in `names` and every name above it, the root included, as
 * readName writes them: a name above is what follows a dot that ends a
 * label (not an escaped one, `x\\.example.` is one label).
 */
function namesAndAncestors(names: Iterable<string>): Set<string> {
  const out = new Set<string>(["."]);
  for (const name of names) {
    out.add(name);
    for (let i = 0; i < name.length - 1; i++) {
      if (name[i] === "\\") i++;
      else if (name[i] === ".") out.add(name.slice(i + 1));
    }
  }
  return out;
}

/**
 * `message` without the records after its OPT record, which were not read
 * and which the client's answer leaves out anyway (a copy only when there
 * are such records, and only on the way to dropRecords, which copies).
 */
function throughOpt(
  message: Uint8Array,
  records: MessageRecord[],
  opt: number | undefined,
): Uint8Array {
  if (opt === undefined) return message;
  const additionalRead = records.length -
    records.findIndex((r) => r.section === ADDITIONAL);
  if (additionalRead === u16(message, 10)) return message;
  const cut = message.slice(0, records[opt]!.end);
  cut[10] = additionalRead >> 8;
  cut[11] = additionalRead & 0xff;
  return cut;
}
