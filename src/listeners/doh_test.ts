/**
 * The DoH listener with real clients over real TLS: curl (HTTP/2 and
 * HTTP/1.1), kdig and dig, against the test handler. Proxies and plain
 * HTTP are in doh_proxy_test.ts, certificates and stopping in
 * doh_lifecycle_test.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
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
  run,
  scratchDir,
  startDoh,
  until,
} from "./testdata/doh_client.ts";

const certs = await makeTestCertificates();
const certificate = { cert: certs.cert, key: certs.key };

/** GET and POST argument lists for curl, to `url` (no query string). */
function getArgs(url: string, query: Uint8Array): string[] {
  return [`${url}?dns=${base64Url(query)}`];
}

async function postArgs(
  dir: string,
  url: string,
  query: Uint8Array,
): Promise<string[]> {
  const file = join(dir, `query-${crypto.randomUUID()}`);
  await Deno.writeFile(file, query);
  return [
    "-H",
    "Content-Type: application/dns-message",
    "--data-binary",
    `@${file}`,
    url,
  ];
}

Deno.test("serveDoh answers GET and POST over HTTP/2 and HTTP/1.1 (curl)", async (t) => {
  await using dir = await scratchDir();
  const ca = dir.caFile(certs);
  await using s = startDoh({ certificate });
  const url = `https://localhost:${s.port}/dns-query`;
  let asked = 0;
  const versions: [string, string][] = [["--http2", "2"], ["--http1.1", "1.1"]];
  for (const [flag, version] of versions) {
    for (const method of ["GET", "POST"]) {
      await t.step(`${method} ${flag}`, async () => {
        // ID 0, as RFC 8484 §4.1 asks for cacheability, and another: the
        // answer carries whichever the query had.
        for (const id of [0, 4321]) {
          const query = buildQuery(id, `${method.toLowerCase()}.test`);
          const args = method === "GET"
            ? getArgs(url, query)
            : await postArgs(dir.path, url, query);
          const r = await curl(dir.path, [flag, "--cacert", ca, ...args]);
          assert.equal(r.exitCode, 0);
          assert.equal(r.status, 200);
          assert.equal(r.version, version);
          assert.equal(r.headers["content-type"], "application/dns-message");
          assert.equal(r.headers["cache-control"], "max-age=60");
          assert.equal(r.headers["content-length"], String(r.body.length));
          assert.deepEqual(answerRecords(r.body), {
            id,
            name: `${method.toLowerCase()}.test`,
            records: ["A 192.0.2.1"],
          });
          asked++;
        }
      });
    }
  }
  assert.equal(s.counters.queries, asked);
  assert.equal(s.counters.dohBadRequest, 0);
  assert.equal(s.handler.clients.length, asked);
  for (const client of s.handler.clients) {
    assert.deepEqual(
      { ...client, port: 0 },
      { address: "127.0.0.1", port: 0, transport: "doh" },
    );
    assert.ok(client.port > 0);
  }
});

Deno.test("serveDoh answers kdig over HTTP/2, POST and GET", async () => {
  await using dir = await scratchDir();
  const ca = dir.caFile(certs);
  await using s = startDoh({ certificate });
  const modes: [string[], string][] = [
    [[], "HTTP/2-POST"],
    [["+https-get"], "HTTP/2-GET"],
  ];
  for (const [extra, session] of modes) {
    const out = await run("kdig", [
      "@127.0.0.1",
      "-p",
      String(s.port),
      "+https=/dns-query",
      ...extra,
      `+tls-ca=${ca}`,
      "+tls-hostname=localhost",
      "+timeout=5",
      "kdig.test",
      "A",
    ]);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, new RegExp(`\\(${session}\\).*\\(status: 200\\)`));
    assert.match(out.stdout, /status: NOERROR/);
    assert.match(out.stdout, /^kdig\.test\.\s+60\s+IN\s+A\s+192\.0\.2\.1$/m);
  }
  assert.equal(s.counters.queries, 2);
});

Deno.test("serveDoh answers dig (BIND 9.18) +https and +https-get", async () => {
  await using dir = await scratchDir();
  const ca = dir.caFile(certs);
  await using s = startDoh({ certificate });
  for (
    const [mode, shown] of [["+https", "HTTPS"], ["+https-get", "HTTPS-GET"]]
  ) {
    const out = await run("dig", [
      "@127.0.0.1",
      "-p",
      String(s.port),
      mode!,
      `+tls-ca=${ca}`,
      "+tls-hostname=localhost",
      "+time=5",
      "+tries=1",
      "dig.test",
      "A",
    ]);
    // dig exits 0 on SERVFAIL too: the status line is what counts.
    assert.equal(out.code, 0, out.stdout + out.stderr);
    assert.match(out.stdout, /status: NOERROR/);
    assert.match(out.stdout, /^dig\.test\.\s+60\s+IN\s+A\s+192\.0\.2\.1$/m);
    assert.match(
      out.stdout,
      new RegExp(`SERVER: 127\\.0\\.0\\.1#${s.port}.*\\(${shown}\\)`),
    );
  }
  assert.equal(s.counters.queries, 2);
});

Deno.test("serveDoh serves on ::1", async () => {
  await using dir = await scratchDir();
  const ca = dir.caFile(certs);
  await using s = startDoh({ certificate, hostname: "::1" });
  const r = await curl(dir.path, [
    "--cacert",
    ca,
    "--resolve",
    `localhost:${s.port}:::1`,
    ...getArgs(
      `https://localhost:${s.port}/dns-query`,
      buildQuery(0, "six.test"),
    ),
  ]);
  assert.equal(r.status, 200);
  assert.equal(answerRecords(r.body).name, "six.test");
  assert.equal(s.handler.clients[0]?.address, "::1");
});

Deno.test("serveDoh takes the client ID from the path, and serves a configured path", async () => {
  await using dir = await scratchDir();
  const ca = dir.caFile(certs);
  {
    await using s = startDoh({ certificate });
    const base = `https://localhost:${s.port}/dns-query`;
    const query = buildQuery(0, "id.test");
    for (
      const [path, id] of [["", undefined], ["/laptop", "laptop"], [
        "/Phone",
        "phone",
      ], ["/", undefined]]
    ) {
      const get = await curl(dir.path, [
        "--cacert",
        ca,
        ...getArgs(base + path, query),
      ]);
      assert.equal(get.status, 200, path);
      const post = await curl(dir.path, [
        "--cacert",
        ca,
        ...await postArgs(dir.path, base + path, query),
      ]);
      assert.equal(post.status, 200, path);
      const [viaGet, viaPost] = s.handler.clients.slice(-2);
      assert.equal(viaGet?.clientId, id, `GET ${path}`);
      assert.equal(viaPost?.clientId, id, `POST ${path}`);
      assert.equal("clientId" in viaGet!, id !== undefined);
    }
  }
  {
    await using s = startDoh({ certificate, path: "/doh" });
    const query = buildQuery(0, "id.test");
    const at = (path: string) =>
      curl(dir.path, [
        "--cacert",
        ca,
        ...getArgs(`https://localhost:${s.port}${path}`, query),
      ]);
    assert.equal((await at("/doh/x1")).status, 200);
    assert.equal(s.handler.clients[0]?.clientId, "x1");
    assert.equal((await at("/dns-query")).status, 404);
  }
});

Deno.test("serveDoh answers HEAD as GET without the body (RFC 9110 §9.3.2)", async () => {
  await using dir = await scratchDir();
  const ca = dir.caFile(certs);
  await using s = startDoh({ certificate });
  const url = `https://localhost:${s.port}/dns-query`;
  const args = getArgs(url, buildQuery(0, "head.test"));
  const get = await curl(dir.path, ["--cacert", ca, ...args]);
  for (const version of ["--http2", "--http1.1"]) {
    const head = await curl(dir.path, [
      "--cacert",
      ca,
      version,
      "--head",
      ...args,
    ]);
    assert.equal(head.exitCode, 0, version);
    assert.equal(head.status, 200);
    assert.equal(head.headers["content-type"], "application/dns-message");
    assert.equal(head.headers["cache-control"], "max-age=60");
    assert.equal(head.headers["content-length"], String(get.body.length));
    const missing = await curl(dir.path, [
      "--cacert",
      ca,
      version,
      "--head",
      `${url}/a/b`,
    ]);
    assert.equal(missing.exitCode, 0, version);
    assert.equal(missing.status, 404);
  }
  // curl --head writes the headers where the body would go; fetch shows
  // that no body came.
  using client = Deno.createHttpClient({ caCerts: [certs.caCert] });
  const viaFetch = await fetch(`${url}?${args[0]!.split("?")[1]}`, {
    method: "HEAD",
    client,
  });
  assert.equal(viaFetch.status, 200);
  assert.equal((await viaFetch.arrayBuffer()).byteLength, 0);
  assert.equal(s.counters.queries, 4);
  assert.equal(s.counters.dohBadRequest, 2);
});

Deno.test("serveDoh refuses bad requests with a clear 4xx, each counted", async () => {
  await using dir = await scratchDir();
  const ca = dir.caFile(certs);
  await using s = startDoh({ certificate });
  const base = `https://localhost:${s.port}`;
  const good = buildQuery(0, "bad.test");
  const bigFile = join(dir.path, "big");
  await Deno.writeFile(bigFile, new Uint8Array(70_000));
  const shortFile = join(dir.path, "short");
  await Deno.writeFile(shortFile, new Uint8Array(11));
  const cases: [string, string[], number, RegExp][] = [
    ["another path", getArgs(`${base}/other`, good), 404, /no DoH endpoint/],
    ["two segments", getArgs(`${base}/dns-query/a/b`, good), 404, /no DoH/],
    ["not an ID", getArgs(`${base}/dns-query/no_id`, good), 404, /no DoH/],
    ["PUT", ["-X", "PUT", `${base}/dns-query`], 405, /GET, HEAD, POST/],
    ["DELETE", ["-X", "DELETE", `${base}/dns-query`], 405, /GET, HEAD, POST/],
    ["OPTIONS", ["-X", "OPTIONS", `${base}/dns-query`], 405, /GET, HEAD/],
    [
      "POST text/plain",
      [
        "-H",
        "Content-Type: text/plain",
        "--data-binary",
        `@${shortFile}`,
        `${base}/dns-query`,
      ],
      415,
      /application\/dns-message/,
    ],
    [
      "POST without Content-Type",
      [
        "-H",
        "Content-Type:",
        "--data-binary",
        `@${shortFile}`,
        `${base}/dns-query`,
      ],
      415,
      /application\/dns-message/,
    ],
    ["GET without dns", [`${base}/dns-query?ct=1`], 400, /no dns parameter/],
    [
      "GET dns not base64url",
      [`${base}/dns-query?dns=a+b/c`],
      400,
      /base64url/,
    ],
    [
      "GET dns of 11 octets",
      getArgs(`${base}/dns-query`, new Uint8Array(11)),
      400,
      /12-octet header/,
    ],
    [
      "POST of 11 octets",
      [
        "-H",
        "Content-Type: application/dns-message",
        "--data-binary",
        `@${shortFile}`,
        `${base}/dns-query`,
      ],
      400,
      /12-octet header/,
    ],
    [
      "POST of 70,000 octets over HTTP/2",
      [
        "--http2",
        "-H",
        "Content-Type: application/dns-message",
        "--data-binary",
        `@${bigFile}`,
        `${base}/dns-query`,
      ],
      413,
      /longer than a DNS message/,
    ],
    [
      "POST of 70,000 octets over HTTP/1.1",
      [
        "--http1.1",
        "-H",
        "Content-Type: application/dns-message",
        "--data-binary",
        `@${bigFile}`,
        `${base}/dns-query`,
      ],
      413,
      /longer than a DNS message/,
    ],
    [
      "POST of 70,000 octets chunked, no Content-Length",
      [
        "--http1.1",
        "-H",
        "Content-Type: application/dns-message",
        "-H",
        "Transfer-Encoding: chunked",
        "--data-binary",
        `@${bigFile}`,
        `${base}/dns-query`,
      ],
      413,
      /longer than a DNS message/,
    ],
  ];
  for (const [what, args, status, reason] of cases) {
    const r = await curl(dir.path, ["--cacert", ca, ...args]);
    assert.equal(r.status, status, `${what} (curl exit ${r.exitCode})`);
    assert.match(new TextDecoder().decode(r.body), reason, what);
    if (status === 405) assert.equal(r.headers["allow"], "GET, HEAD, POST");
  }
  assert.equal(s.counters.dohBadRequest, cases.length);
  assert.equal(s.counters.queries, 0);
  assert.equal(s.handler.clients.length, 0);
  // The listener still answers after all that.
  const ok = await curl(dir.path, [
    "--cacert",
    ca,
    ...getArgs(`${base}/dns-query`, good),
  ]);
  assert.equal(ok.status, 200);
});

Deno.test("serveDoh answers SERVFAIL (200, max-age=0) when the pipeline sends nothing", async () => {
  await using dir = await scratchDir();
  const ca = dir.caFile(certs);
  await using s = startDoh({ certificate });
  const query = queryMessage("drop.test", "A", { id: 77, edns: true });
  const r = await curl(dir.path, [
    "--cacert",
    ca,
    ...getArgs(`https://localhost:${s.port}/dns-query`, query),
  ]);
  assert.equal(r.status, 200);
  assert.equal(r.headers["cache-control"], "max-age=0");
  const m = decodeResponse(r.body);
  assert.equal(m.id, 77);
  assert.equal(m.rcode, "SERVFAIL");
  assert.equal(m.questions[0]?.name, "drop.test");
  assert.equal(m.additionals[0]?.type, "OPT");
});

Deno.test("serveDoh marks queries overloaded beyond maxInFlight waiting", async () => {
  await using dir = await scratchDir();
  const ca = dir.caFile(certs);
  await using s = startDoh({ certificate, maxInFlight: 1 });
  const url = `https://localhost:${s.port}/dns-query`;
  const held = curl(dir.path, [
    "--cacert",
    ca,
    ...getArgs(url, buildQuery(0, "hold-1.test")),
  ]);
  await until(() => s.handler.clients.length === 1);
  // The test handler drops a hold query when overloaded, as the pipeline
  // drops what would wait on an upstream: SERVFAIL at once.
  const second = await curl(dir.path, [
    "--cacert",
    ca,
    ...getArgs(url, buildQuery(0, "hold-2.test")),
  ]);
  assert.equal(second.status, 200);
  assert.equal(decodeResponse(second.body).rcode, "SERVFAIL");
  // What needs no wait is still answered.
  const third = await curl(dir.path, [
    "--cacert",
    ca,
    ...getArgs(url, buildQuery(0, "cached.test")),
  ]);
  assert.deepEqual(answerRecords(third.body).records, ["A 192.0.2.1"]);
  s.handler.releaseHeld();
  const first = await held;
  assert.deepEqual(answerRecords(first.body).records, ["A 192.0.2.1"]);
  const [a, b, c] = s.handler.clients;
  assert.equal(a?.overloaded, undefined);
  assert.equal(b?.overloaded, true);
  assert.equal(c?.overloaded, true);
  // Once the held query is answered, the budget is free again.
  await curl(dir.path, [
    "--cacert",
    ca,
    ...getArgs(url, buildQuery(0, "after.test")),
  ]);
  assert.equal(s.handler.clients[3]?.overloaded, undefined);
});

Deno.test("serveDoh leaves header limits to Deno: HTTP/2 431 over 16 KiB, HTTP/1.1 400 over ~64 KiB", async () => {
  await using dir = await scratchDir();
  const ca = dir.caFile(certs);
  await using s = startDoh({ certificate });
  const url = `https://localhost:${s.port}/dns-query`;
  const query = buildQuery(0, "header.test");
  const header = (size: number) => ["-H", `X-Big: ${"a".repeat(size)}`];
  const h2 = await curl(dir.path, [
    "--http2",
    "--cacert",
    ca,
    ...header(20_000),
    ...getArgs(url, query),
  ]);
  assert.equal(h2.status, 431);
  const h1 = await curl(dir.path, [
    "--http1.1",
    "--cacert",
    ca,
    ...header(20_000),
    ...getArgs(url, query),
  ]);
  assert.equal(h1.status, 200);
  const h1Huge = await curl(dir.path, [
    "--http1.1",
    "--cacert",
    ca,
    ...header(70_000),
    ...getArgs(url, query),
  ]);
  assert.equal(h1Huge.status, 400);
  // Deno answers those itself: the handler never sees them.
  assert.equal(s.counters.queries, 1);
  assert.equal(s.counters.dohBadRequest, 0);
});

Deno.test("serveDoh refuses to serve plain HTTP without trusted proxies, and bad proxy entries", () => {
  assert.throws(() => startDoh(), TypeError);
  assert.throws(() => startDoh({ trustedProxies: [] }), /trusted proxies/);
  assert.throws(
    () => startDoh({ trustedProxies: ["proxy.example"] }),
    /not an IP address or a CIDR prefix/,
  );
});
