/**
 * The cache as plain data, so it can outlive a restart:
 * the worker posts it to the main thread on stop, the main thread keeps it
 * in local.db and posts it back after the next start. Times are wall-clock
 * milliseconds, so the age an entry had at the dump and the downtime both
 * count against its TTLs after the import.
 */
import { isClientSubnet } from "../../dns/wire/client_subnet.ts";
import type { AnswerCache } from "./answer_cache.ts";
import {
  entryBytes,
  MAX_DUMP_BYTES,
  MAX_DUMPED_ENTRIES,
  type SerializedEntry,
} from "../../pipeline/cache_dump.ts";
import { additionalSectionOf, type CacheEntry } from "./cache_entry.ts";
import { parseCacheKey } from "../../pipeline/cache_key.ts";

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
