/**
 * The bounded map of cache entries. Two generations instead of a strict
 * LRU list, like the authoritative memo: a hit in the recent generation
 * costs one Map lookup (a strict LRU deletes and re-inserts on every hit).
 * New entries and hits on the older generation go into the recent one; when
 * it is full it becomes the older one and the previous older generation is
 * dropped. So an entry not read for a whole generation goes first, and at
 * most `limit` entries are kept (2 when `limit` is smaller).
 */
import type { CacheEntry } from "./cache_entry.ts";

export class AnswerCache {
  #recent = new Map<string, CacheEntry>();
  #older = new Map<string, CacheEntry>();
  #generation = 1;
  #limit = 0;
  /** Entries dropped with an older generation. */
  evictions = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** The most entries kept; lowering it takes effect on the next insert. */
  get limit(): number {
    return this.#limit;
  }

  set limit(limit: number) {
    this.#limit = limit;
    this.#generation = Math.max(1, Math.floor(limit / 2));
  }

  get size(): number {
    return this.#recent.size + this.#older.size;
  }

  get(key: string): CacheEntry | undefined {
    const entry = this.#recent.get(key);
    if (entry !== undefined) return entry;
    const old = this.#older.get(key);
    if (old === undefined) return undefined;
    this.#older.delete(key);
    this.#keep(key, old);
    return old;
  }

  set(entry: CacheEntry): void {
    this.#older.delete(entry.key);
    this.#keep(entry.key, entry);
  }

  delete(key: string): void {
    if (!this.#recent.delete(key)) this.#older.delete(key);
  }

  /** Every entry, the older generation first (least recently used first). */
  *entries(): IterableIterator<CacheEntry> {
    yield* this.#older.values();
    yield* this.#recent.values();
  }

  /**
   * Removes every entry, or those for `name` (any case, trailing dot
   * optional; every type and class). Returns how many went.
   */
  flush(name?: string): number {
    const before = this.size;
    if (name === undefined) {
      this.#recent = new Map();
      this.#older = new Map();
      return before;
    }
    let wanted = name.toLowerCase();
    if (!wanted.endsWith(".")) wanted += ".";
    for (const generation of [this.#recent, this.#older]) {
      for (const [key, entry] of generation) {
        if (entry.name === wanted) generation.delete(key);
      }
    }
    return before - this.size;
  }

  #keep(key: string, entry: CacheEntry): void {
    if (this.#recent.size >= this.#generation && !this.#recent.has(key)) {
      this.evictions += this.#older.size;
      this.#older = this.#recent;
      this.#recent = new Map();
    }
    this.#recent.set(key, entry);
  }
}
