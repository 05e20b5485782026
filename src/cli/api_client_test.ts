import assert from "node:assert/strict";
import { join } from "node:path";
import {
  ApiClient,
  describeFailure,
  failureOf,
  isLoopback,
  normalizeServer,
} from "./api_client.ts";
import { UsageError } from "./command.ts";
import { freePort } from "../testing/free_port.ts";
import { makeTestCertificates } from "../upstream/testdata/certs.ts";

Deno.test("normalizeServer keeps scheme, host, port and a path prefix; refuses the rest", () => {
  assert.equal(
    normalizeServer("login", "http://127.0.0.1:8080/"),
    "http://127.0.0.1:8080",
  );
  assert.equal(
    normalizeServer("login", "https://proxy.example.net/kudurru//"),
    "https://proxy.example.net/kudurru",
  );
  for (
    const [text, fault] of [
      ["dns.example.net:8080", /must be an http:\/\/ or https:\/\/ URL/],
      ["not a url", /is not a URL/],
      ["ftp://x", /must be an http:\/\/ or https:\/\/ URL/],
      ["http://x/?a=1", /without a query/],
      ["http://u:p@x/", /credentials/],
    ] as const
  ) {
    assert.throws(() => normalizeServer("login", text), (err: Error) => {
      assert.ok(err instanceof UsageError);
      assert.match(err.message, fault);
      return true;
    }, text);
  }
  assert.ok(isLoopback("http://127.0.0.1:8080"));
  assert.ok(isLoopback("http://[::1]:8080"));
  assert.ok(!isLoopback("http://192.168.1.2:8080"));
});

Deno.test("ApiClient: nothing listening says to check the address", async () => {
  using client = await ApiClient.open({
    server: `http://127.0.0.1:${freePort()}`,
  });
  await assert.rejects(
    client.request("GET", "/api/v1/node"),
    /^Error: cannot reach http:\/\/127\.0\.0\.1:\d+ \(.+\): check the address and that kudurru's API listener \(listeners\.api\) is running there$/,
  );
});

Deno.test("ApiClient: a certificate from a private CA needs --ca-file, and works with it", async () => {
  const certs = await makeTestCertificates();
  const dir = await Deno.makeTempDir({ prefix: "kudurru-api-client-" });
  const ca = join(dir, "ca.pem");
  await Deno.writeTextFile(ca, certs.caCert);
  const seen: (string | null)[] = [];
  await using server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: certs.cert,
    key: certs.key,
    onListen: () => {},
  }, (req) => {
    seen.push(req.headers.get("authorization"));
    return Response.json({ data: { ok: true } });
  });
  try {
    const url = `https://127.0.0.1:${server.addr.port}`;
    {
      using untrusted = await ApiClient.open({ server: url });
      await assert.rejects(
        untrusted.request("GET", "/api/v1/node", { token: "t" }),
        /^Error: the TLS certificate of https:\/\/127\.0\.0\.1:\d+ is not trusted \(.+\): log in with --ca-file FILE/,
      );
    }
    using trusted = await ApiClient.open({ server: url, caFile: ca });
    const res = await trusted.request("GET", "/api/v1/node", { token: "t" });
    assert.deepEqual(await res.json(), { data: { ok: true } });
    assert.deepEqual(seen, ["Bearer t"]);
    await Deno.writeTextFile(ca, "not a certificate\n");
    await assert.rejects(
      ApiClient.open({ server: url, caFile: ca }),
      /holds no PEM certificate/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ApiClient refuses a redirect: the token stays with its server", async () => {
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      new Response(null, {
        status: 302,
        headers: { location: "http://elsewhere.example/api/v1/node" },
      }),
  );
  using client = await ApiClient.open({
    server: `http://127.0.0.1:${server.addr.port}`,
  });
  await assert.rejects(
    client.request("GET", "/api/v1/node", { token: "t" }),
    /redirects to http:\/\/elsewhere\.example\/api\/v1\/node: use the address the API answers on as --server/,
  );
});

Deno.test("failureOf reads the error envelope, or the start of a page that is not one", async () => {
  const envelope = await failureOf(
    Response.json({
      error: {
        key: "invalid",
        message: "The body fails validation",
        hint: "see issues",
        issues: [{ path: "spec.type", message: "is required" }],
      },
    }, { status: 422 }),
  );
  assert.equal(
    describeFailure(envelope),
    "The body fails validation (422 invalid)\nhint: see issues\n  spec.type: is required",
  );
  const page = await failureOf(
    new Response("<h1>Bad Gateway</h1>", {
      status: 502,
      statusText: "Bad Gateway",
    }),
  );
  assert.equal(describeFailure(page), "502 Bad Gateway: <h1>Bad Gateway</h1>");
  const refused = await failureOf(
    Response.json({
      error: {
        key: "forbidden",
        message: "Not allowed by the caller's roles",
        hint: "ask an admin for a role that grants it",
        missing: { resource: "cache", verb: "flush", scope: "cluster" },
      },
    }, { status: 403 }),
  );
  assert.equal(
    describeFailure(refused),
    "Not allowed by the caller's roles (403 forbidden)\n" +
      "missing: flush on cache (scope cluster)\n" +
      "hint: ask an admin for a role that grants it",
  );
});
