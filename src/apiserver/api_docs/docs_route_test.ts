import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { gunzipSync } from "node:zlib";
import {
  gzipBundle,
  readPinnedBundle,
  VENDORED_BUNDLE,
} from "../../../scripts/vendor_api_docs.ts";
import { apiFixture } from "../testdata/api_fixture.ts";
import { acceptsGzip } from "./docs_route.ts";
import type { Visit } from "./testdata/visit_docs_page.ts";

const docsFixture = () => apiFixture();

/** The `nonce-…` sources of `directive` in a CSP header. */
function policyNonces(policy: string, directive: string): string[] {
  const part = policy.split(";").map((p) => p.trim())
    .find((p) => p.startsWith(`${directive} `));
  assert.ok(part !== undefined, `no ${directive} in ${policy}`);
  return [...part.matchAll(/'nonce-([^']+)'/g)].map((m) => m[1]!);
}

Deno.test("api docs page loads Scalar from this server and the OpenAPI document", async () => {
  await using f = await docsFixture();
  const res = await f.api.app.request("/api/docs");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^text\/html/);
  const html = await res.text();
  // Relative to the page (/api/docs), so a path prefix keeps them working.
  assert.match(html, /<script src="docs\/scalar\.js\?v=[0-9a-f]+"/);
  assert.ok(html.includes('"v1/openapi.json"'), html);
  const urls = [
    ...html.matchAll(
      /<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)="([^"]*)"/gi,
    ),
  ].map((m) => m[1]!);
  assert.ok(urls.length > 0);
  for (const url of urls) {
    assert.ok(!/^(https?:)?\/\//i.test(url), `off-site URL ${url}`);
  }
  assert.ok(!html.includes("jsdelivr"), "the CDN is named");
});

Deno.test("api docs page's CSP allows only its own nonce and this origin", async () => {
  await using f = await docsFixture();
  const first = await f.api.app.request("/api/docs");
  const policy = first.headers.get("content-security-policy")!;
  const html = await first.text();
  const nonces = new Set(
    [...html.matchAll(/\bnonce="([^"]+)"/g)].map((m) => m[1]!),
  );
  assert.equal(nonces.size, 1, html);
  const [nonce] = nonces;
  assert.deepEqual(policyNonces(policy, "script-src"), [nonce]);
  assert.ok(html.includes(`<meta property="csp-nonce" content="${nonce}"`));
  assert.ok(!/https?:|\*/.test(policy), policy);
  assert.match(policy, /default-src 'self'/);
  assert.match(policy, /style-src 'self' 'unsafe-inline'/);
  assert.match(policy, /frame-ancestors 'none'/);
  assert.equal(first.headers.get("cache-control"), "no-store");
  assert.equal(first.headers.get("x-frame-options"), "DENY");
  const second = await f.api.app.request("/api/docs");
  await second.body?.cancel();
  assert.notDeepEqual(
    policyNonces(second.headers.get("content-security-policy")!, "script-src"),
    [nonce],
  );
  // The API's routes keep the API's policy.
  const spec = await f.api.app.request("/api/v1/openapi.json");
  await spec.body?.cancel();
  assert.equal(
    spec.headers.get("content-security-policy"),
    "default-src 'self'; frame-ancestors 'none'",
  );
});

Deno.test("api docs scalar.js is the embedded gzip for clients that take gzip", async () => {
  await using f = await docsFixture();
  const res = await f.api.app.request("/api/docs/scalar.js", {
    headers: { "accept-encoding": "gzip, deflate, br, zstd" },
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-encoding"), "gzip");
  assert.equal(
    res.headers.get("content-type"),
    "text/javascript; charset=utf-8",
  );
  assert.match(res.headers.get("cache-control")!, /max-age=31536000/);
  assert.equal(res.headers.get("vary"), "Accept-Encoding");
  const etag = res.headers.get("etag")!;
  assert.match(etag, /^"[0-9a-f]{64}\.gz"$/);
  const gz = new Uint8Array(await res.arrayBuffer());
  assert.deepEqual(gz, await Deno.readFile(VENDORED_BUNDLE));
  const js = new TextDecoder().decode(gunzipSync(gz).subarray(0, 400));
  const pinned = await readPinnedBundle();
  assert.equal(
    js,
    new TextDecoder().decode(pinned.bytes.subarray(0, 400)),
  );
  assert.match(js, /^\(function\(\)\{/);
  const again = await f.api.app.request("/api/docs/scalar.js", {
    headers: { "accept-encoding": "gzip", "if-none-match": etag },
  });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get("etag"), etag);
});

Deno.test("api docs scalar.js is plain JavaScript for a client without gzip", async () => {
  await using f = await docsFixture();
  const pinned = await readPinnedBundle();
  for (const headers of [{}, { "accept-encoding": "gzip;q=0, br" }]) {
    const res = await f.api.app.request("/api/docs/scalar.js", { headers });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-encoding"), null);
    assert.match(res.headers.get("content-type")!, /^text\/javascript/);
    assert.match(res.headers.get("etag")!, /^"[0-9a-f]{64}"$/);
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), pinned.bytes);
  }
});

Deno.test("api docs vendored bundle is the pinned package's, gzipped as the script does", async () => {
  const pinned = await readPinnedBundle();
  const vendored = await Deno.readFile(VENDORED_BUNDLE);
  const again = "run `deno task vendor:api-docs` after changing the pin";
  assert.ok(
    Buffer.from(gunzipSync(vendored)).equals(pinned.bytes),
    `the vendored bundle is not @scalar/api-reference@${pinned.version}'s: ${again}`,
  );
  assert.ok(
    Buffer.from(gzipBundle(pinned.bytes)).equals(vendored),
    `vendoring again would change the file: ${again}`,
  );
  const readme = await Deno.readTextFile(new URL("README.md", import.meta.url));
  assert.ok(
    readme.includes(`@scalar/api-reference@${pinned.version}`),
    "README.md names another version",
  );
});

Deno.test("api docs routes are public and the OpenAPI document stays valid", async () => {
  const { Validator } = await import("@seriousme/openapi-schema-validator");
  await using f = await docsFixture();
  const docs = f.api.routes.routes.filter((r) =>
    r.path.startsWith("/api/docs")
  );
  assert.deepEqual(docs.map((r) => r.path), [
    "/api/docs",
    "/api/docs/scalar.js",
  ]);
  for (const route of docs) assert.ok("public" in route.guard);
  const doc = await f.client().request("GET", "/api/v1/openapi.json");
  assert.ok(doc.body.paths["/api/docs"]);
  const result = await new Validator().validate(doc.body);
  assert.equal(result.valid, true, JSON.stringify(result).slice(0, 2000));
});

Deno.test("api docs accepts gzip as Accept-Encoding says", () => {
  assert.equal(acceptsGzip(undefined), false);
  assert.equal(acceptsGzip(""), false);
  assert.equal(acceptsGzip("identity"), false);
  assert.equal(acceptsGzip("br"), false);
  assert.equal(acceptsGzip("gzip"), true);
  assert.equal(acceptsGzip("deflate, GZip;q=0.5"), true);
  assert.equal(acceptsGzip("x-gzip"), true);
  assert.equal(acceptsGzip("*"), true);
  assert.equal(acceptsGzip("gzip;q=0"), false);
  assert.equal(acceptsGzip("gzip;q=0, *"), false);
  assert.equal(acceptsGzip("*;q=0"), false);
});

/**
 * zod in the bundle probes for eval with `Function("")` in a try and, when
 * refused, validates without generated code: the one report the page may
 * cause.
 */
const EVAL_PROBE = "csp-violation script-src eval";

Deno.test("api docs page renders in Chromium from this server alone, within its CSP", async () => {
  await using f = await docsFixture();
  await using server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen() {} },
    f.api.app.fetch,
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  // Playwright runs in a child with the permissions it needs, which this
  // test run does not grant: the home folder, OS facts, and files under
  // /proc/sys, which Deno grants only with --allow-all.
  const child = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      new URL("./testdata/visit_docs_page.ts", import.meta.url).pathname,
      `${origin}/api/docs`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(child.stderr);
  assert.equal(child.code, 0, stderr);
  const visit = JSON.parse(new TextDecoder().decode(child.stdout)) as Visit;
  assert.equal(visit.failure, undefined, stderr);
  assert.ok(visit.rendered);
  assert.ok(
    visit.requests.includes(`${origin}/api/v1/openapi.json`),
    visit.requests.join("\n"),
  );
  const elsewhere = visit.requests.filter((url) =>
    /^https?:/.test(url) && new URL(url).origin !== origin
  );
  assert.deepEqual(elsewhere, []);
  assert.deepEqual(visit.csp.filter((line) => line !== EVAL_PROBE), []);
  assert.deepEqual(visit.errors, []);
});
