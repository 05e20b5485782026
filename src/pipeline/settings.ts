/**
 * The configuration sections the data plane answers with, carried in every
 * Snapshot so a worker needs nothing but the snapshot (ARCHITECTURE.md §3).
 */
import type { Config } from "../config/schema.ts";

export type UpstreamsSettings = Config["upstreams"];
export type CacheSettings = Config["cache"];
export type RateLimitSettings = Config["ratelimit"];

export interface DataPlaneSettings {
  upstreams: UpstreamsSettings;
  cache: CacheSettings;
  ratelimit: RateLimitSettings;
}
