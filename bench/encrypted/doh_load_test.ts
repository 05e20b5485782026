/**
 * The DoH load's URIs decode back to the query asked, and h2load's summary
 * (as nghttp2 1.52 prints it) is read right, in-flight requests left out.
 */
import assert from "node:assert/strict";
import {
  base64Url,
  dohUri,
  dohUriFile,
  parseH2loadReport,
} from "./doh_load.ts";
import { decodeResponse } from "../../src/testing/dns_client.ts";

function fromBase64Url(text: string): Uint8Array {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const padded = b64 + "=".repeat((4 - b64.length % 4) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

Deno.test("base64Url is unpadded and URL-safe", () => {
  assert.equal(base64Url(new Uint8Array([0xfb, 0xff])), "-_8");
  assert.equal(base64Url(new Uint8Array([0, 0, 0])), "AAAA");
});

Deno.test("dohUri asks the name, type A, with ID 0", () => {
  const uri = new URL(dohUri(8443, "/dns-query", "h7.bench.test."));
  assert.equal(uri.host, "127.0.0.1:8443");
  assert.equal(uri.pathname, "/dns-query");
  const message = decodeResponse(fromBase64Url(uri.searchParams.get("dns")!));
  assert.equal(message.id, 0);
  assert.deepEqual(
    message.questions.map((q) => [q.name, q.type]),
    [["h7.bench.test", "A"]],
  );
});

Deno.test("dohUriFile holds one URI per name, in order", () => {
  const lines = dohUriFile(853, "/q", ["a.test.", "b.test."]).trimEnd()
    .split("\n");
  assert.equal(lines.length, 2);
  assert.notEqual(lines[0], lines[1]);
  assert.ok(lines.every((l) => l.startsWith("https://127.0.0.1:853/q?dns=")));
});

const TIMED = `
finished in 2.00s, 38657.50 req/s, 2.72MB/s
requests: 77315 total, 77415 started, 77315 done, 77315 succeeded, 0 failed, 0 errored, 0 timeout
status codes: 77321 2xx, 0 3xx, 0 4xx, 0 5xx
traffic: 5.45MB (5712770) total, 528.63KB (541315) headers (space savings 88.52%), 3.60MB (3779635) data
`;

Deno.test("parseH2loadReport reads a timed run", () => {
  assert.deepEqual(parseH2loadReport(TIMED), {
    seconds: 2,
    done: 77315,
    ok: 77321,
    notOk: 0,
  });
});

Deno.test("parseH2loadReport counts failures and 3xx as not answered", () => {
  const text = `
finished in 92.40ms, 10822.39 req/s, 781.36KB/s
requests: 1000 total, 1000 started, 1000 done, 990 succeeded, 10 failed, 4 errored, 0 timeout
status codes: 984 2xx, 2 3xx, 6 4xx, 0 5xx
`;
  const r = parseH2loadReport(text)!;
  assert.ok(Math.abs(r.seconds - 0.0924) < 1e-9);
  assert.equal(r.ok, 984);
  assert.equal(r.notOk, 12);
});

Deno.test("parseH2loadReport returns null without a summary", () => {
  assert.equal(parseH2loadReport("no protocol was negotiated"), null);
});
