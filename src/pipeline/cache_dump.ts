/**
 * The answer cache as plain data, as the control plane handles it: what a
 * worker posts when it stops and takes back after a start (kept in
 * local.db in between), how much of it is kept, and how the dumps of
 * several workers become one. The cache stage makes and reads the entries
 * (src/stages/cache/cache_dump.ts).
 */

/**
 * What an entry costs besides its bytes (wire, TTL offsets and values, key
 * and name): the entry object, its three typed arrays and their buffers,
 * the name's list and Map slot. Measured with Deno 2.9.6 (V8 heap and
 * external memory after a GC, 200,000 NXDOMAIN entries of 83 octets each
 * through the stage): about 1,170 octets of heap and 100 of external
 * memory per entry, of which ~130 are the wire, offsets, key and name.
 */
export const ENTRY_OVERHEAD_BYTES = 1_150;

/** What entryBytes() reads: a CacheEntry, or one as plain data (cache_dump.ts). */
export interface SizedEntry {
  readonly key: string;
  readonly name: string;
  readonly wire: Uint8Array;
  /** One per TTL: an offset (2 octets) and a TTL (4 octets) are kept for each. */
  readonly offsets: { readonly length: number };
  readonly clientSubnet?: Uint8Array;
}

/**
 * The memory an entry holds, estimated: what `cache.maxBytes` and the dump
 * budget count.
 */
export function entryBytes(entry: SizedEntry): number {
  return ENTRY_OVERHEAD_BYTES + entry.wire.byteLength +
    6 * entry.offsets.length + (entry.clientSubnet?.byteLength ?? 0) +
    entry.key.length + entry.name.length;
}

/** Most entries one worker dumps (the most recently used are kept). */
export const MAX_DUMPED_ENTRIES = 50_000;

/**
 * Most bytes (answer_cache.ts entryBytes(): what the entries cost once
 * restored) one worker dumps, and the merged dump of all workers keeps:
 * the most recently used entries are kept. Every worker is handed the whole
 * merged dump after a restart, so this also bounds what one worker takes
 * from it (less when its `cache.maxBytes` is lower), and what local.db and
 * the main thread hold.
 */
export const MAX_DUMP_BYTES = 64 * 2 ** 20;

/** One cache entry as plain data (structured-clone and SQLite friendly). */
export interface SerializedEntry {
  key: string;
  /** The lowercased question name (per-name flushes). */
  name: string;
  /** Header, question and records, without an OPT record. */
  wire: Uint8Array;
  /** Offsets of the TTL fields in `wire`. */
  offsets: number[];
  /** The TTL each record was stored with, in seconds. */
  ttls: number[];
  /** Milliseconds since the epoch. */
  storedAt: number;
  expiresAt: number;
  /** Until when the entry may be served stale (== expiresAt without serve-stale). */
  staleUntil: number;
  /** Seconds from storedAt to expiresAt. */
  ttl: number;
  negative: boolean;
  /** The upstream's ECS option for the subnet asked with, if any. */
  clientSubnet?: Uint8Array;
  /**
   * When a refresh of the expired entry last failed, if it did: the worker
   * that takes a shared entry answers it stale at once too (RFC 8767 §4's
   * failure recheck timer), rather than ask the failing upstream again.
   * Not kept in local.db.
   */
  refreshFailedAt?: number;
}

/**
 * Merges the dumps of several workers (each least recently used first):
 * for a key in more than one, the entry stored last wins. At most `budget`
 * bytes (entryBytes()) are kept: the dumps are read from their most
 * recently used ends in turn, until the next entry does not fit. The
 * result is least recently used first too.
 */
export function mergeEntries(
  dumps: readonly (readonly SerializedEntry[])[],
  budget: number = MAX_DUMP_BYTES,
): SerializedEntry[] {
  const byKey = new Map<string, SerializedEntry>();
  let bytes = 0;
  const longest = Math.max(0, ...dumps.map((dump) => dump.length));
  for (let back = 1; back <= longest; back++) {
    for (const dump of dumps) {
      const entry = dump[dump.length - back];
      if (entry === undefined) continue;
      const held = byKey.get(entry.key);
      if (held !== undefined && entry.storedAt <= held.storedAt) continue;
      const more = entryBytes(entry) -
        (held === undefined ? 0 : entryBytes(held));
      if (bytes + more > budget) return [...byKey.values()].reverse();
      bytes += more;
      byKey.set(entry.key, entry);
    }
  }
  return [...byKey.values()].reverse();
}
