import assert from "node:assert/strict";
import { createTlsTransport } from "./tls.ts";
import type { UpstreamServer } from "../config/upstream_server.ts";
import type { PooledTransport } from "./tcp.ts";
import {
  addressIn,
  makeAnswer,
  makeQuery,
  type Script,
  startDotServer,
  startSilentServer,
} from "./tls_test_server.ts";
import {
  makeTestCertificates,
  type TestCertificates,
} from "./testdata/certs.ts";

const certs = await makeTestCertificates();

function dotServer(port: number, host = "localhost"): UpstreamServer {
  return { raw: `tls://${host}:${port}`, scheme: "tls", host, port };
}

const answerWith = (address: string): Script => (query) =>
  makeAnswer(query, address);

/** A transport whose connection is closed and gone when disposed. */
function transport(
  server: UpstreamServer,
  opts: {
    caCerts?: string[];
    idleTimeoutMs?: number;
    connectTimeoutMs?: number;
  } = {},
): PooledTransport & AsyncDisposable {
  const t = createTlsTransport(server, {
    address: "127.0.0.1",
    caCerts: opts.caCerts ?? [certs.caCert],
    ...(opts.idleTimeoutMs ? { idleTimeoutMs: opts.idleTimeoutMs } : {}),
    ...(opts.connectTimeoutMs
      ? { connectTimeoutMs: opts.connectTimeoutMs }
      : {}),
  });
  return Object.assign(t, {
    async [Symbol.asyncDispose]() {
      await t.closeAndWait();
    },
  });
}

function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Whether `promise` settles within `ms`; the timer never outlives the call. */
async function settlesWithin(promise: Promise<void>, ms: number) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((r) => timer = setTimeout(r, ms, false));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const never = new AbortController().signal;

Deno.test("createTlsTransport answers a query over TLS", async () => {
  await using server = startDotServer(certs, answerWith("192.0.2.1"));
  await using dot = transport(dotServer(server.port));
  const answer = await dot.exchange(makeQuery(0x1234, "example.org"), never);
  assert.equal(addressIn(answer), "192.0.2.1");
  assert.equal((answer[0]! << 8) | answer[1]!, 0x1234);
});

Deno.test("createTlsTransport pipelines two queries on one connection", async () => {
  // The first answer waits for the second query, so both must be in flight
  // on the same connection at once; the server answers them in reverse. A
  // transport that waits for each answer makes the first one time out and
  // come back as 192.0.2.99.
  const second = Promise.withResolvers<void>();
  await using server = startDotServer(certs, async (query, info) => {
    let octet = info.queryOnConnection;
    if (octet === 1 && !(await settlesWithin(second.promise, 1000))) octet = 99;
    if (octet === 2) second.resolve();
    return makeAnswer(query, `192.0.2.${octet}`);
  });
  await using dot = transport(dotServer(server.port));
  const [a, b] = await Promise.all([
    dot.exchange(makeQuery(1, "a.example.org"), never),
    dot.exchange(makeQuery(2, "b.example.org"), never),
  ]);
  assert.deepEqual([addressIn(a), addressIn(b)], ["192.0.2.1", "192.0.2.2"]);
  assert.equal(server.connections, 1);
});

Deno.test("createTlsTransport reconnects after the server closes the connection", async () => {
  await using server = startDotServer(certs, (query, info) => {
    if (info.queryOnConnection === 2) return "close";
    return makeAnswer(query, `192.0.2.${info.connection}`);
  });
  await using dot = transport(dotServer(server.port));
  const first = await dot.exchange(makeQuery(1, "example.org"), never);
  // The server closes on the second query: the transport retries it once on
  // a new connection, where it is the first query again.
  const second = await dot.exchange(makeQuery(2, "example.org"), never);
  assert.deepEqual([addressIn(first), addressIn(second)], [
    "192.0.2.1",
    "192.0.2.2",
  ]);
  assert.equal(server.connections, 2);
});

Deno.test("createTlsTransport verifies the TLS name while dialling an IP", async () => {
  // tls://127.0.0.1#localhost: connect to the IP, verify "localhost"; the
  // certificate has no IP entry, so this only works with the two separated.
  const nameOnly = await makeTestCertificates({ dns: ["localhost"], ip: [] });
  await using server = startDotServer(nameOnly, answerWith("192.0.2.7"));
  const ipServer: UpstreamServer = {
    ...dotServer(server.port, "127.0.0.1"),
    tlsServerName: "localhost",
  };
  await using dot = transport(ipServer, { caCerts: [nameOnly.caCert] });
  const answer = await dot.exchange(makeQuery(7, "example.org"), never);
  assert.equal(addressIn(answer), "192.0.2.7");
});

Deno.test("createTlsTransport rejects certificates it must not trust", async (t) => {
  const rows: {
    name: string;
    serve: () => Promise<TestCertificates>;
    trust: (served: TestCertificates) => string;
  }[] = [
    {
      name: "a certificate for another name",
      serve: () => makeTestCertificates({ dns: ["other.test"], ip: [] }),
      trust: (served) => served.caCert,
    },
    {
      name: "a certificate from an unknown CA",
      serve: () => makeTestCertificates(),
      trust: () => certs.caCert,
    },
  ];
  for (const row of rows) {
    await t.step(row.name, async () => {
      const served = await row.serve();
      await using server = startDotServer(served, answerWith("192.0.2.1"));
      const caCerts = [row.trust(served)];
      await using dot = transport(dotServer(server.port), { caCerts });
      await assert.rejects(
        dot.exchange(makeQuery(1, "example.org"), never),
        (err: Error) => {
          assert.match(
            err.message,
            new RegExp(
              `^Cannot connect to DoT server "tls://localhost:${server.port}" at 127\\.0\\.0\\.1:${server.port}: .*certificate`,
            ),
          );
          return true;
        },
      );
    });
  }
});

Deno.test("createTlsTransport stops waiting when the signal aborts", async () => {
  await using server = startDotServer(certs, () => "ignore");
  await using dot = transport(dotServer(server.port));
  const abort = new AbortController();
  const pending = dot.exchange(makeQuery(1, "example.org"), abort.signal);
  await tick(50);
  abort.abort(new Error("client went away"));
  await assert.rejects(pending, /client went away/);
});

Deno.test("createTlsTransport closes an idle connection", async () => {
  await using server = startDotServer(certs, answerWith("192.0.2.1"));
  await using dot = transport(dotServer(server.port), { idleTimeoutMs: 30 });
  await dot.exchange(makeQuery(1, "example.org"), never);
  await tick(150);
  assert.equal(server.closedByClient, 1);
});

Deno.test("createTlsTransport fails when nothing listens", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await using dot = transport(dotServer(port));
  await assert.rejects(
    dot.exchange(makeQuery(1, "example.org"), never),
    new RegExp(
      `^Error: Cannot connect to DoT server "tls://localhost:${port}"`,
    ),
  );
});

Deno.test("createTlsTransport gives up on a handshake that never ends", async () => {
  await using silent = startSilentServer();
  await using dot = transport(dotServer(silent.port), {
    connectTimeoutMs: 100,
  });
  await assert.rejects(
    dot.exchange(makeQuery(1, "example.org"), never),
    new RegExp(
      `^Error: Cannot connect to DoT server "tls://localhost:${silent.port}" at 127\\.0\\.0\\.1:${silent.port}: timed out$`,
    ),
  );
});
