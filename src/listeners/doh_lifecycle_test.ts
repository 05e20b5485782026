/**
 * The DoH listener's life: certificates replaced while clients are
 * connected, stops with queries and bodies in flight, bodies that stop
 * arriving, ports shared or taken.
 */
import assert from "node:assert/strict";
import { makeTestCertificates } from "../upstream/testdata/certs.ts";
import {
  answerRecords,
  buildQuery,
  decodeResponse,
  queryMessage,
} from "../testing/dns_client.ts";
import {
  base64Url,
  curl,
  scratchDir,
  startDoh,
  until,
} from "./testdata/doh_client.ts";

const first = await makeTestCertificates();
const second = await makeTestCertificates(); // another CA
const pairOf = (c: { cert: string; key: string }) => ({
  cert: c.cert,
  key: c.key,
});

function getUrl(port: number, name: string, id = 0): string {
  return `https://localhost:${port}/dns-query?dns=${
    base64Url(buildQuery(id, name))
  }`;
}

/**
 * Sends `head` then `body` over HTTP/1.1 on a TLS connection of its own,
 * and leaves the connection open: the caller decides what comes next.
 */
async function rawRequest(port: number, head: string, body: Uint8Array) {
  const conn = await Deno.connectTls({
    hostname: "127.0.0.1",
    port,
    caCerts: [first.caCert],
  });
  await conn.write(new TextEncoder().encode(head));
  if (body.length > 0) await conn.write(body);
  return conn;
}

/** The status line's code of the response on `conn`, read to the end of its headers. */
async function readStatus(conn: Deno.Conn): Promise<number> {
  const buf = new Uint8Array(4096);
  let text = "";
  while (!text.includes("\r\n\r\n")) {
    const n = await conn.read(buf);
    if (n === null) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
  assert.ok(status, `no status line in ${JSON.stringify(text.slice(0, 80))}`);
  return Number(status[1]);
}

const partialPost = (length: number) =>
  "POST /dns-query HTTP/1.1\r\nHost: localhost\r\n" +
  `Content-Type: application/dns-message\r\nContent-Length: ${length}\r\n\r\n`;

Deno.test("setCertificate: a request in flight finishes on the old pair, new clients get the new one", async () => {
  await using dir = await scratchDir();
  const caFirst = dir.caFile(first);
  const caSecond = dir.caFile(second);
  await using s = startDoh({ certificate: pairOf(first) });
  const ok = (ca: string, name: string) =>
    curl(dir.path, ["--cacert", ca, getUrl(s.port, name)]);

  assert.equal((await ok(caFirst, "before.test")).status, 200);
  assert.equal((await ok(caSecond, "before.test")).exitCode, 60); // not trusted

  // A client mid-request on the old server: its answer is held.
  const held = ok(caFirst, "hold-1.test");
  await until(() => s.handler.clients.length === 2);
  let replaced = false;
  const rotating = s.server.setCertificate(pairOf(second)).then(() => {
    replaced = true;
  });
  // New connections, as soon as the call returns, get the new pair.
  await new Promise((r) => setTimeout(r, 20));
  for (let i = 0; i < 5; i++) {
    const r = await ok(caSecond, `after-${i}.test`);
    assert.equal(r.exitCode, 0, `new client ${i}`);
    assert.equal(r.status, 200);
    assert.equal((await ok(caFirst, `old-ca-${i}.test`)).exitCode, 60);
  }
  // The old server waits for its request: the rotation is not done yet.
  assert.equal(replaced, false);
  s.handler.releaseHeld();
  const answered = await held;
  assert.equal(answered.status, 200);
  assert.deepEqual(answerRecords(answered.body).records, ["A 192.0.2.1"]);
  await rotating;
  assert.equal(replaced, true);
  assert.equal((await ok(caSecond, "later.test")).status, 200);
  assert.equal(s.server.addr.port, s.port);
});

Deno.test("setCertificate rejects a pair Deno cannot load, and the old pair stays", async () => {
  await using dir = await scratchDir();
  const ca = dir.caFile(first);
  await using s = startDoh({ certificate: pairOf(first) });
  await assert.rejects(
    s.server.setCertificate({ cert: "not a certificate", key: first.key }),
  );
  await assert.rejects(
    s.server.setCertificate({
      cert: first.cert,
      key: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    }),
  );
  const r = await curl(dir.path, [
    "--cacert",
    ca,
    getUrl(s.port, "still.test"),
  ]);
  assert.equal(r.status, 200);
});

Deno.test("setCertificate on a plain HTTP listener rejects", async () => {
  await using s = startDoh({ trustedProxies: ["127.0.0.1"] });
  await assert.rejects(s.server.setCertificate(pairOf(first)), TypeError);
});

Deno.test("stop answers SERVFAIL to a query not answered within answerWithinMs", async () => {
  await using dir = await scratchDir();
  const ca = dir.caFile(first);
  const s = startDoh({ certificate: pairOf(first) });
  const query = queryMessage("hold-1.test", "A", { id: 9, edns: true });
  const pending = curl(dir.path, [
    "--cacert",
    ca,
    `https://localhost:${s.port}/dns-query?dns=${base64Url(query)}`,
  ]);
  await until(() => s.handler.clients.length === 1);
  const started = Date.now();
  await s.server.stop(200);
  const stopMs = Date.now() - started;
  const r = await pending;
  s.handler.releaseHeld(); // too late: the answer went already
  assert.equal(r.status, 200);
  assert.equal(r.headers["cache-control"], "max-age=0");
  const m = decodeResponse(r.body);
  assert.equal(m.id, 9);
  assert.equal(m.rcode, "SERVFAIL");
  // stop_answer.ts's Extended DNS Error says why (RFC 8914, Other).
  assert.equal(m.additionals[0]?.type, "OPT");
  assert.match(
    new TextDecoder().decode(r.body),
    /server shutting down/,
  );
  assert.ok(stopMs >= 190 && stopMs < 2000, `stop took ${stopMs} ms`);
  // Stopped: nothing listens any more.
  await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port: s.port }));
});

Deno.test("stop waits for a query answered within answerWithinMs", async () => {
  await using dir = await scratchDir();
  const ca = dir.caFile(first);
  const s = startDoh({ certificate: pairOf(first) });
  const pending = curl(dir.path, [
    "--cacert",
    ca,
    getUrl(s.port, "slow-150.test", 3),
  ]);
  await until(() => s.handler.clients.length === 1);
  await s.server.stop(3000);
  const r = await pending;
  assert.deepEqual(answerRecords(r.body), {
    id: 3,
    name: "slow-150.test",
    records: ["A 192.0.2.1"],
  });
});

Deno.test("a POST body that stops arriving gets 408 after bodyTimeoutMs", async () => {
  await using s = startDoh({ certificate: pairOf(first), bodyTimeoutMs: 300 });
  for (const chunked of [false, true]) {
    const head = chunked
      ? "POST /dns-query HTTP/1.1\r\nHost: localhost\r\n" +
        "Content-Type: application/dns-message\r\nTransfer-Encoding: chunked\r\n\r\n"
      : partialPost(29);
    // Five octets of the query (as a chunk when chunked), then nothing.
    const body = chunked
      ? new TextEncoder().encode("5\r\nabcde\r\n")
      : new Uint8Array(5);
    using conn = await rawRequest(s.port, head, body);
    const started = Date.now();
    assert.equal(
      await readStatus(conn),
      408,
      chunked ? "chunked" : "with a length",
    );
    assert.ok(Date.now() - started >= 250);
  }
  assert.equal(s.counters.dohBadRequest, 2);
  assert.equal(s.counters.queries, 0);
});

Deno.test("stop answers 503 to a POST whose body is still arriving, and does not wait for it forever", async () => {
  const s = startDoh({ certificate: pairOf(first) });
  const conn = await rawRequest(s.port, partialPost(29), new Uint8Array(5));
  try {
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    const stopping = s.server.stop(200);
    assert.equal(await readStatus(conn), 503);
    // The client keeps its connection (the body unfinished), which holds
    // Deno's server open: the stop gives up on it after the close grace.
    await stopping;
    const took = Date.now() - started;
    assert.ok(took >= 1000 && took < 3000, `stop took ${took} ms`);
    assert.ok(
      s.logger.lines.some((l) =>
        l.includes("stopped with connections still open")
      ),
      s.logger.lines.join("\n"),
    );
  } finally {
    conn.close();
  }
  // Let the abandoned server see the close and end before the test does.
  await new Promise((r) => setTimeout(r, 200));
});

Deno.test("serveDoh on a fixed port: refuses one in use, shares one with reusePort", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    assert.throws(
      () => startDoh({ certificate: pairOf(first), port: taken.addr.port }),
      Deno.errors.AddrInUse,
    );
  } finally {
    taken.close();
  }
  await using dir = await scratchDir();
  const ca = dir.caFile(first);
  await using a = startDoh({ certificate: pairOf(first) });
  await using b = startDoh({
    certificate: pairOf(first),
    port: a.port,
    reusePort: true,
  });
  assert.equal(b.port, a.port);
  // Either may take a connection; between them every one is answered.
  for (let i = 0; i < 6; i++) {
    const r = await curl(dir.path, [
      "--cacert",
      ca,
      getUrl(a.port, `shared-${i}.test`),
    ]);
    assert.equal(r.status, 200);
  }
  assert.equal(a.counters.queries + b.counters.queries, 6);
});
