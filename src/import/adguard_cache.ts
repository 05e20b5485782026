/**
 * AdGuard Home's answer cache keys (`dns.cache_*`) as kudurru's `cache`
 * settings. AdGuard Home sizes its cache in bytes, kudurru in answers
 * (and bytes per listener worker), so the size is converted approximately.
 */
import { parseDuration } from "../config/duration.ts";
import { type ImportContext, seconds, type YamlMap } from "./import_context.ts";

/**
 * Bytes one cached answer takes in AdGuard Home's cache, roughly: a packed
 * message of a typical A or AAAA answer plus its key. Only for converting
 * `cache_size` into an entry count.
 */
const BYTES_PER_ANSWER = 128;

export function mapCache(
  ctx: ImportContext,
  dns: YamlMap,
): Record<string, unknown> | undefined {
  ctx.handle(
    "dns.cache_enabled",
    "dns.cache_size",
    "dns.cache_ttl_min",
    "dns.cache_ttl_max",
    "dns.cache_optimistic",
    "dns.cache_optimistic_answer_ttl",
    "dns.cache_optimistic_max_age",
  );
  const cache: Record<string, unknown> = {};
  const serveStale: Record<string, unknown> = {};
  if (dns.cache_enabled === false || dns.cache_size === 0) {
    cache.maxEntries = 0;
    ctx.mapped(
      dns.cache_enabled === false ? "dns.cache_enabled" : "dns.cache_size",
      "cache disabled",
      "cache.maxEntries: 0",
    );
  } else if (typeof dns.cache_size === "number" && dns.cache_size > 0) {
    const entries = Math.max(1, Math.floor(dns.cache_size / BYTES_PER_ANSWER));
    cache.maxEntries = entries;
    ctx.mapped(
      "dns.cache_size",
      `cache of ${dns.cache_size} bytes`,
      `cache.maxEntries: ${entries} (approximate: AdGuard Home counts bytes, kudurru answers; ~${BYTES_PER_ANSWER} bytes an answer)`,
    );
  }
  for (
    const [key, setting] of [["cache_ttl_min", "minTTL"], [
      "cache_ttl_max",
      "maxTTL",
    ]] as const
  ) {
    const value = dns[key];
    // 0 means "not overridden" in AdGuard Home.
    if (typeof value === "number" && Number.isInteger(value) && value > 0) {
      cache[setting] = seconds(value);
      ctx.mapped(
        `dns.${key}`,
        `${key} ${value}`,
        `cache.${setting}: ${seconds(value)}`,
      );
    }
  }
  if (typeof dns.cache_optimistic === "boolean") {
    serveStale.enabled = dns.cache_optimistic;
    ctx.mapped(
      "dns.cache_optimistic",
      `optimistic cache ${dns.cache_optimistic ? "on" : "off"}`,
      `cache.serveStale.enabled: ${dns.cache_optimistic} (kudurru serves stale answers when upstreams fail, RFC 8767; AdGuard Home serves them at once and refreshes behind)`,
    );
  }
  for (
    const [key, setting] of [["cache_optimistic_answer_ttl", "answerTTL"], [
      "cache_optimistic_max_age",
      "ttl",
    ]] as const
  ) {
    const value = dns[key];
    if (typeof value !== "string") continue;
    if (parseDuration(value) === undefined) {
      ctx.skipped(`dns.${key}`, value, "not a duration");
      continue;
    }
    serveStale[setting] = value;
    ctx.mapped(
      `dns.${key}`,
      `${key} ${value}`,
      `cache.serveStale.${setting}: ${value}`,
    );
  }
  if (Object.keys(serveStale).length > 0) cache.serveStale = serveStale;
  return Object.keys(cache).length > 0 ? cache : undefined;
}
