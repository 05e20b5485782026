/** The cache stage's counts, read by the metrics drain and `kudurru cache` commands. */
export interface CacheStats {
  /** Answers served from a fresh entry. */
  hits: number;
  /** Answers served from an expired entry (RFC 8767). */
  staleHits: number;
  /** Failures answered again without asking upstream (RFC 9520). */
  failureHits: number;
  /** Questions that went on to the upstream (or joined one in flight). */
  misses: number;
  /** Misses that joined an identical question already in flight. */
  coalesced: number;
  /** Background refreshes of hot entries near expiry. */
  prefetches: number;
  /** Answers stored. */
  inserts: number;
  /** Entries dropped to keep the size bound. */
  evictions: number;
  /** Entries held now. */
  entries: number;
}

export function emptyCacheStats(): CacheStats {
  return {
    hits: 0,
    staleHits: 0,
    failureHits: 0,
    misses: 0,
    coalesced: 0,
    prefetches: 0,
    inserts: 0,
    evictions: 0,
    entries: 0,
  };
}

/**
 * What changed between two readings of `stats()`: the counts' differences
 * and the current `entries`. A count that went down (a new cache stage)
 * counts from zero again. Used by the listener worker to post deltas.
 */
export function cacheStatsDelta(
  now: CacheStats,
  before: CacheStats,
): CacheStats {
  const diff = (key: Exclude<keyof CacheStats, "entries">) =>
    now[key] >= before[key] ? now[key] - before[key] : now[key];
  return {
    hits: diff("hits"),
    staleHits: diff("staleHits"),
    failureHits: diff("failureHits"),
    misses: diff("misses"),
    coalesced: diff("coalesced"),
    prefetches: diff("prefetches"),
    inserts: diff("inserts"),
    evictions: diff("evictions"),
    entries: now.entries,
  };
}
