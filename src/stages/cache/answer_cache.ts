/**
 * The bounded map of cache entries, by lowercased name: a name's entries
 * (one per type, class, DO, CD and ECS scope asked) sit in a short list and
 * are told apart by their variant number (cache_key.ts). A hit costs one
 * Map lookup by a name whose hash the authoritative stage already computed,
 * and no key string: building, flattening and hashing `name type class
 * bits` for every query cost more than the rest of the lookup.
 *
 * Two generations of names instead of a strict LRU list, like the
 * authoritative memo: a name found in the recent generation costs one Map
 * lookup (a strict LRU deletes and re-inserts on every hit). Names stored
 * or found in the older generation go into the recent one; once it holds
 * `limit / 2` entries it becomes the older one and the previous older
 * generation is dropped. So a name not asked for during a whole generation
 * goes first, and about `limit` entries are kept.
 */
import type { CacheEntry } from "./cache_entry.ts";

/**
 * Entries kept per name; past this many, the name's oldest goes, so one
 * client asking for every type of a name cannot make its lookups slow.
 */
export const MAX_ENTRIES_PER_NAME = 64;

export class AnswerCache {
  #recent = new Map<string, CacheEntry[]>();
  #older = new Map<string, CacheEntry[]>();
  /** Entries in each generation. */
  #recentSize = 0;
  #olderSize = 0;
  #generation = 1;
  #limit = 0;
  /** Entries dropped with an older generation or as a name's oldest. */
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
    return this.#recentSize + this.#olderSize;
  }

  /** The entry for `name` (lowercase) with `variant` and `scope` ("" for none). */
  get(name: string, variant: number, scope: string): CacheEntry | undefined {
    let list = this.#recent.get(name);
    if (list === undefined) {
      list = this.#older.get(name);
      if (list === undefined) return undefined;
      this.#older.delete(name);
      this.#olderSize -= list.length;
      this.#admit(name, list);
    }
    const index = indexOf(list, variant, scope);
    return index === -1 ? undefined : list[index];
  }

  /** Stores `entry`, replacing the one with the same name, variant and scope. */
  set(entry: CacheEntry): void {
    const list = this.#listFor(entry.name);
    const index = indexOf(list, entry.variant, entry.scope);
    if (index !== -1) {
      list[index] = entry;
    } else if (list.length >= MAX_ENTRIES_PER_NAME) {
      list.shift();
      list.push(entry);
      this.evictions++;
    } else {
      list.push(entry);
      if (++this.#recentSize > this.#generation) this.#rotate();
    }
  }

  /** Removes `entry` if it is still held. */
  delete(entry: CacheEntry): void {
    for (const recent of [true, false]) {
      const generation = recent ? this.#recent : this.#older;
      const list = generation.get(entry.name);
      const index = list === undefined ? -1 : list.indexOf(entry);
      if (index === -1) continue;
      list!.splice(index, 1);
      if (list!.length === 0) generation.delete(entry.name);
      if (recent) this.#recentSize--;
      else this.#olderSize--;
      return;
    }
  }

  /** Every entry, the older generation first (least recently used first). */
  *entries(): IterableIterator<CacheEntry> {
    for (const list of this.#older.values()) yield* list;
    for (const list of this.#recent.values()) yield* list;
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
      this.#recentSize = this.#olderSize = 0;
      return before;
    }
    let wanted = name.toLowerCase();
    if (!wanted.endsWith(".")) wanted += ".";
    this.#recentSize -= this.#recent.get(wanted)?.length ?? 0;
    this.#olderSize -= this.#older.get(wanted)?.length ?? 0;
    this.#recent.delete(wanted);
    this.#older.delete(wanted);
    return before - this.size;
  }

  /** The list of `name`'s entries, in the recent generation. */
  #listFor(name: string): CacheEntry[] {
    let list = this.#recent.get(name);
    if (list !== undefined) return list;
    list = this.#older.get(name);
    if (list !== undefined) {
      this.#older.delete(name);
      this.#olderSize -= list.length;
    }
    list ??= [];
    this.#admit(name, list);
    return list;
  }

  #admit(name: string, list: CacheEntry[]): void {
    if (this.#recentSize >= this.#generation) this.#rotate();
    this.#recent.set(name, list);
    this.#recentSize += list.length;
  }

  #rotate(): void {
    this.evictions += this.#olderSize;
    this.#older = this.#recent;
    this.#olderSize = this.#recentSize;
    this.#recent = new Map();
    this.#recentSize = 0;
  }
}

function indexOf(list: CacheEntry[], variant: number, scope: string): number {
  for (let i = 0; i < list.length; i++) {
    const entry = list[i]!;
    if (entry.variant === variant && entry.scope === scope) return i;
  }
  return -1;
}
