import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import { serveUdp, type UdpServer } from "./udp.ts";
import { serveUdpFfi } from "./udp_ffi.ts";
import { closeUdpSocket, libc, openUdpSocket } from "./libc_udp.ts";
import { emptySocketCounters } from "./worker_messages.ts";
import { createTestHandler } from "./testdata/test_handler.ts";
import { answerRecords, buildQuery, within } from "../testing/dns_client.ts";
import { ProxyTrust } from "./proxy_trust.ts";
import { encodeProxyV2, type ProxyV2Fields } from "./proxy_v2.ts";
import type { QueryHandler } from "../pipeline/handler.ts";

// Loaded once for the whole file, as in udp_test.ts (the leak check).
libc();

const SECRET = new TextEncoder().encode("kudurru-and-dnsdist-share-this!!");

type Options = Parameters<typeof serveUdp>[0];
type Start = (opts: Options) => UdpServer;

/** Both UDP sockets take PROXYv2 headers the same way. */
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

function proxyTest(name: string, fn: (start: StartOn) => Promise<void>) {
  for (const [socket, serve] of sockets) {
    Deno.test(`${socket} ${name}`, () =>
      fn((trust, hostname) => startOn(serve, trust, hostname)));
  }
}

type StartOn = (
  trust: ProxyTrust,
  hostname?: string,
) => ReturnType<typeof startOn>;

/** A listener with `trust`, whose handler also notes each query's length. */
function startOn(serve: Start, trust: ProxyTrust, hostname = "127.0.0.1") {
  const logger = memoryLogger();
  const handler = createTestHandler({ logger });
  const lengths: number[] = [];
  const noting: QueryHandler = {
    setSnapshot: (s) => handler.setSnapshot(s),
    handle(query, client) {
      lengths.push(query.length);
      return handler.handle(query, client);
    },
  };
  const counters = emptySocketCounters();
  const server = serve({
    hostname,
    port: 0,
    handler: noting,
    counters,
    logger,
    proxy: trust,
  });
  return {
    handler,
    lengths,
    counters,
    server,
    port: server.addr.port,
    [Symbol.asyncDispose]: () => server.stop(),
  };
}

/** A client socket on `hostname` (127.0.0.1, 127.0.0.2, ::1). */
function client(hostname: string, serverPort: number) {
  const socket = Deno.listenDatagram({ transport: "udp", hostname, port: 0 });
  const to = {
    transport: "udp" as const,
    hostname: hostname === "::1" ? "::1" : "127.0.0.1",
    port: serverPort,
  };
  return {
    socket,
    send: (bytes: Uint8Array) => socket.send(bytes, to),
    async receive(): Promise<Uint8Array> {
      const [reply] = await within(socket.receive(), 2000);
      return reply;
    },
    [Symbol.dispose]: () => socket.close(),
  };
}

/** `query` behind a header for client 192.0.2.1:5353. */
function proxied(query: Uint8Array, fields: ProxyV2Fields = {}): Uint8Array {
  const header = encodeProxyV2({
    source: { address: "192.0.2.1", port: 5353 },
    destination: { address: "198.51.100.1", port: 53 },
    ...fields,
  });
  const bytes = new Uint8Array(header.length + query.length);
  bytes.set(header);
  bytes.set(query, header.length);
  return bytes;
}

/**
 * Sends a plain query after what should have been dropped: the first
 * answer back is that one's, since the listener reads in order.
 */
async function assertDropped(
  c: ReturnType<typeof client>,
  dropped: Uint8Array,
) {
  await c.send(dropped);
  await c.send(buildQuery(99, "after.test"));
  const reply = await c.receive();
  assert.equal(
    answerRecords(reply).id,
    99,
    "the dropped datagram got no answer",
  );
}

proxyTest(
  "answers a header's query to its sender, for the header's client",
  async (start) => {
    await using s = start(new ProxyTrust({ from: ["127.0.0.1"] }));
    using c = client("127.0.0.1", s.port);
    await c.send(proxied(buildQuery(7, "client.test", "TXT")));
    const reply = await c.receive();
    // A plain DNS answer: dnsdist expects no header back.
    assert.deepEqual(answerRecords(reply), {
      id: 7,
      name: "client.test",
      records: ["TXT 192.0.2.1"],
    });
    assert.equal(s.handler.clients[0]?.address, "192.0.2.1");
    assert.equal(s.handler.clients[0]?.port, 5353);
    assert.equal(s.handler.clients[0]?.transport, "udp");
    assert.equal(s.counters.queries, 1);
  },
);

proxyTest("answers a listed peer without a header as itself", async (start) => {
  await using s = start(new ProxyTrust({ from: ["127.0.0.1"] }));
  using c = client("127.0.0.1", s.port);
  await c.send(buildQuery(8, "client.test", "TXT"));
  assert.deepEqual(answerRecords(await c.receive()).records, [
    "TXT 127.0.0.1",
  ]);
  assert.equal(
    s.handler.clients[0]?.port,
    (c.socket.addr as Deno.NetAddr).port,
  );
});

proxyTest(
  "drops a header from a peer not listed, and counts it",
  async (start) => {
    await using s = start(new ProxyTrust({ from: ["127.0.0.1"] }));
    using c = client("127.0.0.2", s.port);
    await assertDropped(c, proxied(buildQuery(1, "a.test")));
    assert.equal(s.counters.proxyUntrusted, 1);
    assert.equal(s.counters.queries, 1, "only the plain query");
    // That peer's plain query was answered as its own.
    assert.equal(s.handler.clients[0]?.address, "127.0.0.2");
  },
);

proxyTest(
  "with a secret, drops a header without it and takes one with it",
  async (start) => {
    await using s = start(
      new ProxyTrust({ from: ["127.0.0.1"], secret: SECRET }),
    );
    using c = client("127.0.0.1", s.port);
    await assertDropped(c, proxied(buildQuery(1, "a.test")));
    await assertDropped(
      c,
      proxied(buildQuery(2, "a.test"), {
        tlvs: [{ type: 0xe0, value: new Uint8Array(32) }],
      }),
    );
    assert.equal(s.counters.proxyUnauthenticated, 2);
    // LOCAL (dnsdist's health check) needs no secret: the peer is the client.
    await c.send(
      proxied(buildQuery(3, "client.test", "TXT"), { command: "local" }),
    );
    assert.deepEqual(answerRecords(await c.receive()).records, [
      "TXT 127.0.0.1",
    ]);
    await c.send(
      proxied(buildQuery(4, "client.test", "TXT"), {
        tlvs: [{ type: 0xe0, value: SECRET }],
      }),
    );
    assert.deepEqual(answerRecords(await c.receive()).records, [
      "TXT 192.0.2.1",
    ]);
    assert.equal(
      s.counters.queries,
      4,
      "two plain queries, LOCAL and this one",
    );
  },
);

proxyTest(
  "drops a listed peer's malformed header, and counts it",
  async (start) => {
    await using s = start(new ProxyTrust({ from: ["127.0.0.1"] }));
    using c = client("127.0.0.1", s.port);
    const bad = proxied(buildQuery(1, "a.test"));
    bad[12] = 0x13; // version 1
    await assertDropped(c, bad);
    // A header that says it runs past the datagram.
    const long = proxied(new Uint8Array(0));
    long[15] = 200;
    await assertDropped(c, long);
    assert.equal(s.counters.proxyMalformed, 2);
  },
);

proxyTest("takes a LOCAL header as the peer's own query", async (start) => {
  await using s = start(new ProxyTrust({ from: ["127.0.0.1"] }));
  using c = client("127.0.0.1", s.port);
  await c.send(
    proxied(buildQuery(5, "client.test", "TXT"), { command: "local" }),
  );
  assert.deepEqual(answerRecords(await c.receive()).records, [
    "TXT 127.0.0.1",
  ]);
});

proxyTest("takes an IPv6 client behind a header from ::1", async (start) => {
  await using s = start(new ProxyTrust({ from: ["::1"] }), "::1");
  using c = client("::1", s.port);
  await c.send(
    proxied(buildQuery(6, "client.test", "TXT"), {
      source: { address: "2001:db8:0:0:0:0:0:7", port: 443 },
      destination: { address: "2001:db8::53", port: 53 },
    }),
  );
  assert.deepEqual(answerRecords(await c.receive()).records, [
    "TXT 2001:db8::7",
  ]);
  assert.equal(s.handler.clients[0]?.port, 443);
});

proxyTest("reads a large query behind a large header whole", async (start) => {
  await using s = start(new ProxyTrust({ from: ["127.0.0.1"] }));
  using c = client("127.0.0.1", s.port);
  // The brief's case, then the largest of both: 4096 behind 2048.
  const cases = [[1000, 4000], [2048, 4096]] as const;
  for (const [headerSize, querySize] of cases) {
    const id = querySize;
    const query = paddedQuery(id, "big-query.test", querySize);
    const bytes = proxied(query, { tlvs: [noop(headerSize - 16 - 12)] });
    assert.equal(bytes.length, headerSize + querySize);
    await c.send(bytes);
    const reply = await c.receive();
    assert.equal(answerRecords(reply).id, id);
    assert.equal(reply[2]! & 0x02, 0, "not TC: read whole");
  }
  assert.deepEqual(s.lengths, [4000, 4096]);
  assert.equal(s.counters.udpOversize, 0);
  assert.equal(s.handler.clients[1]?.address, "192.0.2.1");
});

proxyTest(
  "answers TC=1 to the sender when the query behind a header is over 4096",
  async (start) => {
    await using s = start(new ProxyTrust({ from: ["127.0.0.1"] }));
    using c = client("127.0.0.1", s.port);
    // 2048 + 4097 fills the buffer exactly; 2048 + 6000 is cut by the receive.
    for (const size of [4097, 6000]) {
      const bytes = proxied(paddedQuery(size, "big-query.test", size), {
        tlvs: [noop(2048 - 16 - 12)],
      });
      await c.send(bytes);
      const reply = await c.receive();
      assert.equal(answerRecords(reply).id, size);
      assert.equal(reply[2]! & 0x02, 0x02, "TC: ask again over TCP");
    }
    assert.equal(s.counters.udpOversize, 2);
    assert.deepEqual(s.lengths, [], "never handed to the handler");
  },
);

proxyTest(
  "a stop's SERVFAIL answers the query behind the header",
  async (start) => {
    const s = start(new ProxyTrust({ from: ["127.0.0.1"] }));
    using c = client("127.0.0.1", s.port);
    try {
      await c.send(proxied(buildQuery(9, "hold-1.test")));
      while (s.handler.clients.length === 0) {
        await new Promise((r) => setTimeout(r, 5));
      }
      assert.equal(s.handler.clients[0]?.address, "192.0.2.1");
      await within(s.server.stop(100), 3000);
      const reply = await c.receive();
      assert.equal(reply[3]! & 0x0f, 2, "SERVFAIL");
      assert.equal(answerRecords(reply).id, 9);
      assert.equal(answerRecords(reply).name, "hold-1.test");
    } finally {
      s.handler.releaseHeld();
      await s.server.stop();
    }
  },
);

/** A NOOP TLV (proxy-protocol.txt §2.2.4) of `size` octets in all. */
function noop(size: number) {
  return { type: 0x04, value: new Uint8Array(size - 3) };
}

/** A query for `name` of exactly `size` octets: an OPT with padding. */
function paddedQuery(id: number, name: string, size: number): Uint8Array {
  const base = buildQuery(id, name);
  const padding = size - base.length - 15;
  const query = new Uint8Array(size);
  query.set(base);
  const view = new DataView(query.buffer, base.length);
  view.setUint16(1, 41); // root owner, TYPE OPT
  view.setUint16(3, 1232); // payload size
  view.setUint16(9, 4 + padding); // RDLENGTH
  view.setUint16(11, 12); // option PADDING (RFC 7830)
  view.setUint16(13, padding);
  query[11] = 1; // ARCOUNT
  return query;
}
