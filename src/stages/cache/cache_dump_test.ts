import assert from "node:assert/strict";
import { decodeAnswer } from "../../pipeline/testing/mod.ts";
import { createCacheStage } from "./cache.ts";
import { mergeEntries, type SerializedEntry } from "./cache_dump.ts";
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
