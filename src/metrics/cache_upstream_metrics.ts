/**
 * The answer cache's and the upstream clients' metrics (kudurru_cache_*,
 * kudurru_upstream_*), from the workers' counter batches. Each worker has
 * its own cache, so the size gauge is the sum of the last size each worker
 * reported.
 */
import client from "prom-client";
import type { CacheStats } from "../pipeline/cache_stats.ts";
import type { UpstreamCounts } from "../upstream/upstream_counters.ts";
import { BulkSummary } from "./bulk_metrics.ts";
import { CappedLabel, isCount } from "./bounded_labels.ts";
import type { Registry } from "./registry.ts";

/** Distinct upstream servers kept as labels over the process's life. */
export const MAX_UPSTREAM_LABELS = 200;

/** Cache counts and the counter each goes to. */
const CACHE_COUNTERS: [Exclude<keyof CacheStats, "entries">, string, string][] =
  [
    ["hits", "kudurru_cache_hits_total", "Answers served from a fresh entry."],
    [
      "staleHits",
      "kudurru_cache_stale_hits_total",
      "Answers served from an expired entry because the upstreams failed (RFC 8767).",
    ],
    [
      "failureHits",
      "kudurru_cache_failure_hits_total",
      "SERVFAILs answered again from a failure the upstreams gave moments before, without asking them (RFC 9520; 1 s, doubling to 30 s while a question keeps failing).",
    ],
    [
      "misses",
      "kudurru_cache_misses_total",
      "Questions not answered from the cache (asked upstream or joined one in flight).",
    ],
    [
      "coalesced",
      "kudurru_cache_coalesced_total",
      "Misses that joined an identical question already in flight.",
    ],
    [
      "prefetches",
      "kudurru_cache_prefetches_total",
      "Background refreshes of hot entries near expiry.",
    ],
    ["inserts", "kudurru_cache_inserts_total", "Answers stored."],
    [
      "evictions",
      "kudurru_cache_evictions_total",
      "Entries dropped to keep the cache within its size bound.",
    ],
  ];

/** Creates the cache metrics; `record` takes one worker's cache delta. */
export function createCacheMetrics(registry: Registry) {
  const registers = [registry];
  const counters = CACHE_COUNTERS.map(([key, name, help]) => ({
    key,
    counter: new client.Counter({ name, help, registers }),
  }));
  /** The last size each worker reported, by worker. */
  const sizes = new Map<string, number>();
  new client.Gauge({
    name: "kudurru_cache_entries",
    help: "Answers held in the caches of all listener workers.",
    registers,
    collect() {
      let total = 0;
      for (const n of sizes.values()) total += n;
      this.set(total);
    },
  });
  return {
    record(stats: CacheStats, worker: string): void {
      for (const { key, counter } of counters) {
        const n = stats[key];
        if (isCount(n)) counter.inc(n);
      }
      const entries = stats.entries;
      if (typeof entries === "number" && Number.isFinite(entries)) {
        sizes.set(worker, Math.max(0, entries));
      }
    },
    /** A worker stopped: its cache is gone. */
    forget(worker: string): void {
      sizes.delete(worker);
    },
  };
}

/** Creates the upstream metrics; `record` takes one worker's upstream counts. */
export function createUpstreamMetrics(registry: Registry) {
  const registers = [registry];
  const queries = new client.Counter({
    name: "kudurru_upstream_queries_total",
    help: "Queries sent to an upstream server, by server as configured.",
    labelNames: ["upstream"] as const,
    registers,
  });
  const errors = new client.Counter({
    name: "kudurru_upstream_errors_total",
    help:
      "Upstream queries that failed, by server and reason: error (network error, unusable answer, failure rcode), malformed (an answer that does not parse: broken names in records, wrong record sizes) or timeout.",
    labelNames: ["upstream", "reason"] as const,
    registers,
  });
  const ednsFallbacks = new client.Counter({
    name: "kudurru_upstream_edns_fallbacks_total",
    help:
      "Queries asked again without EDNS after a server answered FORMERR or NOTIMP to EDNS, by server (RFC 6891 §7).",
    labelNames: ["upstream"] as const,
    registers,
  });
  const rtt = new BulkSummary({
    name: "kudurru_upstream_rtt_seconds",
    help:
      "Round-trip time of good upstream answers, by server (sum and count).",
    labelNames: ["upstream"] as const,
    registers,
  });
  const names = new CappedLabel(MAX_UPSTREAM_LABELS);
  return {
    record(counts: UpstreamCounts): void {
      for (const [server, c] of Object.entries(counts)) {
        if (c === null || typeof c !== "object") continue;
        const upstream = names.of(upstreamLabel(server));
        if (isCount(c.queries)) queries.inc({ upstream }, c.queries);
        // Malformed answers are counted among the errors too: apart here.
        const malformed = isCount(c.malformed) ? c.malformed : 0;
        if (isCount(c.errors) && c.errors > malformed) {
          errors.inc({ upstream, reason: "error" }, c.errors - malformed);
        }
        if (malformed > 0) {
          errors.inc({ upstream, reason: "malformed" }, malformed);
        }
        if (isCount(c.ednsFallbacks)) {
          ednsFallbacks.inc({ upstream }, c.ednsFallbacks);
        }
        if (isCount(c.timeouts)) {
          errors.inc({ upstream, reason: "timeout" }, c.timeouts);
        }
        rtt.add({ upstream }, c.answers, c.rttSumMs / 1000);
      }
    },
  };
}

/**
 * A DoH server's label without what follows its endpoint path: services
 * put an account ID there (`https://dns.nextdns.io/abc123`,
 * `…/dns-query/abc123`), and the metrics listener asks no one who they are.
 * Other servers are labelled as configured.
 */
export function upstreamLabel(server: string): string {
  const match = /^(https:\/\/[^/?#]+)(\/dns-query)?(\/[^?#]*)?$/i.exec(server);
  if (match === null) return server;
  const [, origin, endpoint = "", rest = ""] = match;
  const hidden = rest === "" || rest === "/" ? "" : "/…";
  return `${origin}${endpoint}${hidden}`;
}
