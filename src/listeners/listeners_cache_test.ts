import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import dnsPacket from "dns-packet";
import { memoryLogger } from "../log/logger.ts";
import {
  cacheSettings,
  snapshotWithCache,
} from "../stages/cache/testdata/answers.ts";
import { type DnsListenersOptions, startDnsListeners } from "./listeners.ts";
import { createDnsMetrics } from "../metrics/dns_metrics.ts";
import { newRegistry } from "../metrics/registry.ts";
import { sample } from "../metrics/testdata/prom_text.ts";
import {
  buildQuery,
  frames,
  readFrame,
  udpExchange,
  within,
  writeAll,
} from "../testing/dns_client.ts";

const CACHE_WORKER = new URL(
  "./testdata/cache_worker_entry.ts",
  import.meta.url,
);
const SNAPSHOT = snapshotWithCache(cacheSettings());

async function start(
  protocols: ("udp" | "tcp")[] = ["udp"],
  extra: Partial<DnsListenersOptions> = {},
) {
  const listeners = await startDnsListeners({
    listeners: [{ address: "127.0.0.1:0", protocols }],
    nodeName: "test",
    version: "0.0.0-test",
    logger: memoryLogger(),
    workerUrl: CACHE_WORKER,
    ...extra,
  });
  listeners.setSnapshot(SNAPSHOT);
  return listeners;
}

async function askTxt(
  listeners: Awaited<ReturnType<typeof start>>,
  name = "www.example.org",
  transport: "udp" | "tcp" = "udp",
): Promise<{ data: string; ttl: number }> {
  const [addr] = listeners.addresses();
  assert.ok(addr);
  const query = buildQuery(7, name, "TXT");
  const wire = transport === "udp"
    ? await udpExchange("127.0.0.1", addr.port, query)
    : await tcpExchange(addr.port, query);
  const answer = dnsPacket.decode(Buffer.from(wire)).answers?.[0];
  assert.ok(answer && answer.type === "TXT");
  const data = [answer.data].flat().map(String).join("");
  return { data, ttl: answer.ttl ?? -1 };
}

async function tcpExchange(port: number, query: Uint8Array) {
  using conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await writeAll(conn, frames(query));
  const frame = await within(readFrame(conn), 2000);
  assert.ok(frame, "closed instead of answering");
  return frame;
}

Deno.test("startDnsListeners keeps a cached answer across a stop and start through the dump", async () => {
  const first = await start();
  let dump;
  let cached;
  try {
    cached = await askTxt(first);
    assert.equal(cached.ttl, 300);
  } finally {
    dump = await first.stopWithCacheDump();
  }
  assert.equal(dump.length, 1);

  const second = await start();
  try {
    second.importCache(dump);
    // The worker takes messages in order: once this flush (of a name not
    // cached) is answered, the dump has been taken. A query could otherwise
    // reach the socket first.
    assert.equal(await second.flushCache("barrier.invalid."), 0);
    const again = await askTxt(second);
    assert.equal(again.data, cached.data);
    assert.ok(again.ttl <= 300, `TTL ${again.ttl}`);
  } finally {
    await second.stop();
  }
});

Deno.test("startDnsListeners without the dump answers afresh after a restart", async () => {
  const first = await start();
  let cached;
  try {
    cached = await askTxt(first);
  } finally {
    await first.stop();
  }
  const second = await start();
  try {
    assert.notEqual((await askTxt(second)).data, cached.data);
  } finally {
    await second.stop();
  }
});

Deno.test("startDnsListeners flushes a name from the workers' caches", async () => {
  const listeners = await start();
  try {
    await askTxt(listeners);
    assert.equal(await listeners.flushCache("other.example."), 0);
    assert.equal(await listeners.flushCache("WWW.example.org"), 1);
    assert.equal(await listeners.flushCache("www.example.org."), 0, "gone");
    await askTxt(listeners);
    assert.equal(await listeners.flushCache(), 1, "cached again, flush all");
  } finally {
    await listeners.stop();
  }
  assert.equal(await listeners.flushCache(), 0, "a stopped worker has none");
});

Deno.test("startDnsListeners hands an answer cut for a UDP client to the TCP listener's cache", async () => {
  const listeners = await start(["udp", "tcp"]);
  try {
    const overUdp = await askTxt(listeners, "cut.example.org", "udp");
    // The UDP worker posts the entry as it stores it; give the main thread
    // time to pass it on, then make sure the TCP worker took it (it takes
    // messages in order: the flush's answer comes after the entry).
    await new Promise((r) => setTimeout(r, 100));
    await listeners.flushCache("barrier.invalid.");
    const overTcp = await askTxt(listeners, "cut.example.org", "tcp");
    assert.equal(
      overTcp.data,
      overUdp.data,
      "the TCP worker answered from the shared entry",
    );
    const whole = await askTxt(listeners, "www.example.org", "udp");
    const otherWorker = await askTxt(listeners, "www.example.org", "tcp");
    assert.notEqual(
      otherWorker.data,
      whole.data,
      "whole answers stay with their worker",
    );
  } finally {
    await listeners.stop();
  }
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("startDnsListeners answers a query still waiting on an upstream SERVFAIL at the stop deadline, and keeps the cache dump", async () => {
  const logger = memoryLogger();
  // The worker is given 1 s to stop; the upstream answers after 60 s. The
  // SERVFAIL deadline (before the stop timeout) lets the worker stop in
  // time: the dump taken when the stop was asked for is not what is
  // tested here, only that a slow query costs neither its answer nor the
  // dump.
  const listeners = await start(["udp"], { stopTimeoutMs: 1000, logger });
  const [addr] = listeners.addresses();
  assert.ok(addr);
  const client = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port: 0,
  });
  const to = {
    transport: "udp" as const,
    hostname: "127.0.0.1",
    port: addr.port,
  };
  let dump;
  try {
    await askTxt(listeners, "www.example.org");
    await client.send(buildQuery(8, "slow.example.org", "TXT"), to);
    await client.send(buildQuery(9, "www.example.org", "TXT"), to);
    // Datagrams are handed over in order: with 9 answered (from the
    // cache), 8 is waiting on the upstream.
    const [cached] = await within(client.receive(), 2000);
    assert.equal(dnsPacket.decode(Buffer.from(cached)).id, 9);
    dump = await listeners.stopWithCacheDump();
    const [late] = await within(client.receive(), 2000);
    const answer = dnsPacket.decode(Buffer.from(late));
    assert.equal(answer.id, 8);
    assert.equal(answer.rcode, "SERVFAIL");
  } finally {
    client.close();
    await listeners.stop();
  }
  assert.deepEqual(dump.map((e) => e.name), ["www.example.org."]);
  assert.ok(
    !logger.lines.some((line) => /cache dump lost/.test(line)),
    logger.lines.join("\n"),
  );
});

Deno.test("startDnsListeners: a worker that died stops counting in kudurru_cache_entries, and the one started in its place counts from 0", async () => {
  const registry = newRegistry();
  const metrics = createDnsMetrics(registry);
  const listeners = await start(["udp"], {
    countersIntervalMs: 20,
    onCounters: (deltas, from) => metrics.record(deltas, from),
  });
  const entries = async () =>
    sample(await registry.metrics(), "kudurru_cache_entries");
  const waitForEntries = async (want: number) => {
    for (let i = 0; i < 300 && await entries() !== want; i++) await sleep(10);
    assert.equal(await entries(), want);
  };
  try {
    for (const name of ["a.example.org", "b.example.org", "c.example.org"]) {
      await askTxt(listeners, name);
    }
    await waitForEntries(3);
    const [addr] = listeners.addresses();
    await udpExchange(
      "127.0.0.1",
      addr!.port,
      buildQuery(1, "crash.example.org", "TXT"),
      500,
    ).catch(() => {});
    for (let i = 0; i < 500 && listeners.down().length === 0; i++) {
      await sleep(10);
    }
    for (let i = 0; i < 1000 && listeners.down().length > 0; i++) {
      await sleep(10);
    }
    assert.deepEqual(listeners.down(), []);
    // The new worker takes messages: its cache is empty, and so is the gauge.
    assert.equal(await listeners.flushCache("barrier.invalid."), 0);
    await waitForEntries(0);
    await askTxt(listeners, "d.example.org");
    await waitForEntries(1);
  } finally {
    await listeners.stop();
  }
});
