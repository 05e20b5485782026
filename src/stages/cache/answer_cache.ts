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
 * `limit / 2` entries, or `maxBytes / 2` bytes (entryBytes()), it becomes
 * the older one and the previous older generation is dropped. So a name not
 * asked for during a whole generation goes first, and about `limit`
 * entries and `maxBytes` bytes are kept.
 */
import type { CacheEntry } from "./cache_entry.ts";
import { entryBytes } from "../../pipeline/cache_dump.ts";
import {
  flushedNamesOf,
  type FlushOptions,
} from "../../pipeline/flushed_names.ts";

/**
 * Entries kept per name; past this many, the name's oldest goes, so one
 * client asking for every type of a name cannot make its lookups slow.
 */
export const MAX_ENTRIES_PER_NAME = 64;

function listBytes(list: readonly CacheEntry[]): number {
  let bytes = 0;
  for (const entry of list) bytes += entryBytes(entry);
  return bytes;
}

export class AnswerCache {
  #recent = new Map<string, CacheEntry[]>();
  #older = new Map<string, CacheEntry[]>();
  /** Entries in each generation. */
  #recentSize = 0;
  #olderSize = 0;
  /** entryBytes() of the entries in each generation. */
  #recentBytes = 0;
  #olderBytes = 0;
  #generation = 1;
  #byteGeneration = Infinity;
  #limit = 0;
  #maxBytes = Infinity;
  /** Entries dropped with an older generation, as a name's oldest, or to meet a lower bound. */
  evictions = 0;

  constructor(limit: number, maxBytes = Infinity) {
    this.setLimits(limit, maxBytes);
  }

  /** The most entries kept. */
  get limit(): number {
    return this.#limit;
  }

  /** The most bytes kept (entryBytes()); Infinity: no byte bound. */
  get maxBytes(): number {
    return this.#maxBytes;
  }

  /**
   * Sets both bounds. When the cache holds more than they allow, the least
   * recently used names go at once (the older generation first, each in
   * the order its names came), until it fits.
   */
  setLimits(limit: number, maxBytes: number): void {
    this.#limit = limit;
    this.#maxBytes = maxBytes;
    this.#generation = Math.max(1, Math.floor(limit / 2));
    this.#byteGeneration = maxBytes / 2;
    if (this.size > limit || this.bytes > maxBytes) this.#trim();
  }

  get size(): number {
    return this.#recentSize + this.#olderSize;
  }

  /** entryBytes() of every entry held. */
  get bytes(): number {
    return this.#recentBytes + this.#olderBytes;
  }

  /** The entry for `name` (lowercase) with `variant` and `scope` ("" for none). */
  get(name: string, variant: number, scope: string): CacheEntry | undefined {
    let list = this.#recent.get(name);
    if (list === undefined) {
      list = this.#older.get(name);
      if (list === undefined) return undefined;
      this.#older.delete(name);
      const bytes = listBytes(list);
      this.#olderSize -= list.length;
      this.#olderBytes -= bytes;
      this.#admit(name, list, bytes);
    }
    const index = indexOf(list, variant, scope);
    return index === -1 ? undefined : list[index];
  }

  /** Stores `entry`, replacing the one with the same name, variant and scope. */
  set(entry: CacheEntry): void {
    const list = this.#listFor(entry.name);
    const index = indexOf(list, entry.variant, entry.scope);
    let bytes = entryBytes(entry);
    if (index !== -1) {
      bytes -= entryBytes(list[index]!);
      list[index] = entry;
    } else if (list.length >= MAX_ENTRIES_PER_NAME) {
      bytes -= entryBytes(list.shift()!);
      list.push(entry);
      this.evictions++;
    } else {
      list.push(entry);
      this.#recentSize++;
    }
    this.#recentBytes += bytes;
    if (
      this.#recentSize > this.#generation ||
      this.#recentBytes > this.#byteGeneration
    ) {
      this.#rotate();
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
      const bytes = entryBytes(entry);
      if (recent) {
        this.#recentSize--;
        this.#recentBytes -= bytes;
      } else {
        this.#olderSize--;
        this.#olderBytes -= bytes;
      }
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
   * optional; every type and class), and with `subtree` those of every
   * name below it too. Returns how many went.
   */
  flush(name?: string, opts: FlushOptions = {}): number {
    const before = this.size;
    const flushed = flushedNamesOf(name, opts);
    if (flushed === undefined) {
      this.#recent = new Map();
      this.#older = new Map();
      this.#recentSize = this.#olderSize = 0;
      this.#recentBytes = this.#olderBytes = 0;
      return before;
    }
    for (const recent of [true, false]) {
      const generation = recent ? this.#recent : this.#older;
      // One name: one lookup. A subtree: every name held is looked at.
      const names = flushed.subtree
        ? [...generation.keys()].filter(flushed.covers)
        : [flushed.name];
      for (const key of names) {
        const list = generation.get(key);
        if (list === undefined) continue;
        generation.delete(key);
        this.#forgetList(recent, list);
      }
    }
    return before - this.size;
  }

  /** Takes a list just removed from a generation out of its counts. */
  #forgetList(recent: boolean, list: CacheEntry[]): void {
    const bytes = listBytes(list);
    if (recent) {
      this.#recentSize -= list.length;
      this.#recentBytes -= bytes;
    } else {
      this.#olderSize -= list.length;
      this.#olderBytes -= bytes;
    }
  }

  /** The list of `name`'s entries, in the recent generation. */
  #listFor(name: string): CacheEntry[] {
    let list = this.#recent.get(name);
    if (list !== undefined) return list;
    list = this.#older.get(name);
    let bytes = 0;
    if (list !== undefined) {
      this.#older.delete(name);
      bytes = listBytes(list);
      this.#olderSize -= list.length;
      this.#olderBytes -= bytes;
    }
    list ??= [];
    this.#admit(name, list, bytes);
    return list;
  }

  #admit(name: string, list: CacheEntry[], bytes: number): void {
    if (
      this.#recentSize >= this.#generation ||
      this.#recentBytes >= this.#byteGeneration
    ) {
      this.#rotate();
    }
    this.#recent.set(name, list);
    this.#recentSize += list.length;
    this.#recentBytes += bytes;
  }

  #rotate(): void {
    this.evictions += this.#olderSize;
    this.#older = this.#recent;
    this.#olderSize = this.#recentSize;
    this.#olderBytes = this.#recentBytes;
    this.#recent = new Map();
    this.#recentSize = 0;
    this.#recentBytes = 0;
  }

  /** Drops the least recently used names until both bounds are met. */
  #trim(): void {
    for (const recent of [false, true]) {
      const generation = recent ? this.#recent : this.#older;
      for (const [name, list] of generation) {
        if (this.size <= this.#limit && this.bytes <= this.#maxBytes) return;
        generation.delete(name);
        this.evictions += list.length;
        this.#forgetList(recent, list);
      }
    }
  }
}

function indexOf(list: CacheEntry[], variant: number, scope: string): number {
  for (let i = 0; i < list.length; i++) {
    const entry = list[i]!;
    if (entry.variant === variant && entry.scope === scope) return i;
  }
  return -1;
}
