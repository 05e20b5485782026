import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import { serveUdp, type UdpServerOptions } from "./udp.ts";
import { emptySocketCounters } from "./worker_messages.ts";
import { createTestHandler } from "./testdata/test_handler.ts";
import {
  buildQuery,
  decodeAnswer,
  udpExchange,
  within,
} from "./testdata/dns_client.ts";

function start(
  hostname = "127.0.0.1",
  extra: Partial<UdpServerOptions> = {},
) {
  const logger = memoryLogger();
  const handler = createTestHandler({ logger });
  const counters = emptySocketCounters();
  const server = serveUdp({
    hostname,
    port: 0,
    handler,
    counters,
    logger,
    ...extra,
  });
  return {
    handler,
    counters,
    server,
    port: server.addr.port,
    [Symbol.asyncDispose]: () => server.stop(),
  };
}

Deno.test("serveUdp answers a query to its source address", async (t) => {
  for (const host of ["127.0.0.1", "::1"]) {
    await t.step(host, async () => {
      await using s = start(host);
      const reply = await udpExchange(host, s.port, buildQuery(42, "a.test"));
      assert.deepEqual(decodeAnswer(reply), {
        id: 42,
        name: "a.test",
        records: ["A 192.0.2.1"],
      });
      assert.equal(s.handler.clients[0]?.address, host);
      assert.equal(s.handler.clients[0]?.transport, "udp");
      assert.equal(s.counters.queries, 1);
    });
  }
});

Deno.test("serveUdp answers a fast query while a slow one is in flight", async () => {
  await using s = start();
  const client = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port: 0,
  });
  try {
    const to = {
      transport: "udp" as const,
      hostname: "127.0.0.1",
      port: s.port,
    };
    await client.send(buildQuery(1, "slow-300.test"), to);
    await client.send(buildQuery(2, "fast.test"), to);
    const [first] = await within(client.receive(), 2000);
    const [second] = await within(client.receive(), 2000);
    assert.deepEqual(
      [decodeAnswer(first), decodeAnswer(second)].map((a) => [a.id, a.name]),
      [[2, "fast.test"], [1, "slow-300.test"]],
    );
  } finally {
    client.close();
  }
});

Deno.test("serveUdp drops and counts queries beyond maxInFlight", async () => {
  await using s = start("127.0.0.1", { maxInFlight: 1 });
  const client = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port: 0,
  });
  try {
    const to = {
      transport: "udp" as const,
      hostname: "127.0.0.1",
      port: s.port,
    };
    await client.send(buildQuery(1, "slow-200.test"), to);
    await client.send(buildQuery(2, "fast.test"), to);
    const [only] = await within(client.receive(), 2000);
    assert.equal(decodeAnswer(only).id, 1);
    assert.equal(s.counters.udpDropped, 1);
    assert.equal(s.counters.queries, 1);
  } finally {
    client.close();
  }
});

Deno.test("serveUdp sends nothing when the handler answers null", async () => {
  await using s = start();
  await assert.rejects(
    udpExchange("127.0.0.1", s.port, buildQuery(1, "drop.test"), 200),
    /timed out/,
  );
});

Deno.test("serveUdp stop still sends the answer of a query in flight", async () => {
  const s = start();
  const client = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port: 0,
  });
  try {
    const to = {
      transport: "udp" as const,
      hostname: "127.0.0.1",
      port: s.port,
    };
    await client.send(buildQuery(9, "slow-200.test"), to);
    while (s.handler.clients.length === 0) {
      await new Promise((r) => setTimeout(r, 5));
    }
    const stopping = s.server.stop();
    const [reply] = await within(client.receive(), 2000);
    assert.equal(decodeAnswer(reply).id, 9);
    await stopping;
  } finally {
    client.close();
    await s.server.stop();
  }
});
