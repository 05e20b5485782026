import assert from "node:assert/strict";
import type { Request } from "../../pipeline/request.ts";
import type { Response } from "../../pipeline/response.ts";
import { decodeResponse } from "../../testing/decode_response.ts";
import {
  requestFor,
  type RequestOptions,
  snapshotOf,
} from "../../testing/fixtures.ts";
import { zoneFromText } from "../../testing/zone_text.ts";
import {
  type AuthoritativeStage,
  createAuthoritativeStage,
} from "./authoritative.ts";

const SOA =
  "example.org. 3600 IN SOA ns1.example.org. hostmaster.example.org. 7 7200 3600 1209600 300";

function exampleZone(address = "192.0.2.1") {
  return zoneFromText("example.org.", [
    SOA,
    "example.org. 3600 IN NS ns1.example.org.",
    "ns1.example.org. 3600 IN A 192.0.2.53",
    `www.example.org. 300 IN A ${address}`,
  ]);
}

const snapshot = snapshotOf([exampleZone()], [
  { name: "corp.example.org.", objectName: "corp", upstreamGroup: "office" },
]);

const passed: Response = { drop: true, status: "forwarded", stage: "upstream" };

async function serve(
  stage: AuthoritativeStage,
  q: string,
  opts: RequestOptions = { snapshot },
): Promise<{ req: Request; res: Response }> {
  const req = requestFor(q, opts);
  return { req, res: await stage.serve(req, () => passed) };
}

Deno.test("authoritative answers from its zones", async (t) => {
  const cases = [
    {
      q: "www.example.org. A",
      rcode: "NOERROR",
      answer: ["www.example.org. 300 IN A 192.0.2.1"],
      authority: [], // no apex NS on positive answers (src/zone/README.md)
    },
    {
      q: "nope.example.org. A",
      rcode: "NXDOMAIN",
      answer: [],
      authority: [
        "example.org. 300 IN SOA ns1.example.org. hostmaster.example.org. 7 7200 3600 1209600 300",
      ],
    },
    {
      q: "www.example.org. AAAA",
      rcode: "NOERROR",
      answer: [],
      authority: [
        "example.org. 300 IN SOA ns1.example.org. hostmaster.example.org. 7 7200 3600 1209600 300",
      ],
    },
  ];
  for (const c of cases) {
    await t.step(c.q, async () => {
      const { req, res } = await serve(createAuthoritativeStage(), c.q);
      assert.equal(res.status, "authoritative");
      assert.equal(res.cacheable, false);
      const decoded = decodeResponse(req, res)!;
      assert.equal(decoded.rcode, c.rcode);
      assert.equal(decoded.aa, true);
      assert.deepEqual(decoded.answer, c.answer);
      assert.deepEqual(decoded.authority, c.authority);
    });
  }
});

Deno.test("authoritative passes names in no zone on", async () => {
  const { res } = await serve(createAuthoritativeStage(), "www.example.net. A");
  assert.equal(res, passed);
});

Deno.test("authoritative routes forward zones to their upstream group", async () => {
  const { req, res } = await serve(
    createAuthoritativeStage(),
    "host.corp.example.org. A",
  );
  assert.equal(res, passed);
  assert.deepEqual([req.zone, req.upstreamGroup], [
    "corp.example.org.",
    "office",
  ]);
});

Deno.test("authoritative routes a repeated forward-zone name to its upstream group again", async () => {
  const stage = createAuthoritativeStage();
  await serve(stage, "host.corp.example.org. A");
  const { req, res } = await serve(stage, "HOST.corp.example.org. AAAA");
  assert.equal(res, passed);
  assert.deepEqual([req.zone, req.upstreamGroup], [
    "corp.example.org.",
    "office",
  ]);
});

Deno.test("authoritative answers DS at a forward zone's apex from the parent zone after routing the apex", async () => {
  const stage = createAuthoritativeStage();
  await serve(stage, "corp.example.org. A"); // remembers the route
  const { req, res } = await serve(stage, "corp.example.org. DS");
  assert.equal(res.status, "authoritative");
  assert.equal(req.zone, "example.org.");
});

Deno.test("authoritative answers SERVFAIL before the first snapshot", async () => {
  const { req, res } = await serve(
    createAuthoritativeStage(),
    "www.example.org. A",
    {},
  );
  assert.equal(res.status, "servfail");
  assert.equal(decodeResponse(req, res)?.rcode, "SERVFAIL");
});

Deno.test("authoritative memo keeps answers with and without EDNS apart", async () => {
  const stage = createAuthoritativeStage();
  await serve(stage, "www.example.org. A");
  const { req, res } = await serve(stage, "www.example.org. A", {
    snapshot,
    edns: { do: true },
  });
  assert.equal(decodeResponse(req, res)?.opt?.do, true);
  const { bytes, ...counts } = stage.memoStats();
  assert.deepEqual(counts, { hits: 0, misses: 2, entries: 2 });
  assert.ok(bytes > 0, `bytes ${bytes}`);
});

Deno.test("authoritative memo is bounded", async () => {
  const stage = createAuthoritativeStage({ memoEntries: 2 });
  for (
    const q of [
      "www.example.org. A",
      "ns1.example.org. A",
      "example.org. NS",
      "example.org. SOA",
    ]
  ) {
    await serve(stage, q);
  }
  assert.equal(stage.memoStats().entries, 2);
});

Deno.test("authoritative memo is bounded in bytes too", async () => {
  // One name with one answer is more than half of 1,000 estimated bytes:
  // each generation holds one.
  const stage = createAuthoritativeStage({ memoBytes: 1000 });
  const names = ["www.example.org. A", "ns1.example.org. A", "example.org. NS"];
  for (const q of names) await serve(stage, q);
  const { entries, bytes } = stage.memoStats();
  assert.equal(entries, 2);
  assert.ok(bytes > 1000 && bytes < 2 * 1000, `bytes ${bytes}`);
});

Deno.test("authoritative answers a query from an older snapshot without evicting the newer memo", async () => {
  const stage = createAuthoritativeStage();
  const newer = snapshotOf([exampleZone("192.0.2.2")], [], 2);
  await serve(stage, "www.example.org. A", { snapshot: newer });
  const { req, res } = await serve(stage, "www.example.org. A", { snapshot });
  assert.deepEqual(decodeResponse(req, res)?.answer, [
    "www.example.org. 300 IN A 192.0.2.1",
  ]);
  assert.equal(stage.memoStats().entries, 1);
  const again = await serve(stage, "www.example.org. A", { snapshot: newer });
  assert.deepEqual(decodeResponse(again.req, again.res)?.answer, [
    "www.example.org. 300 IN A 192.0.2.2",
  ]);
});
