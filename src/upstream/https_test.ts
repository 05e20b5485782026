import assert from "node:assert/strict";
import { createHttpsTransport } from "./https.ts";
import { STALL_MS } from "./pipelined_connection.ts";
import type { PooledTransport } from "./tcp.ts";
import type { UpstreamServer } from "../config/upstream_server.ts";
import {
  addressIn,
  makeAnswer,
  makeQuery,
  startSilentServer,
} from "./tls_test_server.ts";
import {
  makeTestCertificates,
  type TestCertificates,
} from "./testdata/certs.ts";

const certs = await makeTestCertificates();

type Handler = (
  query: Uint8Array,
  request: Request,
  /** The client's port: one per connection. */
  clientPort: number,
) => Response | Promise<Response>;

/** A DoH server on 127.0.0.1 that counts the connections it sees. */
interface DohServer extends AsyncDisposable {
  port: number;
  /** Distinct client ports seen: one per TCP connection. */
  readonly connections: number;
  /** Requests seen, with their method and path. */
  readonly requests: string[];
}

function startDohServer(
  handler: Handler,
  tls: TestCertificates = certs,
): DohServer {
  const clientPorts = new Set<number>();
  const requests: string[] = [];
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: tls.cert,
    key: tls.key,
    onListen() {},
  }, async (request, info) => {
    clientPorts.add(info.remoteAddr.port);
    requests.push(`${request.method} ${new URL(request.url).pathname}`);
    return await handler(
      new Uint8Array(await request.arrayBuffer()),
      request,
      info.remoteAddr.port,
    );
  });
  return {
    port: server.addr.port,
    get connections() {
      return clientPorts.size;
    },
    requests,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

const dnsAnswer = (query: Uint8Array, address = "192.0.2.1") =>
  new Response(makeAnswer(query, address), {
    headers: { "content-type": "application/dns-message" },
  });

function dohServer(port: number, host = "localhost"): UpstreamServer {
  return {
    raw: `https://${host}:${port}/dns-query`,
    scheme: "https",
    host,
    port,
    path: "/dns-query",
  };
}

/** A transport whose pooled connection is fully closed when disposed. */
function transport(
  server: UpstreamServer,
  caCerts = [certs.caCert],
  idleTimeoutMs?: number,
  connectTimeoutMs?: number,
): PooledTransport & AsyncDisposable {
  const t = createHttpsTransport(server, {
    address: "127.0.0.1",
    caCerts,
    ...(idleTimeoutMs ? { idleTimeoutMs } : {}),
    ...(connectTimeoutMs ? { connectTimeoutMs } : {}),
  });
  return Object.assign(t, {
    async [Symbol.asyncDispose]() {
      await t.closeAndWait();
    },
  });
}

const never = new AbortController().signal;

Deno.test("createHttpsTransport answers a query with a POST", async () => {
  await using server = startDohServer((query) => dnsAnswer(query));
  await using doh = transport(dohServer(server.port));
  const answer = await doh.exchange(makeQuery(0x4321, "example.org"), never);
  assert.equal(addressIn(answer), "192.0.2.1");
  assert.equal((answer[0]! << 8) | answer[1]!, 0x4321);
  assert.deepEqual(server.requests, ["POST /dns-query"]);
});

Deno.test("createHttpsTransport reuses one connection for many queries", async () => {
  await using server = startDohServer((query) => dnsAnswer(query));
  await using doh = transport(dohServer(server.port));
  await Promise.all(
    [1, 2, 3].map((id) => doh.exchange(makeQuery(id, "example.org"), never)),
  );
  await doh.exchange(makeQuery(4, "example.org"), never);
  assert.equal(server.requests.length, 4);
  assert.equal(server.connections, 1);
});

Deno.test("createHttpsTransport verifies the TLS name while dialling an IP", async () => {
  // https://127.0.0.1 with tlsServerName localhost, and a certificate with
  // no IP entry: only works when the dialled address and the name differ.
  const nameOnly = await makeTestCertificates({ dns: ["localhost"], ip: [] });
  await using server = startDohServer((query) => dnsAnswer(query), nameOnly);
  await using doh = transport({
    ...dohServer(server.port, "127.0.0.1"),
    tlsServerName: "localhost",
  }, [nameOnly.caCert]);
  const answer = await doh.exchange(makeQuery(1, "example.org"), never);
  assert.equal(addressIn(answer), "192.0.2.1");
});

Deno.test("createHttpsTransport rejects what is not a DNS answer", async (t) => {
  const rows: { name: string; reply: Handler; error: RegExp }[] = [
    {
      name: "a non-200 status",
      reply: () => new Response("busy", { status: 503 }),
      error: /HTTP status 503/,
    },
    {
      name: "a wrong content type",
      reply: (query) =>
        new Response(makeAnswer(query, "192.0.2.1"), {
          headers: { "content-type": "text/html" },
        }),
      error: /content type "text\/html" is not application\/dns-message/,
    },
    {
      name: "a body over 65,535 bytes",
      reply: () =>
        new Response(new Uint8Array(70_000), {
          headers: { "content-type": "application/dns-message" },
        }),
      error: /the body is over 65535 bytes/,
    },
  ];
  for (const row of rows) {
    await t.step(row.name, async () => {
      await using server = startDohServer(row.reply);
      await using doh = transport(dohServer(server.port));
      await assert.rejects(
        doh.exchange(makeQuery(1, "example.org"), never),
        (err: Error) => {
          assert.match(
            err.message,
            new RegExp(
              `^DoH server "https://localhost:${server.port}/dns-query" gave no answer: `,
            ),
          );
          assert.match(err.message, row.error);
          return true;
        },
      );
    });
  }
});

Deno.test("createHttpsTransport rejects certificates it must not trust", async (t) => {
  const rows: {
    name: string;
    serve: () => Promise<TestCertificates>;
    trust: (served: TestCertificates) => string;
    error: RegExp;
  }[] = [
    {
      name: "a certificate for another name",
      serve: () => makeTestCertificates({ dns: ["other.test"], ip: [] }),
      trust: (served) => served.caCert,
      error: /localhost/,
    },
    {
      name: "a certificate from an unknown CA",
      serve: () => makeTestCertificates(),
      trust: () => certs.caCert,
      error: /certificate/,
    },
  ];
  for (const row of rows) {
    await t.step(row.name, async () => {
      const served = await row.serve();
      await using server = startDohServer((query) => dnsAnswer(query), served);
      await using doh = transport(dohServer(server.port), [row.trust(served)]);
      await assert.rejects(
        doh.exchange(makeQuery(1, "example.org"), never),
        (err: Error) => {
          assert.match(
            err.message,
            new RegExp(
              `^Cannot connect to DoH server "https://localhost:${server.port}/dns-query" at 127\\.0\\.0\\.1:${server.port}: `,
            ),
          );
          assert.match(err.message, row.error);
          return true;
        },
      );
    });
  }
});

Deno.test("createHttpsTransport opens a new connection after an idle close", async () => {
  await using server = startDohServer((query) => dnsAnswer(query));
  await using doh = transport(dohServer(server.port), [certs.caCert], 30);
  await doh.exchange(makeQuery(1, "example.org"), never);
  await new Promise((r) => setTimeout(r, 150));
  await doh.exchange(makeQuery(2, "example.org"), never);
  assert.equal(server.connections, 2);
});

Deno.test("createHttpsTransport stops waiting when the signal aborts", async () => {
  const release = Promise.withResolvers<void>();
  await using server = startDohServer(async (query) => {
    await release.promise;
    return dnsAnswer(query);
  });
  await using doh = transport(dohServer(server.port));
  const abort = new AbortController();
  const pending = doh.exchange(makeQuery(1, "example.org"), abort.signal);
  await new Promise((r) => setTimeout(r, 50));
  abort.abort(new Error("client went away"));
  await assert.rejects(pending, /client went away/);
  release.resolve();
});

Deno.test("createHttpsTransport gives up on a handshake that never ends", async () => {
  await using silent = startSilentServer();
  await using doh = transport(
    dohServer(silent.port),
    [certs.caCert],
    undefined,
    100,
  );
  await assert.rejects(
    doh.exchange(makeQuery(1, "example.org"), never),
    new RegExp(
      `^Error: Cannot connect to DoH server "https://localhost:${silent.port}/dns-query" at 127\\.0\\.0\\.1:${silent.port}: timed out$`,
    ),
  );
});

/** Asks with ID `id` and gives the query up after `afterMs`. */
async function askAndGiveUp(
  doh: PooledTransport,
  id: number,
  afterMs: number,
): Promise<void> {
  const reason = new Error("stopped: timeout");
  const signal = AbortSignal.timeout(afterMs);
  const control = new AbortController();
  signal.addEventListener("abort", () => control.abort(reason));
  await assert.rejects(
    doh.exchange(makeQuery(id, "example.org"), control.signal),
    (error: unknown) => error === reason,
  );
}

Deno.test("createHttpsTransport replaces a connection that answered nothing for STALL_MS", async () => {
  // Answers the first query of each connection, then hangs with the
  // connection open: a hung server, or a NAT that lost the connection.
  const hang = Promise.withResolvers<void>();
  const answeredOn = new Set<number>();
  const server = startDohServer(async (query, _request, port) => {
    if (answeredOn.has(port)) await hang.promise;
    answeredOn.add(port);
    return dnsAnswer(query);
  });
  try {
    await using doh = transport(dohServer(server.port));
    assert.equal(
      addressIn(await doh.exchange(makeQuery(1, "example.org"), never)),
      "192.0.2.1",
    );
    // Given up soon after it was sent (a late hedge): proves nothing.
    await askAndGiveUp(doh, 2, 50);
    assert.equal(server.connections, 1);
    // Given up after STALL_MS of silence: the session is dead.
    await askAndGiveUp(doh, 3, STALL_MS + 50);
    const answer = await doh.exchange(
      makeQuery(4, "example.org"),
      AbortSignal.timeout(2000),
    );
    assert.equal(addressIn(answer), "192.0.2.1");
    assert.equal(server.connections, 2);
  } finally {
    hang.resolve();
    await server[Symbol.asyncDispose]();
  }
});
