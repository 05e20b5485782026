/**
 * Encoded authoritative answers, memoised per snapshot (ARCHITECTURE.md §4):
 * a hit copies the bytes and patches the ID and the question's case instead
 * of encoding again. Bounded; answers not read for a while go first.
 */
import { EDNS_OPTION, patchId, patchQuestionCase } from "../../dns/wire/mod.ts";
import type { Request } from "../../pipeline/mod.ts";

/** @default entries of a memo */
export const DEFAULT_MEMO_ENTRIES = 100_000;

/**
 * What an encoded answer depends on besides the snapshot: the name (any
 * case: hits patch the case back), type and class, the EDNS echo (OPT
 * present, DO), the size limit (transport and payload size), the copied RD
 * and CD bits, and the answer's EDNS options. Undefined when the answer must
 * not be memoised: options other than NSID may differ per client (cookies).
 */
export function memoKey(req: Request): string | undefined {
  const { query } = req;
  const question = query.question;
  if (question === undefined) return undefined;
  let options = "";
  for (const option of req.answerOptions) {
    if (option.code !== EDNS_OPTION.NSID) return undefined;
    options += "n"; // NSID data is the node name, fixed for a snapshot
  }
  const edns = query.edns === undefined ? "-" : query.edns.dnssecOk ? "D" : "E";
  const flags = (query.rd ? "r" : "") + (query.cd ? "c" : "");
  return `${req.qname} ${question.type} ${question.class} ${edns}${flags}${options} ${req.maxSize}`;
}

/** Hits, misses (answers encoded and kept) and entries of a memo. */
export interface MemoStats {
  hits: number;
  misses: number;
  entries: number;
}

/**
 * One snapshot's memo, bounded by two generations instead of a strict LRU
 * list: hits in the recent generation cost one Map lookup (a strict LRU
 * deletes and re-inserts on every hit, and the Map's tombstones force
 * rehashes). New answers and hits on the older generation go into the
 * recent one; when it is full it becomes the older one and the previous
 * older generation is dropped. So an answer not read for a whole generation
 * goes, and at most `limit` answers are kept (2 when `limit` is smaller).
 */
export class AnswerMemo {
  #recent = new Map<string, Uint8Array>();
  #older = new Map<string, Uint8Array>();
  readonly #generation: number;
  hits = 0;
  misses = 0;

  constructor(limit: number = DEFAULT_MEMO_ENTRIES) {
    this.#generation = Math.max(1, Math.floor(limit / 2));
  }

  get size(): number {
    return this.#recent.size + this.#older.size;
  }

  /**
   * A copy of the answer for `key`, made out for `req` (ID and question
   * case), and the stored answer it was copied from.
   */
  get(
    key: string,
    req: Request,
  ): { wire: Uint8Array; stored: Uint8Array } | undefined {
    let stored = this.#recent.get(key);
    if (stored === undefined) {
      stored = this.#older.get(key);
      if (stored === undefined) return undefined;
      this.#older.delete(key);
      this.#keep(key, stored);
    }
    const copy = patchId(stored, req.query.id);
    // The name ends before the question's type and class.
    const nameEnd = req.query.questionEnd - 4;
    if (!patchQuestionCase(copy, req.bytes, nameEnd)) return undefined;
    this.hits++;
    return { wire: copy, stored };
  }

  /**
   * Keeps `wire` (not copied: the caller must not change it afterwards).
   * Counted as a miss: only answers that could be memoised count.
   */
  set(key: string, wire: Uint8Array): void {
    this.misses++;
    this.#older.delete(key);
    this.#keep(key, wire);
  }

  #keep(key: string, wire: Uint8Array): void {
    if (this.#recent.size >= this.#generation && !this.#recent.has(key)) {
      this.#older = this.#recent;
      this.#recent = new Map();
    }
    this.#recent.set(key, wire);
  }
}
