/** The cache stage; see README.md. */
export { createCacheStage } from "./cache.ts";
export type { CacheStage, CacheStageOptions } from "./cache_stage.ts";
export type { FlushOptions } from "./flushed_names.ts";
export type { CacheStats } from "./cache_stats.ts";
export { cacheKey, isCacheableQuery } from "./cache_key.ts";
export { EDE_STALE_ANSWER } from "./entry_answer.ts";
export {
  MAX_DUMPED_ENTRIES,
  mergeEntries,
  type SerializedEntry,
} from "./cache_dump.ts";
