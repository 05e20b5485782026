/**
 * From a real listener worker to the Prometheus text: queries over UDP and
 * TCP through the cache, a blocking stand-in and a scripted upstream, the
 * counters posted by the worker, recorded on the main thread.
 */
import assert from "node:assert/strict";
import { cacheSchema, ratelimitSchema } from "../config/schema_resolver.ts";
import { TYPE } from "../dns/wire/constants.ts";
import { startDnsListeners } from "../listeners/listeners.ts";
import {
  buildQuery,
  frames,
  readFrame,
  udpExchange,
  within,
} from "../testing/dns_client.ts";
import type { CounterDeltas } from "../listeners/worker_messages.ts";
import { memoryLogger } from "../log/logger.ts";
import { snapshotOf } from "../testing/fixtures.ts";
import {
  answer,
  startUdpUpstream,
  upstreamSettings,
  urlOf,
} from "../upstream/testdata/scripted_upstream.ts";
import { createDnsMetrics } from "./dns_metrics.ts";
import { newRegistry } from "./registry.ts";
import { sample } from "./testdata/prom_text.ts";

const WORKER = new URL("./testdata/metrics_worker_entry.ts", import.meta.url);

Deno.test("a listener worker's counts reach the metrics text", async () => {
  // Data of the type asked: an answer without it is NODATA, kept only
  // with an SOA.
  const upstream = startUdpUpstream((q) => [{
    message: q.question?.type === TYPE.AAAA
      ? answer(q, { aaaa: ["2001:db8::1"], ttl: 300 })
      : answer(q, { a: ["192.0.2.1"], ttl: 300 }),
  }]);
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  const posted: CounterDeltas[] = [];
  const listeners = await startDnsListeners({
    listeners: [{ address: "127.0.0.1:0", protocols: ["udp", "tcp"] }],
    nodeName: "test",
    version: "0.0.0-test",
    logger: memoryLogger(),
    workerUrl: WORKER,
    countersIntervalMs: 20,
    onCounters: (deltas, from) => {
      posted.push(deltas);
      metrics.record(deltas, from);
    },
  });
  try {
    listeners.setSnapshot({
      ...snapshotOf([]),
      settings: {
        upstreams: upstreamSettings({
          default: { servers: [urlOf("udp", upstream)], timeout: 2000 },
        }),
        cache: cacheSchema.parse({}),
        ratelimit: ratelimitSchema.parse({ enabled: false }),
      },
    });
    const port = listeners.addresses()[0]!.port;
    // UDP: a miss, a hit, another type, a blocked name.
    await udpExchange("127.0.0.1", port, buildQuery(1, "www.example.org"));
    await udpExchange("127.0.0.1", port, buildQuery(2, "www.example.org"));
    await udpExchange(
      "127.0.0.1",
      port,
      buildQuery(3, "www.example.org", "AAAA"),
    );
    await udpExchange("127.0.0.1", port, buildQuery(4, "ads.blocked.test"));
    // TCP: one AAAA query.
    {
      using conn = await Deno.connect({ hostname: "127.0.0.1", port });
      await conn.write(frames(buildQuery(5, "example.net", "AAAA")));
      assert.ok(await within(readFrame(conn), 2000));
    }
    // The workers post about every 20 ms; wait for every count to arrive.
    const counted = () =>
      posted.reduce(
        (n, d) =>
          n +
          Object.values(d.handler?.queries ?? {}).reduce((a, b) => a + b, 0),
        0,
      );
    for (let i = 0; i < 200 && counted() < 5; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(counted(), 5);
    // The cache and upstream counts come in the same or the next post.
    for (let i = 0; i < 200 && !posted.some((d) => d.upstream); i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    await listeners.stop();
    await upstream.close();
  }
  const text = await registry.metrics();
  const q = (transport: string, qtype: string) =>
    sample(text, "kudurru_dns_queries_total", { transport, qtype });
  assert.deepEqual(
    [q("udp", "A"), q("udp", "AAAA"), q("tcp", "AAAA")],
    [3, 1, 1],
  );
  assert.equal(
    sample(text, "kudurru_dns_responses_total", {
      status: "cached",
      rcode: "NOERROR",
    }),
    1,
  );
  assert.equal(
    sample(text, "kudurru_dns_responses_total", {
      status: "forwarded",
      rcode: "NOERROR",
    }),
    3,
  );
  assert.equal(
    sample(text, "kudurru_dns_responses_total", {
      status: "blocked_list",
      rcode: "NXDOMAIN",
    }),
    1,
  );
  assert.equal(sample(text, "kudurru_blocked_total", { list: "test/ads" }), 1);
  assert.equal(
    sample(text, "kudurru_dns_request_duration_seconds_count", {
      transport: "udp",
    }),
    4,
  );
  assert.equal(
    sample(text, "kudurru_dns_request_duration_seconds_count", {
      transport: "tcp",
    }),
    1,
  );
  assert.ok(
    sample(text, "kudurru_dns_request_duration_seconds_sum", {
      transport: "udp",
    })! > 0,
  );
  assert.equal(sample(text, "kudurru_cache_hits_total"), 1);
  assert.equal(sample(text, "kudurru_cache_misses_total"), 3);
  // Each worker has its own cache: UDP holds 2 answers, TCP 1.
  assert.equal(sample(text, "kudurru_cache_entries"), 3);
  const server = { upstream: urlOf("udp", upstream) };
  assert.equal(sample(text, "kudurru_upstream_queries_total", server), 3);
  assert.equal(sample(text, "kudurru_upstream_rtt_seconds_count", server), 3);
  assert.ok(sample(text, "kudurru_upstream_rtt_seconds_sum", server)! > 0);
});
