/**
 * What the authoritative stage learned about each name in one snapshot,
 * keyed by the lowercased name: where a name that no primary zone answers
 * goes (its route), and the encoded answers to the questions asked about it
 * (docs/design.md#wire-fast-path). One Map lookup per query finds both.
 *
 * Keyed by the name alone, not by a string of name, type, size limit and
 * flags: building that string for every query, then flattening and hashing
 * it in a Map of 100,000 entries, cost more than any other part of a memo
 * hit (a perf profile of the UDP listener, docs/performance.md). The
 * question's other parts make a number, the variant, and a name's few
 * answers are found by comparing it.
 */
import { EDNS_OPTION } from "../../dns/wire/constants.ts";
import { patchQuestionCase } from "../../dns/wire/question_case.ts";
import { patchId } from "../../dns/wire/response.ts";
import type { Request } from "../../pipeline/request.ts";

/** @default routes and answers kept per snapshot */
export const DEFAULT_MEMO_ENTRIES = 100_000;

/**
 * @default estimated bytes of memory kept per snapshot. Without it, a flood
 * of random names under a zone (the "random subdomain" attack) filled the
 * 100,000 entries with answers of up to 64 KiB each (190 MB of a worker's
 * heap with 1,500-octet answers). It must hold a zone's working set in one
 * generation (half of it): a cyclic scan of names larger than a generation
 * misses on every query (32 MiB cut the dnsperf benchmark's 16,501 names
 * asked over UDP and TCP to a third of its rate).
 */
export const DEFAULT_MEMO_BYTES = 64 * 1024 * 1024;

/**
 * What a name and each of its answers cost besides their own characters
 * and octets: the Map entry and the facts object with its arrays, and each
 * answer's Uint8Array and ArrayBuffer. Measured with Deno.memoryUsage()
 * over 50,000 names of 100-octet answers: 548, 1,136 and 1,736 bytes of
 * heap and external memory per name with 1, 2 and 4 answers.
 */
const NAME_OVERHEAD = 192;
const ANSWER_OVERHEAD = 320;

/**
 * Answers kept per name. A name is asked for with a handful of types, with
 * and without EDNS and DO, over UDP and TCP; past this many, its oldest
 * answer goes, so one client cannot fill the memo with variants of a name.
 */
export const MAX_ANSWERS_PER_NAME = 16;

/** A name covered by a forward zone, or by no zone at all (`NO_ZONE`). */
export interface ZoneRoute {
  /** The forward zone covering the name; undefined for no zone. */
  zone: string | undefined;
  upstreamGroup: string | undefined;
}

/** The route of a name that no zone covers. */
export const NO_ZONE: ZoneRoute = Object.freeze({
  zone: undefined,
  upstreamGroup: undefined,
});

/** Hits, misses (answers encoded and kept) and entries of a memo. */
export interface MemoStats {
  hits: number;
  misses: number;
  /** Routes and answers kept. */
  entries: number;
  /** Their estimated bytes of memory. */
  bytes: number;
}

/** What is known about one name. */
export interface NameFacts {
  /** Set when no primary zone answers the name (except DS, see below). */
  route: ZoneRoute | undefined;
  /** `answers[i]` is the answer to `variants[i]`, oldest first. */
  variants: number[];
  answers: Uint8Array[];
}

const EDNS_NONE = 0, EDNS_PLAIN = 1, EDNS_DO = 2;

/**
 * What an encoded answer depends on besides the snapshot and the name (any
 * case: hits patch the case back), as one integer below 2^53: type and
 * class (16 bits each), the EDNS echo (none, OPT, OPT with DO), the copied
 * RD and CD bits, NSID asked, and the size limit (transport and payload
 * size, 16 bits). Undefined when the answer must not be memoised: options
 * other than NSID may differ per client (cookies).
 */
export function memoVariant(req: Request): number | undefined {
  const { query } = req;
  const question = query.question;
  if (question === undefined) return undefined;
  let nsid = 0;
  for (const option of req.answerOptions) {
    // NSID data is the node name, fixed for a snapshot.
    if (option.code !== EDNS_OPTION.NSID || nsid === 1) return undefined;
    nsid = 1;
  }
  const maxSize = req.maxSize;
  if (!(maxSize >= 0 && maxSize <= 0xffff)) return undefined;
  const edns = query.edns === undefined
    ? EDNS_NONE
    : query.edns.dnssecOk
    ? EDNS_DO
    : EDNS_PLAIN;
  const bits = edns * 8 + (query.rd ? 4 : 0) + (query.cd ? 2 : 0) + nsid;
  return ((question.type * 0x10000 + question.class) * 32 + bits) * 0x10000 +
    maxSize;
}

/**
 * One snapshot's facts, bounded by two generations instead of a strict LRU
 * list: a name found in the recent generation costs one Map lookup (a
 * strict LRU deletes and re-inserts on every hit, and the Map's tombstones
 * force rehashes). Names kept and names found in the older generation go
 * into the recent one; once it holds `limit / 2` routes and answers, or
 * `byteLimit / 2` estimated bytes, it becomes the older one and the
 * previous older one is dropped. So a name not asked for during a whole
 * generation goes, and about `limit` routes and answers and `byteLimit`
 * bytes are kept (a generation may overfill by one name's answers).
 *
 * Which zone covers a name depends on the name alone, except for DS at a
 * zone apex (RFC 4035 §3.1.4.1), so callers neither read nor keep routes for
 * DS queries; DS answers are kept like any other.
 */
export class NameMemo {
  #recent = new Map<string, NameFacts>();
  #older = new Map<string, NameFacts>();
  /** Routes and answers in each generation, and their estimated bytes. */
  #recentEntries = 0;
  #olderEntries = 0;
  #recentBytes = 0;
  #olderBytes = 0;
  readonly #generation: number;
  readonly #generationBytes: number;
  hits = 0;
  misses = 0;

  constructor(
    limit: number = DEFAULT_MEMO_ENTRIES,
    byteLimit: number = DEFAULT_MEMO_BYTES,
  ) {
    this.#generation = Math.max(1, Math.floor(limit / 2));
    this.#generationBytes = Math.max(1, Math.floor(byteLimit / 2));
  }

  /** Routes and answers kept. */
  get size(): number {
    return this.#recentEntries + this.#olderEntries;
  }

  /** Estimated bytes of memory the kept routes and answers take. */
  get bytes(): number {
    return this.#recentBytes + this.#olderBytes;
  }

  /** The facts about `name` (lowercase), undefined when there are none. */
  lookup(name: string): NameFacts | undefined {
    const facts = this.#recent.get(name);
    if (facts !== undefined) return facts;
    const old = this.#older.get(name);
    if (old === undefined) return undefined;
    this.#older.delete(name);
    const entries = entriesOf(old), bytes = bytesOf(name, old);
    this.#olderEntries -= entries;
    this.#olderBytes -= bytes;
    this.#admit(name, old, entries, bytes);
    return old;
  }

  /**
   * A copy of the answer to `variant` in `facts`, made out for `req` (ID and
   * question case), and the stored answer it was copied from.
   */
  answer(
    facts: NameFacts,
    variant: number,
    req: Request,
  ): { wire: Uint8Array; stored: Uint8Array } | undefined {
    const index = variantIndex(facts.variants, variant);
    if (index === -1) return undefined;
    const stored = facts.answers[index]!;
    const copy = patchId(stored, req.query.id);
    // The name ends before the question's type and class.
    const nameEnd = req.query.questionEnd - 4;
    if (!patchQuestionCase(copy, req.bytes, nameEnd)) return undefined;
    this.hits++;
    return { wire: copy, stored };
  }

  /** Remembers where `name` goes; `facts` is what lookup() returned. */
  keepRoute(
    name: string,
    facts: NameFacts | undefined,
    route: ZoneRoute,
  ): void {
    if (facts === undefined) {
      this.#add(name, { route, variants: [], answers: [] });
    } else if (facts.route === undefined) {
      facts.route = route;
      this.#grew(name, facts, 1, 0);
    }
  }

  /**
   * Keeps `wire` as the answer to `variant` (not copied: the caller must not
   * change it afterwards). Counted as a miss: only answers that could be
   * memoised count.
   */
  keepAnswer(
    name: string,
    facts: NameFacts | undefined,
    variant: number,
    wire: Uint8Array,
  ): void {
    this.misses++;
    if (facts === undefined) {
      this.#add(name, {
        route: undefined,
        variants: [variant],
        answers: [wire],
      });
      return;
    }
    const index = variantIndex(facts.variants, variant);
    if (index !== -1) {
      const replaced = facts.answers[index]!;
      facts.answers[index] = wire;
      this.#grew(name, facts, 0, wire.length - replaced.length);
      return;
    }
    let entries = 1, bytes = wire.length + ANSWER_OVERHEAD;
    if (facts.variants.length >= MAX_ANSWERS_PER_NAME) {
      facts.variants.shift();
      const dropped = facts.answers.shift()!;
      entries = 0;
      bytes -= dropped.length + ANSWER_OVERHEAD;
    }
    facts.variants.push(variant);
    facts.answers.push(wire);
    this.#grew(name, facts, entries, bytes);
  }

  #add(name: string, facts: NameFacts): void {
    // A name absent from lookup() is in neither generation.
    this.#admit(name, facts, entriesOf(facts), bytesOf(name, facts));
  }

  /**
   * Counts what was just added to `facts` (which lookup() put in `#recent`,
   * unless a rotation has moved it since).
   */
  #grew(name: string, facts: NameFacts, entries: number, bytes: number): void {
    if (this.#recent.get(name) === facts) {
      // Names already kept grow too: rotate once they overfill it.
      this.#recentEntries += entries;
      this.#recentBytes += bytes;
      if (this.#overfull()) this.#rotate();
      return;
    }
    // A rotation since lookup() moved it to the older generation.
    if (this.#older.get(name) === facts) {
      this.#older.delete(name);
      this.#olderEntries -= entriesOf(facts) - entries;
      this.#olderBytes -= bytesOf(name, facts) - bytes;
    }
    this.#admit(name, facts, entriesOf(facts), bytesOf(name, facts));
  }

  #admit(name: string, facts: NameFacts, entries: number, bytes: number) {
    if (this.#full()) this.#rotate();
    this.#recent.set(name, facts);
    this.#recentEntries += entries;
    this.#recentBytes += bytes;
  }

  #full(): boolean {
    return this.#recentEntries >= this.#generation ||
      this.#recentBytes >= this.#generationBytes;
  }

  #overfull(): boolean {
    return this.#recentEntries > this.#generation ||
      this.#recentBytes > this.#generationBytes;
  }

  #rotate(): void {
    this.#older = this.#recent;
    this.#olderEntries = this.#recentEntries;
    this.#olderBytes = this.#recentBytes;
    this.#recent = new Map();
    this.#recentEntries = 0;
    this.#recentBytes = 0;
  }
}

function entriesOf(facts: NameFacts): number {
  return facts.answers.length + (facts.route === undefined ? 0 : 1);
}

/** The estimated memory a name's facts take (see NAME_OVERHEAD). */
function bytesOf(name: string, facts: NameFacts): number {
  let bytes = NAME_OVERHEAD + name.length;
  for (const answer of facts.answers) bytes += answer.length + ANSWER_OVERHEAD;
  return bytes;
}

/**
 * `variants.indexOf(variant)` as a loop: variants are doubles (above 2^31),
 * and for the one to three a name has, the builtin's call cost more than
 * the search (ArrayIndexOfPackedDoubles: ~1.5 % of a listener's ticks
 * under dnsperf, V8 --prof).
 */
function variantIndex(variants: number[], variant: number): number {
  for (let i = 0; i < variants.length; i++) {
    if (variants[i] === variant) return i;
  }
  return -1;
}
