/**
 * The matcher's side of regex rules, built once per thread from RegexData:
 * the compiled expressions, a 64 Kibit filter plus buckets per key length
 * (3 and 4 characters), and the list of unindexed expressions.
 *
 * A lookup rolls a 4-character window over the name; only a window whose
 * filter bit is set costs a bucket lookup, and only the expressions in that
 * bucket are run. The result is the lowest id (arrival order) among the
 * matching expressions whose role is in the mask, so the reported rule does
 * not depend on where in the name its key sits.
 */

import type { RegexData } from "./layout.ts";

const NONE = 0x7fffffff;
const FILTER_WORDS = 2048; // 65,536 bits: ~1.5 % false positives at 1,000 keys

function filterBit(key: number): number {
  return Math.imul(key, 0x9e3779b1) >>> 16;
}

class KeyedBuckets {
  readonly filter = new Uint32Array(FILTER_WORDS);
  readonly buckets = new Map<number, Int32Array>();
  size = 0;

  static build(entries: Map<number, number[]>): KeyedBuckets {
    const b = new KeyedBuckets();
    for (const [key, ids] of entries) {
      const bit = filterBit(key);
      b.filter[bit >>> 5] = b.filter[bit >>> 5]! | (1 << (bit & 31));
      b.buckets.set(key, Int32Array.from(ids)); // ids arrive ascending
      b.size += ids.length;
    }
    return b;
  }

  has(key: number): boolean {
    const bit = filterBit(key);
    return (this.filter[bit >>> 5]! & (1 << (bit & 31))) !== 0;
  }
}

export class RegexIndex {
  /** Bit r is set when some expression has role r. */
  readonly roleMask: number;
  readonly sources: readonly string[];
  readonly roles: Uint8Array;
  private readonly regexes: RegExp[];
  private readonly unindexed: Int32Array;
  private readonly four: KeyedBuckets;
  private readonly three: KeyedBuckets;

  constructor(data: RegexData) {
    this.sources = data.sources;
    this.regexes = data.sources.map((s) => new RegExp(s));
    this.roles = Uint8Array.from(data.roles);
    let mask = 0;
    const unindexed: number[] = [];
    const four = new Map<number, number[]>();
    const three = new Map<number, number[]>();
    for (let id = 0; id < data.sources.length; id++) {
      mask |= 1 << this.roles[id]!;
      const length = data.keyLengths[id];
      const key = data.keys[id]!;
      const into = length === 4 ? four : length === 3 ? three : null;
      if (into === null) unindexed.push(id);
      else {
        const bucket = into.get(key);
        if (bucket === undefined) into.set(key, [id]);
        else bucket.push(id);
      }
    }
    this.roleMask = mask;
    this.unindexed = Int32Array.from(unindexed);
    this.four = KeyedBuckets.build(four);
    this.three = KeyedBuckets.build(three);
  }

  /**
   * The lowest id of an expression with a role in `mask` that matches
   * `subject` (the name without its trailing dot), or -1.
   */
  first(subject: string, mask: number): number {
    let best = NONE;
    const unindexed = this.unindexed;
    for (let k = 0; k < unindexed.length; k++) {
      const id = unindexed[k]!;
      if (id >= best) break;
      if (
        ((mask >>> this.roles[id]!) & 1) !== 0 &&
        this.regexes[id]!.test(subject)
      ) {
        best = id;
      }
    }
    const four = this.four.size > 0, three = this.three.size > 0;
    if (four || three) {
      let key = 0;
      for (let p = 0; p < subject.length; p++) {
        key = (key << 8) | (subject.charCodeAt(p) & 0xff);
        if (four && p >= 3 && this.four.has(key)) {
          best = this.tryBucket(
            this.four.buckets.get(key),
            subject,
            mask,
            best,
          );
        }
        if (three && p >= 2 && this.three.has(key & 0xffffff)) {
          best = this.tryBucket(
            this.three.buckets.get(key & 0xffffff),
            subject,
            mask,
            best,
          );
        }
      }
    }
    return best === NONE ? -1 : best;
  }

  private tryBucket(
    bucket: Int32Array | undefined,
    subject: string,
    mask: number,
    best: number,
  ): number {
    if (bucket === undefined) return best; // a filter false positive
    for (let k = 0; k < bucket.length; k++) {
      const id = bucket[k]!;
      if (id >= best) return best;
      if (
        ((mask >>> this.roles[id]!) & 1) !== 0 &&
        this.regexes[id]!.test(subject)
      ) {
        return id;
      }
    }
    return best;
  }
}
