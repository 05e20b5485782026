import assert from "node:assert/strict";
import { memoryLogger } from "../log/logger.ts";
import { makeTestCertificates } from "../upstream/testdata/certs.ts";
import { serveTcp, type TcpServer } from "./tcp.ts";
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
import { ProxyTrust } from "./proxy_trust.ts";
import { encodeProxyV2 } from "./proxy_v2.ts";

const SECRET = new TextEncoder().encode("kudurru-and-dnsdist-share-this!!");

/** The header dnsdist sends for a client at `address`:`port`, with `secret`. */
function header(address: string, port: number, secret?: Uint8Array) {
  return encodeProxyV2({
    protocol: "stream",
    source: { address, port },
    destination: {
      address: address.includes(":") ? "::1" : "127.0.0.1",
      port: 53,
    },
    ...(secret && { tlvs: [{ type: 0xe0, value: secret }] }),
  });
}

function join(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function start(trust: ProxyTrust) {
  const logger = memoryLogger();
  const handler = createTestHandler({ logger });
  const counters = emptySocketCounters();
  const server: TcpServer = serveTcp({
    hostname: "127.0.0.1",
    port: 0,
    handler,
    counters,
    logger,
    proxy: trust,
  });
  return {
    handler,
    counters,
    port: server.addr.port,
    [Symbol.asyncDispose]: () => server.stop(),
  };
}

/** The TXT the test handler answers client.test with: the client's address. */
async function clientSeen(conn: Deno.Conn): Promise<string | undefined> {
  const frame = await within(readFrame(conn), 3000);
  return frame === null ? undefined : answerRecords(frame).records[0];
}

Deno.test("serveTcp takes the client from a PROXYv2 header with the secret, even split across writes", async () => {
  await using s = start(
    new ProxyTrust({ from: ["127.0.0.1"], secret: SECRET }),
  );
  const bytes = join(
    header("192.0.2.44", 5353, SECRET),
    frames(buildQuery(1, "client.test", "TXT")),
  );
  using conn = await Deno.connect({ hostname: "127.0.0.1", port: s.port });
  // A byte at a time through the signature, then the rest.
  for (let i = 0; i < 14; i++) {
    await writeAll(conn, bytes.subarray(i, i + 1));
    await new Promise((r) => setTimeout(r, 2));
  }
  await writeAll(conn, bytes.subarray(14));
  assert.equal(await clientSeen(conn), "TXT 192.0.2.44");
  // Every later query of the connection is the same client's.
  await writeAll(conn, frames(buildQuery(2, "client.test", "TXT")));
  assert.equal(await clientSeen(conn), "TXT 192.0.2.44");
  assert.equal(s.handler.clients.at(-1)?.port, 5353);
});

Deno.test("serveTcp closes a connection whose header comes from a stranger, and counts it", async () => {
  await using s = start(
    new ProxyTrust({ from: ["127.0.0.2"], secret: SECRET }),
  );
  const query = frames(buildQuery(1, "client.test", "TXT"));
  // 127.0.0.1 is not listed: its header is not believed.
  using stranger = await Deno.connect({ hostname: "127.0.0.1", port: s.port });
  await writeAll(stranger, join(header("192.0.2.9", 1, SECRET), query));
  assert.equal(await clientSeen(stranger), undefined);
  assert.equal(s.counters.proxyUntrusted, 1);
  assert.equal(s.counters.queries, 0, "nothing reached the handler");
});

Deno.test("serveTcp drops a listed peer's header without the secret, and answers a header-less one as the peer", async () => {
  await using s = start(
    new ProxyTrust({ from: ["127.0.0.1"], secret: SECRET }),
  );
  const query = frames(buildQuery(1, "client.test", "TXT"));
  using unsigned = await Deno.connect({ hostname: "127.0.0.1", port: s.port });
  await writeAll(unsigned, join(header("192.0.2.9", 1), query));
  assert.equal(await clientSeen(unsigned), undefined);
  assert.equal(s.counters.proxyUnauthenticated, 1);

  using direct = await Deno.connect({ hostname: "127.0.0.1", port: s.port });
  await writeAll(direct, query);
  assert.equal(await clientSeen(direct), "TXT 127.0.0.1");
});

Deno.test("serveDot takes a PROXYv2 header sent inside the TLS session", async () => {
  const certs = await makeTestCertificates();
  const logger = memoryLogger();
  const handler = createTestHandler({ logger });
  const server = await serveDot({
    hostname: "127.0.0.1",
    port: 0,
    handler,
    counters: emptySocketCounters(),
    logger,
    certificate: { cert: certs.cert, key: certs.key },
    proxy: new ProxyTrust({ from: ["127.0.0.1"], secret: SECRET }),
  });
  try {
    using conn = await Deno.connectTls({
      hostname: "localhost",
      port: server.addr.port,
      caCerts: [certs.caCert],
    });
    await writeAll(
      conn,
      join(
        header("2001:db8::7", 853, SECRET),
        frames(buildQuery(1, "client.test", "TXT")),
      ),
    );
    assert.equal(await clientSeen(conn), "TXT 2001:db8::7");
    assert.equal(handler.clients.at(-1)?.transport, "dot");
  } finally {
    await server.stop();
  }
});
