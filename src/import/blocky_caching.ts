/**
 * blocky's `caching` → kudurru's `cache` settings
 * (docs/configuration.md#cache). blocky prefetches only when told to,
 * kudurru by default, so the threshold is written either way.
 */
import {
  blockyDurationMs,
  type BlockyImport,
  isMap,
  kudurruDuration,
  show,
  type YamlMap,
} from "./blocky_context.ts";

export function importCaching(imp: BlockyImport, doc: YamlMap): void {
  const section = doc.caching;
  if (!isMap(section)) return;
  const cache: Record<string, unknown> = {};
  const at = (key: string) => `caching.${key}`;
  const duration = (key: string) => blockyDurationMs(section[key]);
  const handled = new Set<string>();
  const take = (key: string) => {
    handled.add(key);
    return section[key] !== undefined;
  };
  if (take("minTime")) {
    const ms = duration("minTime");
    if (ms === undefined) {
      imp.skipped(at("minTime"), show(section.minTime), "not a duration");
    } else {
      // blocky: <= 0 keeps the answer's own TTL, i.e. no floor.
      cache.minTTL = kudurruDuration(Math.max(ms, 0));
      imp.mapped(
        at("minTime"),
        show(section.minTime),
        `cache.minTTL ${cache.minTTL}`,
      );
    }
  }
  if (take("maxTime")) {
    const ms = duration("maxTime");
    if (ms === undefined) {
      imp.skipped(at("maxTime"), show(section.maxTime), "not a duration");
    } else if (ms < 0) {
      cache.maxEntries = 0;
      imp.mapped(
        at("maxTime"),
        show(section.maxTime),
        "cache.maxEntries 0 (blocky: a negative maxTime caches nothing)",
      );
    } else if (ms === 0) {
      imp.skipped(
        at("maxTime"),
        show(section.maxTime),
        "0 keeps the answer's TTL; kudurru's cache.maxTTL (24h) stays",
      );
    } else {
      cache.maxTTL = kudurruDuration(ms);
      imp.mapped(
        at("maxTime"),
        show(section.maxTime),
        `cache.maxTTL ${cache.maxTTL}`,
      );
    }
  }
  if (take("maxItemsCount")) {
    const n = Number(section.maxItemsCount);
    if (Number.isInteger(n) && n > 0 && cache.maxEntries === undefined) {
      cache.maxEntries = Math.min(n, 100_000_000);
      imp.mapped(at("maxItemsCount"), String(n), "cache.maxEntries");
    } else {
      imp.skipped(
        at("maxItemsCount"),
        show(section.maxItemsCount),
        "0 is unlimited in blocky; kudurru's cache is always bounded (cache.maxEntries, cache.maxBytes)",
      );
    }
  }
  if (take("cacheTimeNegative")) {
    const ms = duration("cacheTimeNegative");
    if (ms === undefined) {
      imp.skipped(
        at("cacheTimeNegative"),
        show(section.cacheTimeNegative),
        "not a duration",
      );
    } else {
      cache.negativeTTL = kudurruDuration(Math.max(ms, 0));
      imp.mapped(
        at("cacheTimeNegative"),
        show(section.cacheTimeNegative),
        `cache.negativeTTL ${cache.negativeTTL}`,
      );
    }
  }
  take("prefetching");
  take("prefetchThreshold");
  take("prefetchExpires");
  if (section.prefetching === true) {
    const threshold = Number(section.prefetchThreshold ?? 5);
    const window = blockyDurationMs(section.prefetchExpires ?? "2h");
    cache.prefetch = {
      threshold: Number.isInteger(threshold) && threshold > 0 ? threshold : 5,
      ...(window !== undefined && window > 0 &&
        { window: kudurruDuration(window) }),
    };
    imp.mapped(
      at("prefetching"),
      "true",
      `cache.prefetch ${JSON.stringify(cache.prefetch)}`,
    );
  } else {
    cache.prefetch = { threshold: 0 };
    imp.mapped(
      at("prefetching"),
      show(section.prefetching ?? false),
      "cache.prefetch.threshold 0 (off, as in blocky)",
    );
  }
  for (const key of Object.keys(section)) {
    if (handled.has(key)) continue;
    imp.skipped(
      at(key),
      show(section[key]),
      key === "prefetchMaxItemsCount"
        ? "kudurru tracks prefetch candidates within the cache itself"
        : "no kudurru counterpart",
    );
  }
  imp.settings.cache = cache;
}
