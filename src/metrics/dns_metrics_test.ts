import assert from "node:assert/strict";
import type { CounterDeltas } from "../listeners/worker_messages.ts";
import { emptySocketCounters } from "../listeners/worker_messages.ts";
import type { Response } from "../pipeline/response.ts";
import { createStageCounters } from "../pipeline/stage_counters.ts";
import type { Status } from "../pipeline/status.ts";
import { emptyCacheStats } from "../pipeline/cache_stats.ts";
import { UpstreamCounters } from "../upstream/upstream_counters.ts";
import { createDnsMetrics } from "./dns_metrics.ts";
import { MAX_LIST_LABELS } from "./query_metrics.ts";
import { newRegistry } from "./registry.ts";
import { sample, typeOf } from "./testdata/prom_text.ts";

const UDP = { transport: "udp", hostname: "127.0.0.1", port: 53 };
const TCP = { transport: "tcp", hostname: "127.0.0.1", port: 53 };

/** One worker's batch, counted the way a worker counts. */
function batch(fill: (c: ReturnType<typeof createStageCounters>) => void) {
  const counters = createStageCounters();
  fill(counters);
  return {
    socket: emptySocketCounters(),
    handler: counters.drain(),
    detail: counters.drainDetail(),
  } satisfies CounterDeltas;
}

const answer = (rcode: number, status: Status = "forwarded"): Response => ({
  message: { id: 1, opcode: 0, rcode },
  status,
  stage: "upstream",
});

Deno.test("record adds worker batches into the kudurru_dns_* metrics", async () => {
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  metrics.record(
    batch((c) => {
      c.countQuery("udp", 1);
      c.countQuery("udp", 1);
      c.countQuery("udp", 28);
      c.countQuery("udp", 99);
      c.countResponse(answer(0), 300);
      c.countResponse(answer(0), 2_000);
      c.countResponse(answer(3), 40_000);
      c.countResponse({ drop: true, status: "dropped", stage: "ingress" }, 20);
      c.countStageError("cache");
    }),
    UDP,
  );
  metrics.record(
    batch((c) => {
      c.countQuery("tcp", 1);
      c.countResponse(answer(2, "servfail"), 7_000_000);
    }),
    TCP,
  );
  const text = await registry.metrics();
  const q = (transport: string, qtype: string) =>
    sample(text, "kudurru_dns_queries_total", { transport, qtype });
  assert.deepEqual(
    [q("udp", "A"), q("udp", "AAAA"), q("udp", "OTHER"), q("tcp", "A")],
    [2, 1, 1, 1],
  );
  const r = (status: string, rcode: string) =>
    sample(text, "kudurru_dns_responses_total", { status, rcode });
  assert.deepEqual(
    [
      r("forwarded", "NOERROR"),
      r("forwarded", "NXDOMAIN"),
      r("servfail", "SERVFAIL"),
    ],
    [2, 1, 1],
  );
  assert.equal(
    sample(text, "kudurru_dns_dropped_total", { reason: "dropped" }),
    1,
  );
  assert.equal(
    sample(text, "kudurru_dns_stage_errors_total", { stage: "cache" }),
    1,
  );
  assert.equal(
    typeOf(text, "kudurru_dns_request_duration_seconds"),
    "histogram",
  );
  const bucket = (transport: string, le: string) =>
    sample(text, "kudurru_dns_request_duration_seconds_bucket", {
      transport,
      le,
    });
  assert.deepEqual(
    [
      bucket("udp", "0.00005"),
      bucket("udp", "0.0005"),
      bucket("udp", "0.0025"),
      bucket("udp", "0.05"),
      bucket("udp", "+Inf"),
    ],
    [1, 2, 3, 4, 4],
  );
  assert.equal(bucket("tcp", "5"), 0);
  assert.equal(bucket("tcp", "+Inf"), 1);
  const sum = sample(text, "kudurru_dns_request_duration_seconds_sum", {
    transport: "udp",
  })!;
  assert.ok(Math.abs(sum - 0.04232) < 1e-9, `sum ${sum}`);
});

Deno.test("record counts socket events, blocks by list and rate limiting", async () => {
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  const deltas = batch((c) => {
    for (const list of ["ads/oisd", "ads/oisd", "trackers/easyprivacy"]) {
      c.countResponse({
        ...answer(3, "blocked_list"),
        stage: "blocking",
        list,
      });
    }
    c.countResponse({ drop: true, status: "rate_limited", stage: "ingress" });
    c.countResponse({ ...answer(0, "rate_limited"), stage: "ingress" });
    for (let i = 0; i < 4; i++) {
      c.countResponse({ drop: true, status: "overloaded", stage: "upstream" });
    }
  });
  deltas.socket = {
    ...emptySocketCounters(),
    udpStopping: 3,
    udpOversize: 6,
    sendErrors: 2,
    tcpAccepted: 3,
    tcpRejected: 1,
    tcpEvicted: 7,
    tcpResetBeforeAccept: 9,
  };
  metrics.record({ ...deltas, rateLimit: { bucketsEvicted: 5 } }, UDP);
  const text = await registry.metrics();
  assert.equal(sample(text, "kudurru_blocked_total", { list: "ads/oisd" }), 2);
  assert.equal(
    sample(text, "kudurru_blocked_total", { list: "trackers/easyprivacy" }),
    1,
  );
  assert.equal(
    sample(text, "kudurru_ratelimit_limited_total", { action: "drop" }),
    1,
  );
  assert.equal(
    sample(text, "kudurru_ratelimit_limited_total", { action: "truncate" }),
    1,
  );
  assert.equal(sample(text, "kudurru_ratelimit_buckets_evicted_total", {}), 5);
  assert.equal(
    sample(text, "kudurru_dns_dropped_total", { reason: "overloaded" }),
    4,
  );
  assert.equal(
    sample(text, "kudurru_dns_dropped_total", { reason: "shutting_down" }),
    3,
  );
  assert.equal(sample(text, "kudurru_dns_udp_oversize_total", {}), 6);
  assert.equal(
    sample(text, "kudurru_dns_send_errors_total", { transport: "udp" }),
    2,
  );
  assert.equal(
    sample(text, "kudurru_dns_tcp_connections_total", { event: "accepted" }),
    3,
  );
  assert.equal(
    sample(text, "kudurru_dns_tcp_connections_total", { event: "rejected" }),
    1,
  );
  assert.equal(
    sample(text, "kudurru_dns_tcp_connections_total", { event: "evicted" }),
    7,
  );
  assert.equal(
    sample(text, "kudurru_dns_tcp_connections_total", {
      event: "reset_before_accept",
    }),
    9,
  );
});

Deno.test("record keeps every label set bounded, whatever a batch says", async () => {
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  // More lists over time than the main thread keeps as labels.
  for (let round = 0; round < 3; round++) {
    metrics.record(
      batch((c) => {
        for (let i = 0; i < 200; i++) {
          c.countResponse({
            ...answer(3, "blocked_list"),
            stage: "blocking",
            list: `list-${round}-${i}`,
          });
        }
      }),
      UDP,
    );
  }
  // A batch with labels no worker should send.
  const odd = batch(() => {});
  odd.detail.queriesByType = { udp: { BOGUS: 2 } } as never;
  odd.detail.answers = { made_up: { NOERROR: 1, WEIRD: 1 } } as never;
  metrics.record(odd, { transport: "carrier-pigeon" });
  const text = await registry.metrics();
  const lists = text.split("\n").filter((l) =>
    l.startsWith("kudurru_blocked_total{")
  );
  assert.equal(lists.length, MAX_LIST_LABELS + 1);
  assert.equal(sample(text, "kudurru_blocked_total", { list: "other" }), 100);
  assert.equal(
    sample(text, "kudurru_dns_queries_total", {
      transport: "udp",
      qtype: "OTHER",
    }),
    2,
  );
  assert.equal(
    sample(text, "kudurru_dns_responses_total", {
      status: "other",
      rcode: "OTHER",
    }),
    1,
  );
});

Deno.test("record survives batches with missing parts and bad numbers", async () => {
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  metrics.record({ socket: emptySocketCounters() }, UDP);
  metrics.record(null as never, UDP);
  const bad = batch((c) => c.countQuery("udp", 1));
  bad.detail.queriesByType = { udp: { A: Number.NaN, AAAA: -3, MX: 2 } };
  bad.detail.durations = { counts: [1], sumUs: 5 }; // wrong length: ignored
  metrics.record(bad, UDP);
  const text = await registry.metrics();
  const q = (qtype: string) =>
    sample(text, "kudurru_dns_queries_total", { transport: "udp", qtype });
  assert.deepEqual([q("A"), q("AAAA"), q("MX")], [undefined, undefined, 2]);
  assert.equal(
    sample(text, "kudurru_dns_request_duration_seconds_count", {
      transport: "udp",
    }),
    undefined,
  );
});

Deno.test("record adds cache counts and sums the cache size over workers", async () => {
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  const cache = (over: Partial<ReturnType<typeof emptyCacheStats>>) => ({
    socket: emptySocketCounters(),
    cache: { ...emptyCacheStats(), ...over },
  });
  metrics.record(cache({ hits: 5, misses: 2, inserts: 2, entries: 2 }), UDP);
  metrics.record(
    cache({ hits: 1, staleHits: 1, evictions: 1, prefetches: 3, entries: 10 }),
    TCP,
  );
  metrics.record(cache({ misses: 1, entries: 3 }), UDP); // UDP's size is now 3
  let text = await registry.metrics();
  assert.equal(sample(text, "kudurru_cache_hits_total"), 6);
  assert.equal(sample(text, "kudurru_cache_misses_total"), 3);
  assert.equal(sample(text, "kudurru_cache_stale_hits_total"), 1);
  assert.equal(sample(text, "kudurru_cache_evictions_total"), 1);
  assert.equal(sample(text, "kudurru_cache_prefetches_total"), 3);
  assert.equal(sample(text, "kudurru_cache_entries"), 13);
  metrics.forgetWorker(TCP);
  text = await registry.metrics();
  assert.equal(sample(text, "kudurru_cache_entries"), 3);
});

Deno.test("kudurru_cache_entries sums the sockets that share one address (listeners.sockets), each a cache of its own", async () => {
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  const sized = (entries: number) => ({
    socket: emptySocketCounters(),
    cache: { ...emptyCacheStats(), entries },
  });
  const at = { transport: "tcp", hostname: "127.0.0.1", port: 53 };
  metrics.record(sized(4), { ...at, socket: 0 });
  metrics.record(sized(6), { ...at, socket: 1 });
  metrics.record(sized(5), { ...at, socket: 0 }); // socket 0 now holds 5
  assert.equal(sample(await registry.metrics(), "kudurru_cache_entries"), 11);
  metrics.forgetWorker({ ...at, socket: 1 });
  assert.equal(sample(await registry.metrics(), "kudurru_cache_entries"), 5);
});

/** The metrics text after one worker recorded the upstream counts `count` made. */
async function upstreamMetricsText(
  count: (counters: UpstreamCounters) => void,
): Promise<string> {
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  const counters = new UpstreamCounters();
  count(counters);
  metrics.record(
    { socket: emptySocketCounters(), upstream: counters.drain() },
    UDP,
  );
  return await registry.metrics();
}

Deno.test("record adds upstream queries, errors and RTT per server", async () => {
  const text = await upstreamMetricsText((counters) => {
    counters.countQuery("tls://1.1.1.1");
    counters.countAnswer("tls://1.1.1.1", 20);
    counters.countQuery("tls://1.1.1.1");
    counters.countAnswer("tls://1.1.1.1", 30);
    counters.countQuery("udp://192.0.2.1:53");
    counters.countError("udp://192.0.2.1:53");
    counters.countQuery("udp://192.0.2.1:53");
    counters.countTimeout("udp://192.0.2.1:53");
    counters.countQuery("udp://192.0.2.1:53");
    counters.countError("udp://192.0.2.1:53");
    counters.countMalformed("udp://192.0.2.1:53");
    counters.countEdnsFallback("udp://192.0.2.1:53");
  });
  const tls = { upstream: "tls://1.1.1.1" };
  const udp = { upstream: "udp://192.0.2.1:53" };
  assert.equal(sample(text, "kudurru_upstream_queries_total", tls), 2);
  assert.equal(sample(text, "kudurru_upstream_queries_total", udp), 3);
  assert.equal(
    sample(text, "kudurru_upstream_errors_total", { ...udp, reason: "error" }),
    1,
  );
  assert.equal(
    sample(text, "kudurru_upstream_errors_total", {
      ...udp,
      reason: "malformed",
    }),
    1,
  );
  assert.equal(
    sample(text, "kudurru_upstream_edns_fallbacks_total", udp),
    1,
  );
  assert.equal(
    sample(text, "kudurru_upstream_errors_total", {
      ...udp,
      reason: "timeout",
    }),
    1,
  );
  assert.equal(typeOf(text, "kudurru_upstream_rtt_seconds"), "summary");
  assert.equal(sample(text, "kudurru_upstream_rtt_seconds_count", tls), 2);
  assert.ok(
    Math.abs(sample(text, "kudurru_upstream_rtt_seconds_sum", tls)! - 0.05) <
      1e-9,
  );
  assert.equal(
    sample(text, "kudurru_upstream_rtt_seconds_count", udp),
    undefined,
  );
});

Deno.test("createDnsMetrics registers once per registry", () => {
  const registry = newRegistry();
  createDnsMetrics(registry);
  assert.throws(() => createDnsMetrics(registry), /already been registered/);
});

Deno.test("record labels a DoH server without the account ID in its path", async () => {
  const text = await upstreamMetricsText((counters) => {
    counters.countQuery("https://dns.nextdns.io/abc123");
    counters.countQuery("https://d.adguard-dns.com/dns-query/abc123");
    counters.countQuery("https://1.1.1.1/dns-query");
  });
  assert.doesNotMatch(text, /abc123/);
  for (
    const upstream of [
      "https://dns.nextdns.io/…",
      "https://d.adguard-dns.com/dns-query/…",
      "https://1.1.1.1/dns-query",
    ]
  ) {
    assert.equal(
      sample(text, "kudurru_upstream_queries_total", { upstream }),
      1,
      upstream,
    );
  }
});
