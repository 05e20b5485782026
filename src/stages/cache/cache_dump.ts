/**
 * The cache as plain data, so it can outlive a restart:
 * the worker posts it to the main thread on stop, the main thread keeps it
 * in local.db and posts it back after the next start. Times are wall-clock
 * milliseconds, so the age an entry had at the dump and the downtime both
 * count against its TTLs after the import.
 */
import { isClientSubnet } from "../../dns/wire/mod.ts";
import { type AnswerCache, entryBytes } from "./answer_cache.ts";
import { additionalSectionOf, type CacheEntry } from "./cache_entry.ts";
import { parseCacheKey } from "./cache_key.ts";

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
 * The most recently used of the entries still usable at `now` (fresh, or
 * within `staleMs` past expiry), at most `limit` of them and `budget`
 * bytes (entryBytes()), least recently used first. Only those are copied:
 * a first pass counts what is usable, and the second skips the least
 * recently used that do not fit.
 */
export function exportEntries(
  cache: AnswerCache,
  now: number,
  staleMs: number,
  limit: number = MAX_DUMPED_ENTRIES,
  budget: number = MAX_DUMP_BYTES,
): SerializedEntry[] {
  let count = 0, bytes = 0;
  for (const entry of cache.entries()) {
    if (now >= entry.expiresAt + staleMs) continue;
    count++;
    bytes += entryBytes(entry);
  }
  const out: SerializedEntry[] = [];
  for (const entry of cache.entries()) {
    if (now >= entry.expiresAt + staleMs) continue;
    if (count > limit || bytes > budget) {
      count--;
      bytes -= entryBytes(entry);
      continue;
    }
    out.push(serializeEntry(entry, staleMs));
  }
  return out;
}

/** One entry as plain data (copies: safe to post or keep). */
export function serializeEntry(
  entry: CacheEntry,
  staleMs: number,
): SerializedEntry {
  return {
    key: entry.key,
    name: entry.name,
    wire: entry.wire.slice(),
    offsets: Array.from(entry.offsets),
    ttls: Array.from(entry.ttls),
    storedAt: entry.storedAt,
    expiresAt: entry.expiresAt,
    staleUntil: entry.expiresAt + staleMs,
    ttl: entry.ttl,
    negative: entry.negative,
    ...(entry.clientSubnet && { clientSubnet: entry.clientSubnet.slice() }),
    ...(entry.refreshFailedAt !== undefined &&
      { refreshFailedAt: entry.refreshFailedAt }),
  };
}

/**
 * Puts `entries` into `cache`, in order (the last ones count as the most
 * recently used). Skips entries past their stale limit at `now`, stored in
 * the future, malformed, or older than an entry already held for the key;
 * the same entry again (stored at the same time) only brings its failed
 * refresh along. Returns how many were taken.
 */
export function importEntries(
  cache: AnswerCache,
  entries: readonly unknown[],
  now: number,
): number {
  let taken = 0;
  for (const raw of entries) {
    const entry = toEntry(raw, now);
    if (entry === undefined) continue;
    const held = cache.get(entry.name, entry.variant, entry.scope);
    if (held !== undefined && held.storedAt >= entry.storedAt) {
      if (held.storedAt === entry.storedAt) noteFailedRefresh(held, entry);
      continue;
    }
    cache.set(entry);
    taken++;
  }
  return taken;
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

/** The later of two failed refreshes of one entry, held by two workers. */
function noteFailedRefresh(held: CacheEntry, shared: CacheEntry): void {
  const failed = shared.refreshFailedAt;
  if (failed === undefined) return;
  if (held.refreshFailedAt === undefined || held.refreshFailedAt < failed) {
    held.refreshFailedAt = failed;
  }
}

/** A cache entry from untrusted plain data, or undefined when it does not hold together. */
function toEntry(raw: unknown, now: number): CacheEntry | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const e = raw as Partial<Record<keyof SerializedEntry, unknown>>;
  if (typeof e.key !== "string" || e.key === "") return undefined;
  if (typeof e.name !== "string") return undefined;
  const made = parseCacheKey(e.key, e.name);
  if (made === undefined) return undefined;
  if (!(e.wire instanceof Uint8Array) || e.wire.length < 12) return undefined;
  if (!isWholeArray(e.offsets) || !isWholeArray(e.ttls)) return undefined;
  if (e.offsets.length !== e.ttls.length) return undefined;
  const wire = e.wire;
  if (e.offsets.some((at) => at < 12 || at + 4 > wire.length || at > 0xffff)) {
    return undefined;
  }
  if (e.ttls.some((ttl) => ttl > 0xffffffff)) return undefined;
  const { storedAt, expiresAt, staleUntil, ttl } = e;
  if (!isWhole(storedAt) || !isWhole(expiresAt) || !isWhole(staleUntil)) {
    return undefined;
  }
  if (!isWhole(ttl) || ttl <= 0 || typeof e.negative !== "boolean") {
    return undefined;
  }
  if (expiresAt <= storedAt || staleUntil < expiresAt) return undefined;
  if (storedAt > now || now >= staleUntil) return undefined;
  const failed = e.refreshFailedAt;
  if (failed !== undefined && !isWhole(failed)) return undefined;
  const additional = additionalSectionOf(wire, e.offsets);
  if (additional === undefined) return undefined;
  const subnet = e.clientSubnet;
  if (
    subnet !== undefined &&
    !(subnet instanceof Uint8Array && isClientSubnet(subnet))
  ) {
    return undefined;
  }
  return {
    key: e.key,
    name: e.name,
    variant: made.variant,
    scope: made.scope,
    wire: wire.slice(),
    offsets: Uint16Array.from(e.offsets),
    ttls: Uint32Array.from(e.ttls),
    additional,
    storedAt,
    expiresAt,
    ttl,
    negative: e.negative,
    ...(subnet !== undefined && { clientSubnet: subnet.slice() }),
    ...(failed !== undefined && { refreshFailedAt: failed }),
    hits: 0,
    windowStart: now,
    prefetching: false,
    // Dumps and shares reach every listener worker: nothing to hand on.
    shared: true,
  };
}

function isWhole(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isWholeArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.every(isWhole);
}
