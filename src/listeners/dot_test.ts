import assert from "node:assert/strict";
import tls from "node:tls";
import { memoryLogger } from "../log/logger.ts";
import { makeTestCertificates } from "../upstream/testdata/certs.ts";
import { serveDot } from "./dot.ts";
import { emptySocketCounters } from "./worker_messages.ts";
import { createTestHandler } from "./testdata/test_handler.ts";
import {
  answerRecords,
  buildQuery,
  frames,
  readFrame,
  within,
  writeAll,
} from "../testing/dns_client.ts";

const NAMES = {
  dns: ["localhost", "dns.test", "*.dns.test"],
  ip: ["127.0.0.1", "::1"],
};

async function start(hostname = "127.0.0.1") {
  const certs = await makeTestCertificates(NAMES);
  const logger = memoryLogger();
  const handler = createTestHandler({ logger });
  const counters = emptySocketCounters();
  const server = await serveDot({
    hostname,
    port: 0,
    handler,
    counters,
    logger,
    certificate: { cert: certs.cert, key: certs.key },
    clientIdDomain: "dns.test",
  });
  return {
    certs,
    handler,
    counters,
    server,
    port: server.addr.port,
    [Symbol.asyncDispose]: () => server.stop(),
  };
}

/** A DoT client connection trusting `caCert` only. */
function connect(port: number, caCert: string, hostname = "localhost") {
  return Deno.connectTls({
    hostname,
    port,
    caCerts: [caCert],
    alpnProtocols: ["dot"],
  });
}

async function ask(conn: Deno.Conn, id: number, name: string) {
  await writeAll(conn, frames(buildQuery(id, name)));
  const frame = await within(readFrame(conn), 3000);
  assert.ok(frame, "the server closed instead of answering");
  return answerRecords(frame);
}

async function kdig(args: string[]): Promise<string> {
  const out = await new Deno.Command("kdig", { args, stdout: "piped" })
    .output();
  return new TextDecoder().decode(out.stdout);
}

Deno.test("serveDot answers kdig +tls, with ALPN dot, as transport dot", async () => {
  await using s = await start();
  const caFile = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(caFile, s.certs.caCert);
    const text = await kdig([
      "@127.0.0.1",
      "-p",
      String(s.port),
      `+tls-ca=${caFile}`,
      "+tls-hostname=localhost",
      "www.example.test",
      "A",
    ]);
    assert.match(text, /status: NOERROR/);
    assert.match(text, /192\.0\.2\.1/);
    assert.equal(s.handler.clients.at(-1)?.transport, "dot");
  } finally {
    await Deno.remove(caFile);
  }
  using conn = await connect(s.port, s.certs.caCert);
  assert.equal((await conn.handshake()).alpnProtocol, "dot");
});

Deno.test("serveDot answers pipelined queries on one connection, over IPv6 too", async (t) => {
  for (const host of ["127.0.0.1", "::1"]) {
    await t.step(host, async () => {
      await using s = await start(host);
      using conn = await connect(s.port, s.certs.caCert, host);
      await writeAll(
        conn,
        frames(
          buildQuery(1, "slow-50.test"),
          buildQuery(2, "two.test"),
          buildQuery(3, "three.test"),
        ),
      );
      const ids = [];
      for (let i = 0; i < 3; i++) {
        const frame = await within(readFrame(conn), 3000);
        assert.ok(frame);
        ids.push(answerRecords(frame).id);
      }
      // Answered as they complete: the slow one last.
      assert.equal(ids[2], 1);
      assert.deepEqual(ids.sort(), [1, 2, 3]);
      assert.equal(s.counters.queries, 3);
    });
  }
});

Deno.test("serveDot takes the client ID from the server name under clientIdDomain", async () => {
  await using s = await start();
  const askAs = (servername: string) =>
    new Promise<void>((resolve, reject) => {
      const socket = tls.connect({
        host: "127.0.0.1",
        port: s.port,
        servername,
        ca: s.certs.caCert,
        ALPNProtocols: ["dot"],
      }, () => socket.write(frames(buildQuery(9, "client.test"))));
      socket.once("data", () => {
        socket.destroy();
        resolve();
      });
      socket.once("error", reject);
    });
  await askAs("phone.dns.test");
  assert.equal(s.handler.clients.at(-1)?.clientId, "phone");
  await askAs("dns.test");
  assert.equal(s.handler.clients.at(-1)?.clientId, undefined);
  await askAs("localhost");
  assert.equal(s.handler.clients.at(-1)?.clientId, undefined);
});

Deno.test("serveDot serves a new certificate to new connections while open ones go on", async () => {
  await using s = await start();
  using before = await connect(s.port, s.certs.caCert);
  assert.equal((await ask(before, 1, "one.test")).id, 1);

  const next = await makeTestCertificates(NAMES);
  s.server.setCertificate({ cert: next.cert, key: next.key });
  // The open connection keeps its session.
  assert.equal((await ask(before, 2, "two.test")).id, 2);
  // A new one gets the new certificate: trusted by the new CA only.
  using after = await connect(s.port, next.caCert);
  assert.equal((await ask(after, 3, "three.test")).id, 3);
  const stale = await connect(s.port, s.certs.caCert);
  await assert.rejects(() => stale.handshake());
  stale.close();
});

Deno.test("serveDot counts a failed handshake and keeps serving", async () => {
  await using s = await start();
  const plain = await Deno.connect({ hostname: "127.0.0.1", port: s.port });
  // Plain DNS over TCP where TLS is expected: not a ClientHello.
  await writeAll(plain, frames(buildQuery(1, "plain.test")));
  await within(plain.read(new Uint8Array(512)).catch(() => null), 3000);
  plain.close();
  for (let i = 0; i < 50 && s.counters.tlsHandshakeFailed === 0; i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(s.counters.tlsHandshakeFailed, 1);
  using conn = await connect(s.port, s.certs.caCert);
  assert.equal((await ask(conn, 4, "after.test")).id, 4);
});

Deno.test("serveDot reports a port in use as AddrInUse", async () => {
  await using s = await start();
  const certs = s.certs;
  await assert.rejects(
    () =>
      serveDot({
        hostname: "127.0.0.1",
        port: s.port,
        handler: s.handler,
        counters: emptySocketCounters(),
        logger: memoryLogger(),
        certificate: { cert: certs.cert, key: certs.key },
      }),
    (error: Error) => error.name === "AddrInUse",
  );
});
