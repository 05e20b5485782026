import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import { serveUdp, type UdpServer } from "./udp.ts";
import { serveUdpFfi } from "./udp_ffi.ts";
import { closeUdpSocket, libc, openUdpSocket } from "./libc_udp.ts";
import { emptySocketCounters } from "./worker_messages.ts";
import { createTestHandler } from "./testdata/test_handler.ts";
import {
  answerRecords,
  buildQuery,
  udpExchange,
  within,
} from "../testing/dns_client.ts";

// Loaded once for the whole file (and kept, as the server keeps it): the
// leak check would count a library first loaded inside a test.
libc();

type Options = Parameters<typeof serveUdp>[0];
type Start = (opts: Options) => UdpServer;

/**
 * Every test runs on both sockets: Deno's own (udp.ts) and the libc one
 * of listeners.ffiSockets (udp_ffi.ts), which must behave the same.
 */
const sockets: [string, Start][] = [
  ["serveUdp", serveUdp],
  ["serveUdpFfi", (opts) => {
    const socket = openUdpSocket(opts.hostname, opts.port);
    const server = serveUdpFfi({ ...opts, socket });
    let closed = false;
    return {
      addr: server.addr,
      async stop(answerWithinMs?: number) {
        await server.stop(answerWithinMs);
        if (!closed) closeUdpSocket(socket.fd);
        closed = true;
      },
    };
  }],
];

function udpTest(name: string, fn: (start: typeof startOn) => Promise<void>) {
  for (const [socket, serve] of sockets) {
    Deno.test(`${socket} ${name}`, () =>
      fn((hostname, extra) => startOn(hostname, extra, serve)));
  }
}

function startOn(
  hostname = "127.0.0.1",
  extra: Partial<Options> = {},
  serve: Start = serveUdp,
) {
  const logger = memoryLogger();
  const handler = createTestHandler({ logger });
  const counters = emptySocketCounters();
  const server = serve({
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

/** A client socket on 127.0.0.1 and the listener's address to send to. */
function clientFor(port: number) {
  const client = Deno.listenDatagram({
    transport: "udp",
    hostname: "127.0.0.1",
    port: 0,
  });
  const to = { transport: "udp" as const, hostname: "127.0.0.1", port };
  return { client, to };
}

udpTest("answers a query to its source address", async (start) => {
  for (const host of ["127.0.0.1", "::1"]) {
    {
      await using s = start(host);
      const reply = await udpExchange(host, s.port, buildQuery(42, "a.test"));
      assert.deepEqual(answerRecords(reply), {
        id: 42,
        name: "a.test",
        records: ["A 192.0.2.1"],
      });
      assert.equal(s.handler.clients[0]?.address, host);
      assert.equal(s.handler.clients[0]?.transport, "udp");
      assert.equal(s.counters.queries, 1);
    }
  }
});

udpTest("answers a fast query while a slow one is in flight", async (start) => {
  await using s = start();
  const { client, to } = clientFor(s.port);
  try {
    await client.send(buildQuery(1, "slow-300.test"), to);
    await client.send(buildQuery(2, "fast.test"), to);
    const [first] = await within(client.receive(), 2000);
    const [second] = await within(client.receive(), 2000);
    assert.deepEqual(
      [answerRecords(first), answerRecords(second)].map((a) => [a.id, a.name]),
      [[2, "fast.test"], [1, "slow-300.test"]],
    );
  } finally {
    client.close();
  }
});

udpTest(
  "at maxInFlight still answers what needs no wait, and marks the client overloaded",
  async (start) => {
    await using s = start("127.0.0.1", { maxInFlight: 1 });
    const { client, to } = clientFor(s.port);
    try {
      await client.send(buildQuery(1, "slow-200.test"), to);
      await client.send(buildQuery(2, "slow-200.test"), to); // dropped: would wait
      await client.send(buildQuery(3, "fast.test"), to); // answered at once
      const [first] = await within(client.receive(), 2000);
      const [second] = await within(client.receive(), 2000);
      assert.deepEqual([answerRecords(first).id, answerRecords(second).id], [
        3,
        1,
      ]);
      assert.deepEqual(
        s.handler.clients.map((c) => c.overloaded ?? false),
        [false, true, true],
      );
      assert.equal(s.counters.queries, 3);
    } finally {
      client.close();
    }
  },
);

udpTest("sends nothing when the handler answers null", async (start) => {
  await using s = start();
  await assert.rejects(
    udpExchange("127.0.0.1", s.port, buildQuery(1, "drop.test"), 200),
    /timed out/,
  );
});

udpTest("stop still sends the answer of a query in flight", async (start) => {
  const s = start();
  const { client, to } = clientFor(s.port);
  try {
    await client.send(buildQuery(9, "slow-200.test"), to);
    while (s.handler.clients.length === 0) {
      await new Promise((r) => setTimeout(r, 5));
    }
    const stopping = s.server.stop();
    // A query arriving during the drain is dropped, and counted as such.
    await client.send(buildQuery(10, "fast.test"), to);
    const [reply] = await within(client.receive(), 2000);
    assert.equal(answerRecords(reply).id, 9);
    await stopping;
    assert.equal(s.counters.udpStopping, 1);
    assert.equal(s.counters.queries, 1);
  } finally {
    client.close();
    await s.server.stop();
  }
});

udpTest(
  "stop answers SERVFAIL to a query not answered within answerWithinMs",
  async (start) => {
    const s = start();
    const { client, to } = clientFor(s.port);
    try {
      await client.send(buildQuery(9, "hold-1.test"), to);
      while (s.handler.clients.length === 0) {
        await new Promise((r) => setTimeout(r, 5));
      }
      // Without the deadline the stop would wait for the held answer.
      await within(s.server.stop(100), 3000);
      const [reply] = await within(client.receive(), 2000);
      assert.equal(reply[2]! & 0x80, 0x80, "a response");
      assert.equal(reply[3]! & 0x0f, 2, "SERVFAIL");
      assert.equal(answerRecords(reply).id, 9);
    } finally {
      client.close();
      s.handler.releaseHeld();
      await s.server.stop();
    }
  },
);

udpTest(
  "answers waves of pending queries from reused buffers",
  async (start) => {
    await using s = start();
    const { client, to } = clientFor(s.port);
    try {
      // Waves overlap: the buffers of the first wave's queries come back to
      // the pool while the second wave is still waiting on its own. A buffer
      // handed out again too early would make the handler, which reads its
      // query again after the wait, answer another query's ID or name.
      const expected = new Map<number, string>();
      let id = 0;
      for (const wait of [60, 20, 40]) {
        for (let i = 0; i < 4; i++) {
          const name = `slow-${wait + i}.test`;
          expected.set(++id, name);
          await client.send(buildQuery(id, name), to);
        }
        await new Promise((r) => setTimeout(r, 15));
      }
      const seen = new Map<number, string>();
      while (seen.size < expected.size) {
        const [reply] = await within(client.receive(), 2000);
        const answer = answerRecords(reply);
        seen.set(answer.id, answer.name);
      }
      assert.deepEqual(seen, expected);
    } finally {
      client.close();
    }
  },
);

udpTest(
  "answers a query over 4096 octets TC=1 without reading it",
  async (start) => {
    await using s = start();
    const query = oversizeQuery(7, "big-query.test");
    assert.ok(query.length > 4096);
    const reply = await udpExchange("127.0.0.1", s.port, query);
    const questionEnd = 12 + "big-query.test".length + 2 + 4;
    assert.equal(reply.length, questionEnd + 11, "header, question and OPT");
    assert.deepEqual(
      reply.subarray(12, questionEnd),
      query.subarray(12, questionEnd),
    );
    assert.deepEqual(
      [...reply.subarray(questionEnd)],
      [0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0],
      "an OPT of ours: the query had one (RFC 6891 §7)",
    );
    assert.equal((reply[0]! << 8) | reply[1]!, 7);
    assert.equal(reply[2]! & 0x80, 0x80, "QR");
    assert.equal(reply[2]! & 0x02, 0x02, "TC: ask again over TCP");
    assert.equal(reply[2]! & 0x01, 0x01, "RD kept");
    assert.deepEqual([...reply.subarray(4, 12)], [0, 1, 0, 0, 0, 0, 0, 1]);
    assert.equal(s.counters.udpOversize, 1);
    assert.equal(s.counters.queries, 0, "never handed to the handler");
  },
);

udpTest("leaves an oversize response (QR=1) unanswered", async (start) => {
  await using s = start();
  const response = oversizeQuery(8, "big-response.test");
  response[2]! |= 0x80;
  await assert.rejects(
    udpExchange("127.0.0.1", s.port, response, 200),
    /timed out/,
  );
  assert.equal(s.counters.udpOversize, 1);
});

udpTest(
  "answers an oversize query FORMERR without one question, BADVERS for EDNS 1",
  async (start) => {
    await using s = start();
    const two = oversizeQuery(9, "two.test");
    two[5] = 2; // QDCOUNT
    const formerr = await udpExchange("127.0.0.1", s.port, two);
    assert.equal(formerr[3]! & 0x0f, 1, "FORMERR");
    assert.equal(formerr[2]! & 0x02, 0, "no TC");
    const v1 = oversizeQuery(10, "v1.test");
    const optAt = v1.length - (11 + 4 + 5000);
    v1[optAt + 6] = 1; // EDNS version 1 (TTL: extended RCODE, version, flags)
    const badvers = await udpExchange("127.0.0.1", s.port, v1);
    assert.equal(badvers[3]! & 0x0f, 0);
    assert.equal(badvers.at(-6), 1, "extended RCODE 1: BADVERS (16)");
    assert.equal(badvers[2]! & 0x02, 0, "no TC");
    assert.equal(s.counters.udpOversize, 2);
  },
);

/** A query whose OPT record carries ~5,000 octets of EDNS padding. */
function oversizeQuery(id: number, name: string): Uint8Array {
  const base = buildQuery(id, name);
  const padding = 5000;
  const opt = new Uint8Array(11 + 4 + padding);
  const view = new DataView(opt.buffer);
  view.setUint16(1, 41); // root owner, TYPE OPT
  view.setUint16(3, 1232); // payload size
  view.setUint16(9, 4 + padding); // RDLENGTH
  view.setUint16(11, 12); // option PADDING
  view.setUint16(13, padding);
  const query = new Uint8Array(base.length + opt.length);
  query.set(base);
  query.set(opt, base.length);
  query[11] = 1; // ARCOUNT
  return query;
}
