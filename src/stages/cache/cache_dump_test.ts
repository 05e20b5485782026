import assert from "node:assert/strict";
import { decodeAnswer } from "../../testing/query_bytes.ts";
import { createCacheStage } from "./cache.ts";
import { AnswerCache } from "./answer_cache.ts";
import { entryBytes } from "../../pipeline/cache_dump.ts";
import { exportEntries, importEntries } from "./cache_dump.ts";
import {
  MAX_DUMP_BYTES,
  mergeEntries,
  type SerializedEntry,
} from "../../pipeline/cache_dump.ts";
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

function setup() {
  const clock = new FakeClock();
  const stage = createCacheStage({ now: clock.now });
  const upstream = new ScriptedUpstream((req) =>
    forwarded(req, { answer: [WWW_A] })
  );
  return { clock, stage, upstream };
}

async function query(
  stage: ReturnType<typeof createCacheStage>,
  upstream: ScriptedUpstream,
) {
  return await stage.serve(ask("www.example.org. A", SNAPSHOT), upstream.next);
}

Deno.test("cache dump carries an entry's age and the downtime across an import", async () => {
  const before = setup();
  await query(before.stage, before.upstream);
  before.clock.advance(100);
  const dump = before.stage.exportEntries();
  assert.equal(dump.length, 1);

  const after = setup();
  after.clock.advance(150); // 100 s old at the dump, 50 s down
  assert.equal(after.stage.importEntries(structuredClone(dump)), 1);
  const hit = await query(after.stage, after.upstream);
  assert.equal(hit.status, "cached");
  assert.equal(after.upstream.calls, 0);
  assert.deepEqual(decodeAnswer(hit.wire!).answer, [
    "www.example.org. 150 IN A 192.0.2.1",
  ]);
});

Deno.test("cache dump keeps the upstream's client subnet for later hits", async () => {
  const subnet = new Uint8Array([0, 1, 24, 16, 198, 51, 100]);
  const before = setup();
  before.upstream.script = (req) => ({
    ...forwarded(req, { answer: [WWW_A] }),
    clientSubnet: subnet,
  });
  await query(before.stage, before.upstream);
  const dump = before.stage.exportEntries();
  assert.deepEqual(dump[0]?.clientSubnet, subnet);

  const after = setup();
  assert.equal(after.stage.importEntries(structuredClone(dump)), 1);
  const asked = new Uint8Array([0, 1, 24, 0, 198, 51, 100]);
  const hit = await after.stage.serve(
    ask("www.example.org. A", SNAPSHOT, {
      edns: { options: [{ code: 8, data: asked }] },
    }),
    after.upstream.next,
  );
  assert.equal(hit.status, "cached");
  assert.deepEqual(decodeAnswer(hit.wire!).opt?.options, [
    { code: 8, data: subnet },
  ]);
});

Deno.test("cache dump leaves out entries past the stale window", async () => {
  const { clock, stage, upstream } = setup();
  await query(stage, upstream);
  clock.advance(300 + 72 * 3600);
  assert.deepEqual(stage.exportEntries(), []);
});

Deno.test("cache dump keeps expired entries within the stale window", async () => {
  const { clock, stage, upstream } = setup();
  await query(stage, upstream);
  clock.advance(400);
  const [entry] = stage.exportEntries();
  assert.ok(entry);
  assert.equal(entry.staleUntil, entry.expiresAt + 72 * 3600 * 1000);
});

Deno.test("cache import skips entries expired beyond the stale window", async () => {
  const before = setup();
  await query(before.stage, before.upstream);
  const dump = before.stage.exportEntries();
  const after = setup();
  after.clock.advance(300 + 72 * 3600);
  assert.equal(after.stage.importEntries(dump), 0);
  assert.equal(after.stage.stats().entries, 0);
});

Deno.test("cache import skips malformed entries", async (t) => {
  const before = setup();
  await query(before.stage, before.upstream);
  const [good] = before.stage.exportEntries();
  assert.ok(good);
  const rows: [string, unknown][] = [
    ["not an object", "x"],
    ["no key", { ...good, key: "" }],
    ["wire not bytes", { ...good, wire: [1, 2, 3] }],
    ["offset past the end", { ...good, offsets: [good.wire.length] }],
    ["ttls and offsets apart", { ...good, ttls: [] }],
    ["expiry before storage", { ...good, expiresAt: good.storedAt }],
    ["stored in the future", { ...good, storedAt: good.storedAt + 1e9 }],
    ["negative not a boolean", { ...good, negative: "no" }],
    ["failed refresh not a time", { ...good, refreshFailedAt: -1 }],
    ["more answers than TTLs", { ...good, offsets: [], ttls: [] }],
    ["client subnet of family 3", {
      ...good,
      clientSubnet: new Uint8Array([0, 3, 24, 0, 198, 51, 100]),
    }],
    ["client subnet shorter than its prefix", {
      ...good,
      clientSubnet: new Uint8Array([0, 1, 24, 0, 198]),
    }],
  ];
  for (const [name, bad] of rows) {
    await t.step(name, () => {
      const { stage } = setup();
      assert.equal(stage.importEntries([bad]), 0);
      assert.equal(stage.stats().entries, 0);
    });
  }
});

Deno.test("cache dump is empty when the settings disable the cache", async () => {
  const { stage, upstream } = setup();
  await query(stage, upstream);
  const off = snapshotWithCache(cacheSettings({ maxEntries: 0 }));
  await stage.serve(ask("www.example.org. A", off), upstream.next);
  assert.deepEqual(stage.exportEntries(), []);
});

Deno.test("mergeEntries keeps the entry stored last for a key", () => {
  const entry = (key: string, storedAt: number): SerializedEntry => ({
    key,
    name: "a.",
    wire: new Uint8Array(12),
    offsets: [],
    ttls: [],
    storedAt,
    expiresAt: storedAt + 1000,
    staleUntil: storedAt + 1000,
    ttl: 1,
    negative: false,
  });
  const merged = mergeEntries([
    [entry("a", 1), entry("b", 5)],
    [entry("a", 3), entry("b", 2)],
  ]);
  assert.deepEqual(
    merged.map((e) => [e.key, e.storedAt]),
    [["a", 3], ["b", 5]],
  );
});

/** A plain entry for `key`, stored at `storedAt`, with `wire`. */
function plain(
  key: string,
  storedAt: number,
  wire = new Uint8Array(12),
): SerializedEntry {
  return {
    key,
    name: "a.",
    wire,
    offsets: [],
    ttls: [],
    storedAt,
    expiresAt: storedAt + 1000,
    staleUntil: storedAt + 1000,
    ttl: 1,
    negative: false,
  };
}

Deno.test("cache dump keeps the most recently used entries that fit its byte budget, oldest first", async () => {
  const { clock, stage } = setup();
  const upstream = new ScriptedUpstream((req) =>
    forwarded(req, {
      answer: Array.from(
        { length: 8 },
        (_, i) => `${req.qname} 300 IN TXT "${i}${"x".repeat(200)}"`,
      ),
    })
  );
  for (let i = 10; i < 30; i++) {
    await stage.serve(ask(`n${i}.example.org. TXT`, SNAPSHOT), upstream.next);
  }
  const all = stage.exportEntries();
  assert.equal(all.length, 20);
  const cache = new AnswerCache(1000);
  assert.equal(importEntries(cache, all, clock.ms), 20);
  const budget = all.slice(-5).reduce((sum, e) => sum + entryBytes(e), 0);
  const dumped = exportEntries(cache, clock.ms, 0, 50_000, budget);
  assert.deepEqual(
    dumped.map((e) => e.name),
    all.slice(-5).map((e) => e.name),
  );
  const fewer = exportEntries(cache, clock.ms, 0, 3, budget);
  assert.deepEqual(fewer.map((e) => e.name), all.slice(-3).map((e) => e.name));
});

Deno.test("mergeEntries keeps at most its byte budget, the most recently used of each dump in turn", () => {
  const [a1, a2, a3] = [plain("a1", 1), plain("a2", 2), plain("a3", 3)];
  const [b1, b2, b3] = [plain("b1", 1), plain("b2", 2), plain("b3", 3)];
  const budget = entryBytes(a1) * 3;
  const merged = mergeEntries([[a1, a2, a3], [b1, b2, b3]], budget);
  assert.deepEqual(merged.map((e) => e.key), ["a2", "b3", "a3"]);
  // A newer copy of a key counts once.
  const again = mergeEntries([[a1, a2], [plain("a2", 5), a3]], budget);
  assert.deepEqual(
    again.map((e) => [e.key, e.storedAt]),
    [["a1", 1], ["a3", 3], ["a2", 5]],
  );
});

Deno.test("mergeEntries keeps MAX_DUMP_BYTES by default", () => {
  const wire = new Uint8Array(60_000); // one buffer: only its length counts
  const big = (i: number) => plain(`k${i}`, i, wire);
  const count = Math.ceil(MAX_DUMP_BYTES / entryBytes(big(0))) + 50;
  const dump = Array.from({ length: count }, (_, i) => big(i));
  const merged = mergeEntries([dump]);
  const bytes = merged.reduce((sum, e) => sum + entryBytes(e), 0);
  assert.ok(bytes <= MAX_DUMP_BYTES);
  assert.ok(merged.length >= count - 52, `${merged.length} of ${count}`);
  assert.equal(merged.at(-1)!.key, `k${count - 1}`, "the most recent kept");
});
