import assert from "node:assert/strict";
import { EDNS_OPTION, RCODE } from "../../dns/wire/constants.ts";
import type { Request } from "../../pipeline/request.ts";
import type { Response } from "../../pipeline/response.ts";
import { decodeAnswer } from "../../testing/query_bytes.ts";
import { createCacheStage } from "./cache.ts";
import { EDE_STALE_ANSWER } from "./entry_answer.ts";
import {
  ask,
  cacheSettings,
  FakeClock,
  forwarded,
  ScriptedUpstream,
  snapshotWithCache,
  WWW_A,
} from "./testdata/answers.ts";

const SNAPSHOT = snapshotWithCache(cacheSettings({
  serveStale: { ttl: "1h", answerTTL: "30s", maxWait: "20ms" },
}));

const good = (req: Request) => forwarded(req, { answer: [WWW_A] });
const failing = (req: Request) =>
  forwarded(req, { rcode: RCODE.SERVFAIL }, "servfail_upstream");
const timingOut = (req: Request) =>
  forwarded(req, { rcode: RCODE.SERVFAIL }, "timeout_upstream");
const busy = (req: Request) =>
  forwarded(req, { rcode: RCODE.SERVFAIL }, "overloaded_upstream");

/** A stage with www.example.org. A cached (TTL 300) and then expired by `age` seconds. */
async function expiredBy(age: number) {
  const clock = new FakeClock();
  const stage = createCacheStage({ now: clock.now });
  const upstream = new ScriptedUpstream(good);
  await stage.serve(ask("www.example.org. A", SNAPSHOT), upstream.next);
  clock.advance(300 + age);
  return { clock, stage, upstream };
}

function staleOption(res: Response): Uint8Array | undefined {
  return decodeAnswer(res.wire!).opt?.options.find((o) =>
    o.code === EDNS_OPTION.EDE
  )?.data;
}

Deno.test("cache serves an expired answer when the upstreams fail", async (t) => {
  for (
    const [name, script] of [
      ["servfail", failing],
      ["timeout", timingOut],
      ["a group with too many queries waiting", busy],
    ] as const
  ) {
    await t.step(name, async () => {
      const { stage, upstream } = await expiredBy(60);
      upstream.script = script;
      const res = await stage.serve(
        ask("www.example.org. A", SNAPSHOT, { edns: {} }),
        upstream.next,
      );
      assert.equal(res.status, "cached_stale");
      assert.deepEqual(decodeAnswer(res.wire!).answer, [
        "www.example.org. 30 IN A 192.0.2.1",
      ]);
      assert.deepEqual(staleOption(res), new Uint8Array([0, EDE_STALE_ANSWER]));
      assert.equal(upstream.calls, 2);
    });
  }
});

Deno.test("cache serves an expired answer when the upstream is slower than maxWait, then refreshes it", async () => {
  const { stage, upstream } = await expiredBy(60);
  upstream.delayMs = 200;
  try {
    const started = performance.now();
    const res = await stage.serve(
      ask("www.example.org. A", SNAPSHOT),
      upstream.next,
    );
    assert.equal(res.status, "cached_stale");
    assert.ok(performance.now() - started < 150);
    await stage.whenIdle();
    const fresh = await stage.serve(
      ask("www.example.org. A", SNAPSHOT),
      upstream.next,
    );
    assert.equal(fresh.status, "cached");
    assert.deepEqual(decodeAnswer(fresh.wire!).answer, [
      "www.example.org. 300 IN A 192.0.2.1",
    ]);
  } finally {
    upstream.close();
  }
});

Deno.test("cache answers the upstream's answer when it comes before maxWait", async () => {
  const { stage, upstream } = await expiredBy(60);
  upstream.delayMs = 1;
  try {
    const res = await stage.serve(
      ask("www.example.org. A", SNAPSHOT),
      upstream.next,
    );
    assert.equal(res.status, "forwarded");
  } finally {
    upstream.close();
  }
});

Deno.test("cache does not serve entries expired longer than the stale TTL", async () => {
  const { stage, upstream } = await expiredBy(3600);
  upstream.script = failing;
  const res = await stage.serve(
    ask("www.example.org. A", SNAPSHOT),
    upstream.next,
  );
  assert.equal(res.status, "servfail_upstream");
  assert.equal(stage.stats().entries, 0);
});

Deno.test("cache does not serve stale answers when serveStale is disabled", async () => {
  const clock = new FakeClock();
  const stage = createCacheStage({ now: clock.now });
  const snapshot = snapshotWithCache(
    cacheSettings({ serveStale: { enabled: false } }),
  );
  const upstream = new ScriptedUpstream(good);
  await stage.serve(ask("www.example.org. A", snapshot), upstream.next);
  clock.advance(301);
  upstream.script = failing;
  const res = await stage.serve(
    ask("www.example.org. A", snapshot),
    upstream.next,
  );
  assert.equal(res.status, "servfail_upstream");
});

Deno.test("cache counts one stale hit when the upstream fails after maxWait", async () => {
  const { stage, upstream } = await expiredBy(60);
  upstream.script = failing;
  upstream.delayMs = 100;
  try {
    const res = await stage.serve(
      ask("www.example.org. A", SNAPSHOT),
      upstream.next,
    );
    assert.equal(res.status, "cached_stale");
    await stage.whenIdle();
    assert.equal(stage.stats().staleHits, 1);
  } finally {
    upstream.close();
  }
});

Deno.test("cache answers stale at once for 30 s after a failed refresh, then asks again", async () => {
  const { clock, stage, upstream } = await expiredBy(60);
  upstream.script = failing;
  const q = () =>
    stage.serve(ask("www.example.org. A", SNAPSHOT), upstream.next);
  assert.equal((await q()).status, "cached_stale");
  assert.equal(upstream.calls, 2);
  clock.advance(29);
  assert.equal((await q()).status, "cached_stale");
  assert.equal(upstream.calls, 2, "within the recheck time: no upstream query");
  clock.advance(1);
  assert.equal((await q()).status, "cached_stale");
  assert.equal(upstream.calls, 3, "the recheck time is over: asked again");
  upstream.script = good;
  clock.advance(30);
  assert.equal((await q()).status, "forwarded");
  assert.equal((await q()).status, "cached");
});

Deno.test("cache answers an expired entry stale at once to an overloaded listener", async () => {
  const { stage, upstream } = await expiredBy(60);
  const plain = ask("www.example.org. A", SNAPSHOT);
  const req = {
    ...plain,
    client: { ...plain.client, overloaded: true as const },
  };
  const res = await stage.serve(req, upstream.next);
  assert.equal(res.status, "cached_stale");
  assert.equal(upstream.calls, 1, "only the first fill: no upstream query");
});
