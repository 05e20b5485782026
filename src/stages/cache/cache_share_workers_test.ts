/**
 * Entries handed between listener workers over real sockets: a UDP client
 * that gets TC=1 from the cache retries over TCP, which another worker
 * with its own cache serves (src/listeners/README.md).
 */
import assert from "node:assert/strict";
import dnsPacket from "dns-packet";
import { startDnsListeners } from "../../listeners/listeners.ts";
import {
  frames,
  readFrame,
  udpExchange,
  within,
  writeAll,
} from "../../testing/dns_client.ts";
import { memoryLogger } from "../../log/logger.ts";
import { decodeAnswer } from "../../testing/query_bytes.ts";
import { cacheSettings, snapshotWithCache } from "./testdata/answers.ts";

const WORKER = new URL("./testdata/share_worker_entry.ts", import.meta.url);
const SNAPSHOT = snapshotWithCache(cacheSettings({ minTTL: "1s" }));

async function start() {
  const listeners = await startDnsListeners({
    listeners: [{ address: "127.0.0.1:0", protocols: ["udp", "tcp"] }],
    nodeName: "test",
    version: "0.0.0-test",
    logger: memoryLogger(),
    workerUrl: WORKER,
  });
  listeners.setSnapshot(SNAPSHOT);
  return listeners;
}

type Listeners = Awaited<ReturnType<typeof start>>;

interface Answer {
  tc: boolean;
  /** The data of every answer record. */
  data: string[];
  ttls: number[];
}

/** Asks for `name` TXT as dig does: UDP with EDNS 1232 or without EDNS (512), or TCP. */
async function ask(
  listeners: Listeners,
  name: string,
  how: "udp-edns" | "udp" | "tcp",
): Promise<Answer> {
  const [addr] = listeners.addresses();
  assert.ok(addr);
  const query = new Uint8Array(dnsPacket.encode({
    id: 7,
    type: "query",
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type: "TXT", class: "IN" }],
    ...(how === "udp-edns" && {
      additionals: [{ type: "OPT", name: ".", udpPayloadSize: 1232 }],
    }),
  }));
  const wire = how === "tcp"
    ? await tcpExchange(addr.port, query)
    : await udpExchange("127.0.0.1", addr.port, query);
  const { tc, answer } = decodeAnswer(wire);
  // "name. TTL IN TXT data"
  const fields = answer.map((rr) => rr.split(" "));
  return {
    tc,
    data: fields.map((f) => f.slice(4).join(" ")),
    ttls: fields.map((f) => Number(f[1])),
  };
}

async function tcpExchange(port: number, query: Uint8Array) {
  using conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await writeAll(conn, frames(query));
  const frame = await within(readFrame(conn), 3000);
  assert.ok(frame, "closed instead of answering");
  return frame;
}

/**
 * Waits until the TCP worker has taken what the UDP worker posted: the
 * main thread passes it on, and a worker takes messages in order (the
 * flush's answer comes after the entry).
 */
async function handedOver(listeners: Listeners): Promise<void> {
  await new Promise((r) => setTimeout(r, 100));
  await listeners.flushCache("barrier.invalid.");
}

Deno.test("cache workers: the TCP retry after a TC=1 hit is answered from the entry the UDP worker holds", async () => {
  const listeners = await start();
  try {
    const name = "big.example.org";
    const first = await ask(listeners, name, "udp-edns");
    assert.equal(first.tc, false, "stored whole: not handed on when stored");
    assert.equal(first.data.length, 4);
    const cut = await ask(listeners, name, "udp");
    assert.equal(cut.tc, true);
    await handedOver(listeners);
    const retry = await ask(listeners, name, "tcp");
    assert.deepEqual(
      retry.data,
      first.data,
      "the TCP worker answered from the UDP worker's entry",
    );
    assert.ok(retry.ttls.every((ttl) => ttl > 290 && ttl <= 300));
  } finally {
    await listeners.stop();
  }
});

Deno.test("cache workers: the TCP retry after a stale TC=1 hit is answered stale, without asking upstream", async () => {
  const listeners = await start();
  try {
    const name = "st.failing.example.org";
    const first = await ask(listeners, name, "udp-edns");
    assert.equal(first.tc, false);
    await new Promise((r) => setTimeout(r, 1100)); // the entry expires
    // The UDP worker's refresh fails: stale, and cut for this client.
    const cut = await ask(listeners, name, "udp");
    assert.equal(cut.tc, true);
    await handedOver(listeners);
    // The TCP worker's upstream would answer anew (its first query for
    // the name): a stale answer from the UDP worker's entry means it
    // took the entry and the failed refresh, and asked no upstream.
    const retry = await ask(listeners, name, "tcp");
    assert.deepEqual(retry.data, first.data);
    assert.deepEqual(retry.ttls, [30, 30, 30, 30], "serveStale.answerTTL");
  } finally {
    await listeners.stop();
  }
});
