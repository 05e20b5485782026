/**
 * DoH queries left unanswered by a server that goes away are asked again on
 * a new connection. Deno.serve cannot refuse streams or drop a session
 * mid-request, so these tests run a node:http2 server.
 */
import assert from "node:assert/strict";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { createHttpsTransport } from "./https.ts";
import { addressIn, makeAnswer, makeQuery } from "./tls_test_server.ts";
import { makeTestCertificates } from "./testdata/certs.ts";

const certs = await makeTestCertificates();

/**
 * How the server treats its `n`th stream (from 1): answer it, refuse it,
 * leave it waiting, or destroy its session (after a moment, so the
 * client's other queries are in flight).
 */
type Plan = (n: number, stream: http2.ServerHttp2Stream) =>
  | "answer"
  | "wait"
  | "destroy";

async function withServer(
  plan: Plan,
  body: (
    port: number,
    seen: { sessions: number; streams: number },
  ) => Promise<void>,
): Promise<void> {
  const seen = { sessions: 0, streams: 0 };
  const server = http2.createSecureServer({ cert: certs.cert, key: certs.key });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    seen.sessions++;
    sessions.add(session);
    session.on("error", () => {});
    session.on("close", () => sessions.delete(session));
  });
  server.on("stream", (stream) => {
    const n = ++seen.streams;
    stream.on("error", () => {});
    const chunks: Uint8Array[] = [];
    stream.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    stream.on("end", () => {
      const what = plan(n, stream);
      if (what === "destroy") {
        setTimeout(() => stream.session?.destroy(), 20);
      } else if (what === "answer" && !stream.closed) {
        stream.respond({
          ":status": 200,
          "content-type": "application/dns-message",
        });
        stream.end(
          makeAnswer(new Uint8Array(Buffer.concat(chunks)), "192.0.2.1"),
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    await body((server.address() as AddressInfo).port, seen);
  } finally {
    for (const session of sessions) session.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Sends `count` queries at once; the answers' addresses, or the errors. */
async function askAll(port: number, count: number): Promise<string[]> {
  const doh = createHttpsTransport({
    raw: `https://localhost:${port}/dns-query`,
    scheme: "https",
    host: "localhost",
    port,
    path: "/dns-query",
  }, { address: "127.0.0.1", caCerts: [certs.caCert] });
  try {
    const results = await Promise.allSettled(
      Array.from(
        { length: count },
        (_, i) =>
          doh.exchange(
            makeQuery(i + 1, "example.org"),
            AbortSignal.timeout(2000),
          ),
      ),
    );
    return results.map((r) =>
      r.status === "fulfilled"
        ? addressIn(r.value) ?? "no address"
        : String(r.reason?.message ?? r.reason)
    );
  } finally {
    await doh.closeAndWait();
  }
}

Deno.test("DoH queries refused after a GOAWAY are asked again on a new connection", async () => {
  // Like nginx after http2_max_requests: GOAWAY naming the third stream as
  // the last processed; later streams on that connection are refused.
  await withServer((n, stream) => {
    if (n === 3) stream.session?.goaway(0, stream.id);
    return "answer";
  }, async (port, seen) => {
    assert.deepEqual(await askAll(port, 6), Array(6).fill("192.0.2.1"));
    assert.equal(seen.sessions, 2);
  });
});

Deno.test("DoH queries refused with RST_STREAM are asked again once", async () => {
  await withServer((n, stream) => {
    if (n === 2) stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
    return "answer";
  }, async (port) => {
    assert.deepEqual(await askAll(port, 3), Array(3).fill("192.0.2.1"));
  });
});

Deno.test("DoH queries waiting on a session the server drops are asked again", async () => {
  // Streams 2 and 3 wait; the 4th brings the session down (a server
  // restarting): all three are asked again on a new connection.
  await withServer(
    (n) => n === 1 || n > 4 ? "answer" : n === 4 ? "destroy" : "wait",
    async (port, seen) => {
      assert.deepEqual(await askAll(port, 4), Array(4).fill("192.0.2.1"));
      assert.equal(seen.sessions, 2);
      assert.equal(seen.streams, 7);
    },
  );
});

Deno.test("DoH asks again only once", async () => {
  // Every stream after the first is refused: a query fails after its
  // second refusal instead of trying forever.
  await withServer((n, stream) => {
    if (n > 1) stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
    return "answer";
  }, async (port, seen) => {
    const results = await askAll(port, 2);
    assert.equal(results[0], "192.0.2.1");
    assert.match(results[1]!, /NGHTTP2_REFUSED_STREAM/);
    assert.equal(seen.streams, 3);
  });
});
