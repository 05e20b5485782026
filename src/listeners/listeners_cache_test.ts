import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import dnsPacket from "dns-packet";
import { memoryLogger } from "../log/logger.ts";
import {
  cacheSettings,
  snapshotWithCache,
} from "../stages/cache/testdata/answers.ts";
import { startDnsListeners } from "./listeners.ts";
import { buildQuery, udpExchange } from "./testdata/dns_client.ts";

const CACHE_WORKER = new URL(
  "./testdata/cache_worker_entry.ts",
  import.meta.url,
);
const SNAPSHOT = snapshotWithCache(cacheSettings());

async function start() {
  const listeners = await startDnsListeners({
    listeners: [{ address: "127.0.0.1:0", protocols: ["udp"] }],
    nodeName: "test",
    version: "0.0.0-test",
    logger: memoryLogger(),
    workerUrl: CACHE_WORKER,
  });
  listeners.setSnapshot(SNAPSHOT);
  return listeners;
}

async function askTxt(
  listeners: Awaited<ReturnType<typeof start>>,
): Promise<{ data: string; ttl: number }> {
  const [addr] = listeners.addresses();
  assert.ok(addr);
  const wire = await udpExchange(
    "127.0.0.1",
    addr.port,
    buildQuery(7, "www.example.org", "TXT"),
  );
  const answer = dnsPacket.decode(Buffer.from(wire)).answers?.[0];
  assert.ok(answer && answer.type === "TXT");
  const data = [answer.data].flat().map(String).join("");
  return { data, ttl: answer.ttl ?? -1 };
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
