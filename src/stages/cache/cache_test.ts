import assert from "node:assert/strict";
import { RCODE, TYPE } from "../../dns/wire/constants.ts";
import type { Response } from "../../pipeline/response.ts";
import { snapshotOf } from "../../testing/fixtures.ts";
import { decodeAnswer } from "../../testing/query_bytes.ts";
import { createCacheStage } from "./cache.ts";
import {
  ask,
  cacheSettings,
  FakeClock,
  forwarded,
  ScriptedUpstream,
  snapshotWithCache,
  WWW_A,
} from "./testdata/answers.ts";

const SNAPSHOT = snapshotWithCache(cacheSettings());
const NXDOMAIN = {
  rcode: RCODE.NXDOMAIN,
  authority: [
    "example.org. 3600 IN SOA ns1.example.org. hostmaster.example.org. 1 7200 900 1209600 120",
  ],
};

function setup(
  script = (req: Parameters<typeof forwarded>[0]) =>
    forwarded(req, { answer: [WWW_A] }),
  delayMs?: number,
) {
  const clock = new FakeClock();
  const stage = createCacheStage({ now: clock.now });
  const upstream = new ScriptedUpstream(script, delayMs);
  return { clock, stage, upstream };
}

async function serve(
  stage: ReturnType<typeof createCacheStage>,
  question: string,
  upstream: ScriptedUpstream,
  opts: Parameters<typeof ask>[2] = {},
): Promise<Response> {
  return await stage.serve(ask(question, SNAPSHOT, opts), upstream.next);
}

Deno.test("cache answers a repeated question from the cache with the client's ID and case, TTLs counted down", async () => {
  const { clock, stage, upstream } = setup();
  const first = await serve(stage, "www.example.org. A", upstream);
  assert.equal(first.status, "forwarded");
  clock.advance(100);
  const hit = await serve(stage, "wWw.ExAmple.org. A", upstream, {
    id: 0xbeef,
  });
  assert.equal(upstream.calls, 1);
  assert.equal(hit.status, "cached");
  assert.equal(hit.stage, "cache");
  const decoded = decodeAnswer(hit.wire!);
  assert.equal(decoded.id, 0xbeef);
  assert.deepEqual(decoded.question, ["wWw.ExAmple.org. A IN"]);
  assert.deepEqual(decoded.answer, ["wWw.ExAmple.org. 200 IN A 192.0.2.1"]);
});

Deno.test("cache passes everything on when the snapshot has no cache settings", async () => {
  const { stage, upstream } = setup();
  const req = () =>
    ask(
      "www.example.org. A",
      snapshotOf([]),
    );
  await stage.serve(req(), upstream.next);
  const second = await stage.serve(req(), upstream.next);
  assert.equal(second.status, "forwarded");
  assert.equal(upstream.calls, 2);
});

Deno.test("cache keeps answers apart by the DO and CD bits", async (t) => {
  const rows = [
    { name: "DO", set: { edns: { do: true } }, unset: { edns: {} } },
    { name: "CD", set: { cd: true }, unset: {} },
  ];
  for (const row of rows) {
    await t.step(row.name, async () => {
      const { stage, upstream } = setup();
      await serve(stage, "www.example.org. A", upstream, row.set);
      const other = await serve(
        stage,
        "www.example.org. A",
        upstream,
        row.unset,
      );
      assert.equal(other.status, "forwarded");
      const same = await serve(stage, "www.example.org. A", upstream, row.set);
      assert.equal(same.status, "cached");
      assert.equal(upstream.calls, 2);
    });
  }
});

Deno.test("cache writes the client's own OPT record on a hit", async () => {
  const { stage, upstream } = setup((req) =>
    forwarded(req, { answer: [WWW_A], edns: true })
  );
  await serve(stage, "www.example.org. A", upstream, { edns: {} });
  const withOpt = decodeAnswer(
    (await serve(stage, "www.example.org. A", upstream, { edns: {} })).wire!,
  );
  assert.equal(withOpt.opt?.udpSize, 1232);
  const withoutOpt = decodeAnswer(
    (await serve(stage, "www.example.org. A", upstream)).wire!,
  );
  assert.equal(withoutOpt.opt, undefined);
  assert.deepEqual(withoutOpt.answer, ["www.example.org. 300 IN A 192.0.2.1"]);
});

Deno.test("cache truncates a hit that is too big for the client", async () => {
  const many = Array.from(
    { length: 40 },
    (_, i) => `www.example.org. 300 IN A 192.0.2.${i + 1}`,
  );
  const { stage, upstream } = setup((req) => forwarded(req, { answer: many }));
  await serve(stage, "www.example.org. A", upstream, { transport: "tcp" });
  const hit = await serve(stage, "www.example.org. A", upstream);
  const decoded = decodeAnswer(hit.wire!);
  assert.equal(hit.status, "cached");
  assert.equal(decoded.tc, true);
  assert.deepEqual(decoded.answer, []);
});

Deno.test("cache clamps TTLs to minTTL and maxTTL", async (t) => {
  const rows = [
    { ttl: 1, want: "60", settings: { minTTL: "60s" } },
    { ttl: 86400, want: "3600", settings: { maxTTL: "1h" } },
  ];
  for (const row of rows) {
    await t.step(`upstream TTL ${row.ttl}`, async () => {
      const clock = new FakeClock();
      const stage = createCacheStage({ now: clock.now });
      const snapshot = snapshotWithCache(cacheSettings(row.settings));
      const upstream = new ScriptedUpstream((req) =>
        forwarded(req, {
          answer: [`www.example.org. ${row.ttl} IN A 192.0.2.1`],
        })
      );
      const q = () => ask("www.example.org. A", snapshot);
      const first = await stage.serve(q(), upstream.next);
      assert.equal(first.status, "forwarded");
      assert.equal(
        decodeAnswer(first.wire!).answer[0]!.split(" ")[1],
        row.want,
        "the first asker sees the TTL the cache serves, not the upstream's",
      );
      const hit = await stage.serve(q(), upstream.next);
      assert.equal(decodeAnswer(hit.wire!).answer[0]!.split(" ")[1], row.want);
      clock.advance(Number(row.want));
      const after = await stage.serve(q(), upstream.next);
      assert.equal(after.status, "forwarded");
    });
  }
});

Deno.test("cache keeps NXDOMAIN for the SOA-derived TTL", async () => {
  const { clock, stage, upstream } = setup((req) => forwarded(req, NXDOMAIN));
  await serve(stage, "nope.example.org. A", upstream);
  clock.advance(119);
  const hit = await serve(stage, "nope.example.org. A", upstream);
  assert.equal(hit.status, "cached");
  const decoded = decodeAnswer(hit.wire!);
  assert.equal(decoded.rcode, "NXDOMAIN");
  assert.equal(decoded.authority[0]!.split(" ")[1], "1");
  clock.advance(1);
  assert.equal(
    (await serve(stage, "nope.example.org. A", upstream)).status,
    "forwarded",
  );
});

Deno.test("cache keeps negative answers no longer than negativeTTL", async (t) => {
  const rows = [
    { name: "NXDOMAIN", text: NXDOMAIN },
    { name: "NODATA", text: { ...NXDOMAIN, rcode: RCODE.NOERROR } },
  ];
  for (const row of rows) {
    await t.step(row.name, async () => {
      const clock = new FakeClock();
      const stage = createCacheStage({ now: clock.now });
      const snapshot = snapshotWithCache(
        cacheSettings({ negativeTTL: "30s" }),
      );
      const upstream = new ScriptedUpstream((req) => forwarded(req, row.text));
      const q = () => ask("nope.example.org. AAAA", snapshot);
      await stage.serve(q(), upstream.next);
      const hit = await stage.serve(q(), upstream.next);
      assert.equal(
        decodeAnswer(hit.wire!).rcode,
        row.name === "NXDOMAIN" ? "NXDOMAIN" : "NOERROR",
      );
      assert.equal(decodeAnswer(hit.wire!).authority[0]!.split(" ")[1], "30");
      clock.advance(30);
      await stage.serve(q(), upstream.next);
      assert.equal(upstream.calls, 2);
    });
  }
});

Deno.test("cache keeps a CNAME chain that ends in NODATA or NXDOMAIN as a negative answer", async (t) => {
  const soa =
    "example.org. 3600 IN SOA ns1.example.org. hostmaster.example.org. 1 7200 900 1209600 60";
  const rows = [
    // RFC 2308 §2.2: NODATA behind a CNAME; the SOA's MINIMUM (60) rules,
    // not the CNAME's hour.
    {
      name: "NODATA after a CNAME",
      text: {
        answer: ["alias.example.org. 3600 IN CNAME target.example.org."],
        authority: [soa],
      },
      lives: 60,
    },
    // The chain's CNAME expires before the SOA-derived TTL: so does the entry.
    {
      name: "NXDOMAIN after a short CNAME",
      text: {
        rcode: RCODE.NXDOMAIN,
        answer: ["alias.example.org. 10 IN CNAME gone.example.org."],
        authority: [soa],
      },
      lives: 10,
    },
  ];
  for (const row of rows) {
    await t.step(row.name, async () => {
      const { clock, stage, upstream } = setup((req) =>
        forwarded(req, row.text)
      );
      await serve(stage, "alias.example.org. A", upstream);
      clock.advance(row.lives - 1);
      const hit = await serve(stage, "alias.example.org. A", upstream);
      assert.equal(hit.status, "cached");
      const decoded = decodeAnswer(hit.wire!);
      assert.equal(decoded.answer[0]!.split(" ")[1], "1");
      assert.equal(decoded.authority[0]!.split(" ")[1], "1");
      clock.advance(1);
      await serve(stage, "alias.example.org. A", upstream);
      assert.equal(upstream.calls, 2);
    });
  }
  await t.step(
    "a CNAME without the data and without an SOA is not kept",
    async () => {
      const { stage, upstream } = setup((req) =>
        forwarded(req, {
          answer: ["alias.example.org. 3600 IN CNAME target.example.org."],
        })
      );
      await serve(stage, "alias.example.org. A", upstream);
      await serve(stage, "alias.example.org. A", upstream);
      assert.equal(upstream.calls, 2);
    },
  );
  await t.step("a CNAME asked for is data", async () => {
    const { stage, upstream } = setup((req) =>
      forwarded(req, {
        answer: ["alias.example.org. 3600 IN CNAME target.example.org."],
      })
    );
    await serve(stage, "alias.example.org. CNAME", upstream);
    const hit = await serve(stage, "alias.example.org. CNAME", upstream);
    assert.equal(hit.status, "cached");
  });
});

Deno.test("cache never answers a query without RD from the cache (no cache snooping)", async () => {
  const { stage, upstream } = setup();
  await serve(stage, "www.example.org. A", upstream);
  const res = await serve(stage, "www.example.org. A", upstream, { rd: false });
  assert.equal(res.status, "forwarded");
  assert.equal(upstream.calls, 2);
});

Deno.test("cache does not keep answers that must not be cached", async (t) => {
  const rows: {
    name: string;
    res: (req: Parameters<typeof forwarded>[0]) => Response;
  }[] = [
    {
      name: "truncated",
      res: (req) => forwarded(req, { answer: [WWW_A], tc: true }),
    },
    {
      name: "SERVFAIL",
      res: (req) =>
        forwarded(req, { rcode: RCODE.SERVFAIL }, "servfail_upstream"),
    },
    {
      name: "forwarded SERVFAIL",
      res: (req) => forwarded(req, { rcode: RCODE.SERVFAIL }),
    },
    { name: "REFUSED", res: (req) => forwarded(req, { rcode: RCODE.REFUSED }) },
    {
      name: "NXDOMAIN without SOA",
      res: (req) => forwarded(req, { rcode: RCODE.NXDOMAIN }),
    },
    {
      name: "authoritative",
      res: (req) => forwarded(req, { answer: [WWW_A] }, "authoritative"),
    },
    {
      name: "marked not cacheable",
      res: (req) => ({
        ...forwarded(req, { answer: [WWW_A] }),
        cacheable: false,
      }),
    },
  ];
  for (const row of rows) {
    await t.step(row.name, async () => {
      const { stage, upstream } = setup(row.res);
      await serve(stage, "www.example.org. A", upstream);
      await serve(stage, "www.example.org. A", upstream);
      // An upstream failure is answered again for a moment without a
      // trip upstream (cache_failure_test.ts), but never stored.
      const again = row.name === "SERVFAIL" ? 0 : 1;
      assert.equal(upstream.calls, 1 + again);
      assert.equal(stage.stats().failureHits, 1 - again);
      assert.equal(stage.stats().entries, 0);
    });
  }
});

Deno.test("cache sends N identical concurrent questions upstream once, each answer with its own ID", async () => {
  const { stage, upstream } = setup(undefined, 5);
  try {
    const answers = await Promise.all(
      Array.from(
        { length: 10 },
        (_, i) => serve(stage, "www.example.org. A", upstream, { id: 100 + i }),
      ),
    );
    assert.equal(upstream.calls, 1);
    assert.deepEqual(
      answers.map((res) => decodeAnswer(res.wire!).id),
      Array.from({ length: 10 }, (_, i) => 100 + i),
    );
    assert.equal(stage.stats().coalesced, 9);
  } finally {
    upstream.close();
  }
});

Deno.test("cache gives coalesced askers of an uncacheable answer their own copy", async () => {
  const { stage, upstream } = setup(
    (req) => forwarded(req, { rcode: RCODE.SERVFAIL }, "servfail_upstream"),
    5,
  );
  try {
    const [a, b] = await Promise.all([
      serve(stage, "www.example.org. A", upstream, { id: 1 }),
      serve(stage, "WWW.example.org. A", upstream, { id: 2 }),
    ]);
    assert.equal(upstream.calls, 1);
    assert.equal(decodeAnswer(a!.wire!).id, 1);
    const second = decodeAnswer(b!.wire!);
    assert.equal(second.id, 2);
    assert.deepEqual(second.question, ["WWW.example.org. A IN"]);
    assert.equal(second.rcode, "SERVFAIL");
  } finally {
    upstream.close();
  }
});

Deno.test("cache flush drops one name or everything", async () => {
  const { stage, upstream } = setup((req) =>
    forwarded(req, {
      answer: [
        req.query.question!.type === TYPE.AAAA
          ? "www.example.org. 300 IN AAAA 2001:db8::1"
          : WWW_A,
      ],
    })
  );
  await serve(stage, "www.example.org. A", upstream);
  await serve(stage, "www.example.org. AAAA", upstream);
  await serve(stage, "mail.example.org. A", upstream);
  assert.equal(stage.flush("WWW.example.org"), 2);
  assert.equal(
    (await serve(stage, "mail.example.org. A", upstream)).status,
    "cached",
  );
  assert.equal(
    (await serve(stage, "www.example.org. A", upstream)).status,
    "forwarded",
  );
  assert.equal(stage.flush(), 2);
  assert.equal(stage.stats().entries, 0);
});

Deno.test("cache hands entries stored from cut answers to onCutAnswerStored, no others", async () => {
  const shared: string[] = [];
  const { stage, upstream } = setup((req) => {
    const res = forwarded(req, { answer: [WWW_A] });
    if (req.qname.startsWith("cut.")) res.wholeWire = res.wire!;
    return res;
  });
  stage.onCutAnswerStored((entry) => shared.push(entry.name));
  await serve(stage, "cut.example.org. A", upstream);
  await serve(stage, "www.example.org. A", upstream);
  assert.deepEqual(shared, ["cut.example.org."]);
});

Deno.test("cache takes shared entries only within its size bound", async () => {
  const source = createCacheStage();
  const big = snapshotWithCache(cacheSettings());
  const upstream = new ScriptedUpstream((req) =>
    forwarded(req, { answer: [`${req.qname} 300 IN A 192.0.2.1`] })
  );
  for (let i = 0; i < 60; i++) {
    await source.serve(ask(`n${i}.example.org. A`, big), upstream.next);
  }
  const entries = source.exportEntries();
  assert.equal(entries.length, 60);
  const small = snapshotWithCache(cacheSettings({ maxEntries: 10 }));
  const target = createCacheStage();
  await target.serve(ask("www.example.org. A", small), upstream.next);
  target.importShared(entries);
  assert.ok(target.stats().entries <= 10, `${target.stats().entries} entries`);
});

Deno.test("cache gives the first asker the answer cut for it, not an empty TC=1 one", async () => {
  let made: Response | undefined;
  const { stage, upstream } = setup((req) => {
    made = forwarded(req, { answer: [WWW_A] });
    made.wholeWire = made.wire!; // as the upstream stage marks a cut answer
    return made;
  });
  const first = await serve(stage, "www.example.org. A", upstream);
  assert.equal(first.wire, made!.wire, "the upstream stage's own answer");
});

Deno.test("cache does not take a shared entry stored before a flush", async () => {
  const { clock, stage: target, upstream } = setup();
  const source = createCacheStage({ now: clock.now });
  await source.serve(ask("www.example.org. A", SNAPSHOT), upstream.next);
  await source.serve(ask("mail.example.org. A", SNAPSHOT), upstream.next);
  const shared = source.exportEntries();
  clock.advance(1);
  target.flush("WWW.example.org");
  assert.equal(target.importShared(shared), 1, "only the name not flushed");
  target.flush();
  assert.equal(target.importShared(shared), 0, "nothing after a full flush");
});
