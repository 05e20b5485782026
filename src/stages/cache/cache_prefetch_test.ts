import assert from "node:assert/strict";
import type { Request } from "../../pipeline/request.ts";
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

const SNAPSHOT = snapshotWithCache(
  cacheSettings({ prefetch: { threshold: 2, window: "1h" } }),
);

async function cachedOnce(snapshot = SNAPSHOT) {
  const clock = new FakeClock();
  const stage = createCacheStage({ now: clock.now });
  const upstream = new ScriptedUpstream(
    (req: Request) => forwarded(req, { answer: [WWW_A] }),
    5,
  );
  await stage.serve(ask("www.example.org. A", snapshot), upstream.next);
  return { clock, stage, upstream };
}

Deno.test("cache refreshes a hot entry in its last 10 % in the background", async () => {
  const { clock, stage, upstream } = await cachedOnce();
  try {
    clock.advance(275);
    for (let i = 0; i < 2; i++) {
      const res = stage.serve(
        ask("www.example.org. A", SNAPSHOT),
        upstream.next,
      );
      assert.ok(!(res instanceof Promise), "a hit answers at once");
      assert.equal(res.status, "cached");
    }
    assert.equal(upstream.calls, 2);
    assert.equal(stage.stats().prefetches, 1);
    await stage.whenIdle();
    const res = await stage.serve(
      ask("www.example.org. A", SNAPSHOT),
      upstream.next,
    );
    assert.deepEqual(decodeAnswer(res.wire!).answer, [
      "www.example.org. 300 IN A 192.0.2.1",
    ]);
  } finally {
    upstream.close();
  }
});

Deno.test("cache does not prefetch an entry far from expiry", async () => {
  const { clock, stage, upstream } = await cachedOnce();
  clock.advance(200);
  for (let i = 0; i < 5; i++) {
    await stage.serve(ask("www.example.org. A", SNAPSHOT), upstream.next);
  }
  assert.equal(upstream.calls, 1);
});

Deno.test("cache does not prefetch an entry hit fewer than threshold times in the window", async () => {
  const snapshot = snapshotWithCache(
    cacheSettings({ prefetch: { threshold: 2, window: "1m" } }),
  );
  const { clock, stage, upstream } = await cachedOnce(snapshot);
  clock.advance(100);
  await stage.serve(ask("www.example.org. A", snapshot), upstream.next);
  clock.advance(175); // in the last 10 %, but the first hit left the window
  await stage.serve(ask("www.example.org. A", snapshot), upstream.next);
  assert.equal(upstream.calls, 1);
});

Deno.test("cache prefetch keeps its own copy of the query, whose buffer the listener reuses", async () => {
  const { clock, stage, upstream } = await cachedOnce();
  try {
    clock.advance(275);
    for (let i = 0; i < 2; i++) {
      const req = ask("www.example.org. A", SNAPSHOT);
      const res = stage.serve(req, upstream.next);
      assert.ok(!(res instanceof Promise));
      // As the UDP listener does: the next datagram lands in the same buffer.
      (req.bytes as Uint8Array).fill(0xee);
    }
    await stage.whenIdle();
    assert.equal(stage.stats().prefetches, 1);
    const refreshed = await stage.serve(
      ask("www.example.org. A", SNAPSHOT),
      upstream.next,
    );
    assert.equal(refreshed.status, "cached", "the refresh was stored");
    assert.equal(upstream.calls, 2);
    clock.advance(100);
    const later = await stage.serve(
      ask("www.example.org. A", SNAPSHOT),
      upstream.next,
    );
    assert.equal(later.status, "cached", "fresh for a full TTL again");
  } finally {
    upstream.close();
  }
});
