/**
 * The configuration sections the data plane answers with, carried in every
 * Snapshot so a worker needs nothing but the snapshot
 * (docs/design.md#serve-from-memory).
 */
import type { Config } from "../config/schema.ts";
import { toFqdn } from "../dns/name.ts";

export type UpstreamsSettings = Config["upstreams"];
export type CacheSettings = Config["cache"];
export type RateLimitSettings = Config["ratelimit"];

export interface DataPlaneSettings {
  upstreams: UpstreamsSettings;
  cache: CacheSettings;
  ratelimit: RateLimitSettings;
}

/**
 * Lowercase FQDN with exactly one trailing dot ("." for the root), the one
 * spelling `upstreams.conditional` keys are compared in. It lives here
 * because two stages compare those keys with query names (local yields to
 * them, upstream routes by them), and a second spelling in one of them makes
 * an entry that routes but does not yield, or the reverse.
 *
 * One leading dot is dropped: dnsmasq reads `server=/.corp.example/` as
 * `/corp.example/` (its "historical" form), and operators copy that spelling;
 * kept, ".corp.example." would be a suffix of no name.
 */
export function normalizeDomain(domain: string): string {
  const lower = domain.trim().toLowerCase();
  return toFqdn(
    lower.length > 1 && lower.startsWith(".") ? lower.slice(1) : lower,
  );
}
