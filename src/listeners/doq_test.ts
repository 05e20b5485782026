/**
 * The DoQ listener (RFC 9250) over real QUIC sockets on loopback, with
 * Deno's own QUIC client (doq_client.ts): there is no independent DoQ
 * client packaged for Debian 12 (kdig 3.2 has no +quic). Certificates are
 * a throwaway CA and leaf made with openssl (Deno's QUIC refuses a
 * self-signed CA:TRUE leaf).
 */
import assert from "node:assert/strict";
import dnsPacket from "dns-packet";
import { Buffer } from "node:buffer";
import { memoryLogger } from "../log/logger.ts";
import type {
  AnswerStream,
  ClientInfo,
  QueryHandler,
} from "../pipeline/handler.ts";
import { makeTestCertificates } from "../upstream/testdata/certs.ts";
import { createTestHandler } from "./testdata/test_handler.ts";
import { emptySocketCounters } from "./worker_messages.ts";
import { type DoqServerOptions, serveDoq } from "./doq.ts";
import {
  connectDoq,
  type DoqClient,
  type DoqClientOptions,
} from "./doq_client.ts";
import {
  DOQ_EXCESSIVE_LOAD,
  DOQ_NO_ERROR,
  DOQ_PROTOCOL_ERROR,
} from "./doq_error_codes.ts";
import { answerRecords, buildQuery, within } from "../testing/dns_client.ts";

const certs = await makeTestCertificates({
  dns: ["localhost", "phone.dns.test"],
  ip: ["127.0.0.1", "::1"],
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function start(
  extra: Partial<DoqServerOptions> = {},
  hostname = "127.0.0.1",
) {
  const logger = memoryLogger();
  const handler = createTestHandler({ logger });
  const counters = emptySocketCounters();
  const server = serveDoq({
    hostname,
    port: 0,
    handler,
    counters,
    logger,
    certificate: { cert: certs.cert, key: certs.key },
    ...extra,
  });
  const clients: DoqClient[] = [];
  return {
    handler,
    counters,
    server,
    logger,
    /** A client trusting the test CA; closed with the server. */
    async connect(opts: Partial<DoqClientOptions> = {}) {
      const client = await connectDoq({
        hostname,
        port: server.addr.port,
        caCerts: [certs.caCert],
        ...opts,
      });
      clients.push(client);
      return client;
    },
    async [Symbol.asyncDispose]() {
      for (const client of clients) client.close();
      await server.stop(0);
    },
  };
}

/** The one answer of a query, decoded. */
async function ask(client: DoqClient, name: string) {
  const messages = await within(client.query(buildQuery(0, name)), 3000);
  assert.equal(messages.length, 1, `one message for ${name}`);
  return answerRecords(messages[0]!);
}

function rcodeOf(message: Uint8Array): string {
  return dnsPacket.decode(Buffer.from(message)).rcode;
}

/** How the server closed `client`'s connection. */
async function closeCode(client: DoqClient): Promise<number> {
  const info = await within(client.closed, 3000);
  return info.closeCode;
}

Deno.test("serveDoq answers a query on its stream with Message ID 0, over IPv4 and IPv6", async (t) => {
  for (const host of ["127.0.0.1", "::1"]) {
    await t.step(host, async () => {
      await using s = start({}, host);
      const client = await s.connect();
      const answer = await ask(client, "one.test");
      assert.equal(answer.id, 0);
      assert.equal(answer.name, "one.test");
      assert.deepEqual(answer.records, ["A 192.0.2.1"]);
      const seen = s.handler.clients[0]!;
      assert.equal(seen.transport, "doq");
      assert.equal(seen.address, host);
      assert.equal(seen.clientId, undefined);
      assert.equal(s.counters.queries, 1);
      assert.equal(s.server.stats.accepted, 1);
    });
  }
});

Deno.test("serveDoq answers many concurrent streams of one connection, each with its own answer", async () => {
  await using s = start();
  const client = await s.connect();
  const names = Array.from(
    { length: 100 },
    (_, i) => i % 2 ? `slow-20.test` : `n${i}.test`,
  );
  const answers = await Promise.all(names.map((n) => ask(client, n)));
  assert.deepEqual(answers.map((a) => a.name), names);
  assert.ok(answers.every((a) => a.id === 0));
  assert.equal(s.server.stats.accepted, 1);
});

Deno.test("serveDoq grants maxStreamsPerConnection streams at once; more wait for credit", async () => {
  let inFlight = 0;
  let most = 0;
  const slow: QueryHandler = {
    setSnapshot() {},
    handle(query) {
      inFlight++;
      most = Math.max(most, inFlight);
      return new Promise((resolve) =>
        setTimeout(() => {
          inFlight--;
          const reply = query.slice();
          reply[2]! |= 0x80;
          resolve(reply);
        }, 30)
      );
    },
  };
  await using s = start({ handler: slow, maxStreamsPerConnection: 4 });
  const client = await s.connect();
  const replies = await within(
    Promise.all(
      Array.from(
        { length: 20 },
        (_, i) => client.query(buildQuery(0, `${i}.test`)),
      ),
    ),
    5000,
  );
  assert.equal(replies.length, 20);
  assert.ok(most <= 4, `at most 4 queries at once, saw ${most}`);
  assert.ok(most >= 2, `queries ran concurrently, saw ${most}`);
});

Deno.test("serveDoq closes the connection with DOQ_PROTOCOL_ERROR for a non-zero Message ID", async () => {
  await using s = start();
  const client = await s.connect();
  await assert.rejects(client.query(buildQuery(4321, "one.test")));
  const info = await within(client.closed, 3000);
  assert.equal(info.closeCode, DOQ_PROTOCOL_ERROR);
  assert.match(info.reason, /Message ID/);
  assert.equal(s.server.stats.protocolErrors, 1);
  assert.equal(s.counters.queries, 0, "the query never reached the handler");
});

Deno.test("serveDoq closes the connection with DOQ_PROTOCOL_ERROR for a stream that disagrees with its length prefix", async (t) => {
  const query = buildQuery(0, "one.test");
  const framed = new Uint8Array([
    query.length >> 8,
    query.length & 0xff,
    ...query,
  ]);
  const cases: [string, Uint8Array][] = [
    ["FIN before the whole message", framed.subarray(0, framed.length - 3)],
    ["FIN inside the length prefix", new Uint8Array([0])],
    ["FIN with no data at all", new Uint8Array(0)],
    ["data after the message", new Uint8Array([...framed, 0x01])],
    ["a second message", new Uint8Array([...framed, ...framed])],
    ["a zero length prefix", new Uint8Array([0, 0])],
    ["a message shorter than a header", new Uint8Array([0, 5, 0, 0, 1, 2, 3])],
    ["garbage", new Uint8Array([0xff, 0xff, 0x13, 0x37, 0xde, 0xad])],
  ];
  await using s = start();
  let expected = 0;
  for (const [what, bytes] of cases) {
    await t.step(what, async () => {
      const client = await s.connect();
      await assert.rejects(client.exchange(bytes));
      assert.equal(await closeCode(client), DOQ_PROTOCOL_ERROR);
      assert.equal(s.server.stats.protocolErrors, ++expected);
    });
  }
  assert.equal(s.counters.queries, 0);
  // The listener is unharmed.
  const client = await s.connect();
  assert.deepEqual((await ask(client, "after.test")).records, ["A 192.0.2.1"]);
});

Deno.test("serveDoq grants no unidirectional stream; the connection keeps working", async () => {
  await using s = start();
  const client = await s.connect();
  await assert.rejects(
    client.conn.createUnidirectionalStream(),
    (e: Error) => e instanceof RangeError && /unidirectional/.test(e.message),
  );
  assert.deepEqual((await ask(client, "still.test")).records, ["A 192.0.2.1"]);
});

Deno.test("serveDoq offers ALPN doq only: a client asking for another protocol, or none, fails its handshake", async () => {
  await using s = start();
  await assert.rejects(s.connect({ alpnProtocols: ["h3"] }), /protocol/);
  await assert.rejects(s.connect({ alpnProtocols: [] }), /protocol/);
  await within(
    (async () => {
      while (s.counters.tlsHandshakeFailed < 2) await sleep(10);
    })(),
    2000,
  );
  assert.equal(s.server.stats.accepted, 0);
  assert.equal(s.server.connections(), 0);
});

Deno.test("serveDoq refuses a connection over maxConnections when none is idle, and evicts the idlest when one is", async () => {
  await using s = start({ maxConnections: 2 });
  const a = await s.connect();
  const b = await s.connect();
  // Both busy: a query held on each.
  const heldA = a.query(buildQuery(0, "hold-1.test"));
  await sleep(20);
  const heldB = b.query(buildQuery(0, "hold-2.test"));
  await within(
    (async () => {
      while (s.handler.clients.length < 2) await sleep(5);
    })(),
    2000,
  );
  await assert.rejects(s.connect({ maxIdleTimeout: 1000 }));
  assert.equal(s.server.stats.refused, 1);

  s.handler.releaseHeld();
  assert.equal((await heldA).length, 1);
  assert.equal((await heldB).length, 1);
  // Both idle now; a's query came first, so a goes.
  await sleep(20);
  const c = await s.connect();
  assert.deepEqual((await ask(c, "new.test")).records, ["A 192.0.2.1"]);
  assert.equal(await closeCode(a), DOQ_NO_ERROR);
  assert.equal(s.server.stats.evicted, 1);
  assert.deepEqual((await ask(b, "kept.test")).records, ["A 192.0.2.1"]);
});

Deno.test("serveDoq ignores handshakes over handshakesPerSecond until the bucket refills", async () => {
  await using s = start({ handshakesPerSecond: 1 });
  const a = await s.connect();
  assert.deepEqual((await ask(a, "a.test")).records, ["A 192.0.2.1"]);
  // No token left: the Initial goes unanswered (the client's first
  // retransmission comes about a second later, after this gives up).
  const endpoint = new Deno.QuicEndpoint({ hostname: "127.0.0.1" });
  const pending = s.connect({ endpoint });
  pending.catch(() => {});
  await sleep(500);
  assert.ok(s.server.stats.throttled >= 1);
  endpoint.close();
  await assert.rejects(pending);
  assert.equal(s.server.stats.accepted, 1);
  // The bucket refills at one a second: a client that keeps sending its
  // Initial gets in.
  const b = await within(s.connect(), 4000);
  assert.deepEqual((await ask(b, "b.test")).records, ["A 192.0.2.1"]);
  assert.equal(s.server.stats.accepted, 2);
});

Deno.test("serveDoq takes the client ID from the server name under clientIdDomain", async () => {
  await using s = start({ clientIdDomain: "dns.test" });
  const phone = await s.connect({ serverName: "phone.dns.test" });
  await ask(phone, "one.test");
  const plain = await s.connect({ serverName: "localhost" });
  await ask(plain, "two.test");
  assert.equal(s.handler.clients[0]!.clientId, "phone");
  assert.equal(s.handler.clients[1]!.clientId, undefined);
  assert.equal(s.handler.clients[0]!.address, "127.0.0.1");
});

Deno.test("serveDoq setCertificate: new connections get the new pair, open ones go on", async () => {
  const next = await makeTestCertificates({
    dns: ["localhost"],
    ip: ["127.0.0.1"],
  });
  await using s = start();
  const before = await s.connect();
  await ask(before, "before.test");
  s.server.setCertificate({ cert: next.cert, key: next.key });
  // Opened before, still served.
  assert.deepEqual((await ask(before, "again.test")).records, ["A 192.0.2.1"]);
  // A client that trusts only the new CA gets in; one that trusts only the
  // old CA does not.
  const after = await s.connect({ caCerts: [next.caCert] });
  assert.deepEqual((await ask(after, "after.test")).records, ["A 192.0.2.1"]);
  await assert.rejects(
    s.connect({ caCerts: [certs.caCert] }),
    /invalid peer certificate/,
  );
  assert.throws(() =>
    s.server.setCertificate({ cert: "not a certificate", key: next.key })
  );
  const still = await s.connect({ caCerts: [next.caCert] });
  await ask(still, "still.test");
});

Deno.test("serveDoq stop answers a query still in flight with SERVFAIL, then closes with DOQ_NO_ERROR", async () => {
  await using s = start();
  const client = await s.connect();
  const held = client.query(buildQuery(0, "hold-1.test"));
  await within(
    (async () => {
      while (s.handler.clients.length === 0) await sleep(5);
    })(),
    2000,
  );
  const started = Date.now();
  await within(s.server.stop(100), 4000);
  const messages = await within(held, 1000);
  s.handler.releaseHeld(); // too late: SERVFAIL went already
  assert.equal(messages.length, 1);
  assert.equal(rcodeOf(messages[0]!), "SERVFAIL");
  assert.equal(answerRecords(messages[0]!).id, 0);
  assert.equal(await closeCode(client), DOQ_NO_ERROR);
  assert.ok(Date.now() - started < 3000);
  // Nothing is accepted any more. (The UDP socket itself goes when Deno
  // collects the endpoint, or the worker ends.)
  const endpoint = new Deno.QuicEndpoint({ hostname: "127.0.0.1" });
  const late = s.connect({ endpoint });
  late.catch(() => {});
  await sleep(300);
  endpoint.close();
  await assert.rejects(late);
  assert.equal(s.server.connections(), 0);
});

Deno.test("serveDoq stop lets a large answer written at the last moment arrive whole before it closes", async () => {
  // ~60 KB: more than QUIC sends before the client's first ACKs, so a
  // close right after the write would cut it.
  const logger = memoryLogger();
  const answers = createTestHandler({ logger });
  const releases: (() => void)[] = [];
  const late: QueryHandler = {
    setSnapshot() {},
    handle(query, client) {
      return new Promise((resolve) =>
        releases.push(() =>
          resolve(answers.handle(query, client) as Uint8Array | null)
        )
      );
    },
  };
  await using s = start({ handler: late, logger });
  const client = await s.connect();
  const big = client.query(buildQuery(0, "big.test"));
  await within(
    (async () => {
      while (releases.length === 0) await sleep(5);
    })(),
    2000,
  );
  const stopped = s.server.stop(5000);
  await sleep(20);
  releases[0]!();
  const messages = await within(big, 3000);
  assert.equal(messages.length, 1);
  assert.ok(messages[0]!.length > 60_000);
  assert.equal(rcodeOf(messages[0]!), "NOERROR");
  await within(stopped, 3000);
  assert.equal(await closeCode(client), DOQ_NO_ERROR);
});

Deno.test("serveDoq writes an answer of many messages on the query's stream, then FIN", async () => {
  const logger = memoryLogger();
  const message = (n: number) =>
    new Uint8Array(dnsPacket.encode({
      id: 0,
      type: "response",
      questions: [{ type: "AXFR", name: "zone.test" }],
      answers: [{ type: "TXT", name: "zone.test", ttl: 0, data: `part ${n}` }],
    }));
  const transfer: QueryHandler = {
    setSnapshot() {},
    handle(_query: Uint8Array, client: ClientInfo) {
      let n = 0;
      const stream: AnswerStream = {
        next: () => Promise.resolve(n < 3 ? message(++n) : undefined),
      };
      client.streams!(stream);
      return Promise.resolve(null);
    },
  };
  await using s = start({ handler: transfer, logger });
  const client = await s.connect();
  const messages = await within(
    client.query(buildQuery(0, "zone.test", "AXFR")),
    3000,
  );
  assert.deepEqual(
    messages.map((m) => answerRecords(m).records[0]),
    ["TXT part 1", "TXT part 2", "TXT part 3"],
  );
  // The connection goes on.
  const again = await within(
    client.query(buildQuery(0, "zone.test", "AXFR")),
    3000,
  );
  assert.equal(again.length, 3);
});

Deno.test("serveDoq ends the stream with a FIN alone when the handler gives no answer", async () => {
  await using s = start();
  const client = await s.connect();
  assert.deepEqual(
    await within(client.query(buildQuery(0, "drop.test")), 3000),
    [],
  );
  assert.deepEqual((await ask(client, "next.test")).records, ["A 192.0.2.1"]);
});

Deno.test("serveDoq marks queries overloaded beyond maxInFlight", async () => {
  await using s = start({ maxInFlight: 1 });
  const client = await s.connect();
  const first = client.query(buildQuery(0, "slow-200.test"));
  await within(
    (async () => {
      while (s.handler.clients.length === 0) await sleep(5);
    })(),
    2000,
  );
  // Dropped by the handler, as the pipeline drops what would wait.
  assert.deepEqual(
    await within(client.query(buildQuery(0, "slow-200.test")), 3000),
    [],
  );
  assert.equal(s.handler.clients[1]!.overloaded, true);
  assert.equal((await within(first, 3000)).length, 1);
  assert.equal(s.handler.clients[0]!.overloaded, undefined);
});

Deno.test("serveDoq counts an answer the client stopped (STOP_SENDING) and keeps the connection", async () => {
  await using s = start();
  const client = await s.connect();
  const stream = await client.conn.createBidirectionalStream();
  const query = buildQuery(0, "slow-100.test");
  const writer = stream.writable.getWriter();
  await writer.write(new Uint8Array([0, query.length, ...query]));
  await writer.close();
  await stream.readable.cancel();
  await within(
    (async () => {
      while (s.counters.sendErrors === 0) await sleep(10);
    })(),
    2000,
  );
  assert.deepEqual((await ask(client, "next.test")).records, ["A 192.0.2.1"]);
});

Deno.test("serveDoq closes a connection at the QUIC idle timeout; keep-alives hold it open", async () => {
  await using s = start({ idleTimeoutMs: 400 });
  const quiet = await s.connect();
  const kept = await s.connect({ keepAliveInterval: 100 });
  await ask(quiet, "one.test");
  await ask(kept, "one.test");
  await assert.rejects(within(quiet.closed, 3000), /timed out/);
  await within(
    (async () => {
      while (s.server.stats.idleClosed === 0) await sleep(10);
    })(),
    2000,
  );
  assert.equal(s.server.stats.idleClosed, 1);
  await sleep(400);
  assert.deepEqual((await ask(kept, "two.test")).records, ["A 192.0.2.1"]);
});

Deno.test("serveDoq closes the connection with DOQ_PROTOCOL_ERROR when a query never ends", async () => {
  await using s = start({ idleTimeoutMs: 600 });
  const client = await s.connect({ keepAliveInterval: 100 });
  const stream = await client.conn.createBidirectionalStream();
  const writer = stream.writable.getWriter();
  // A length prefix and part of the message, and no FIN.
  await writer.write(new Uint8Array([0, 30, 0, 0, 1, 0]));
  const started = Date.now();
  const info = await within(client.closed, 3000);
  assert.equal(info.closeCode, DOQ_PROTOCOL_ERROR);
  assert.equal(s.server.stats.stalled, 1);
  // Half the idle timeout, give or take the timer's period.
  assert.ok(Date.now() - started < 1500);
});

Deno.test("serveDoq closes the connection with DOQ_EXCESSIVE_LOAD when queries still arriving hold too many octets", async () => {
  await using s = start();
  const client = await s.connect();
  // Four streams announce 65,535 octets, send 60,000 each and no FIN: the
  // connection may hold the first read of every stream and two such.
  const part = new Uint8Array(2 + 60_000);
  part[0] = 0xff;
  part[1] = 0xff;
  for (let i = 0; i < 4; i++) {
    const stream = await client.conn.createBidirectionalStream();
    stream.writable.getWriter().write(part).catch(() => {});
  }
  assert.equal(await closeCode(client), DOQ_EXCESSIVE_LOAD);
  assert.equal(s.server.stats.excessiveLoad, 1);
});
