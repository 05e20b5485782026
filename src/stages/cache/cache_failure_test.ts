import assert from "node:assert/strict";
import { RCODE } from "../../dns/wire/constants.ts";
import type { Request } from "../../pipeline/request.ts";
import { decodeAnswer } from "../../testing/query_bytes.ts";
import { createCacheStage } from "./cache.ts";
import { FailureCache, MAX_FAILURES } from "./failure_cache.ts";
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
  serveStale: { enabled: false },
}));
const good = (req: Request) => forwarded(req, { answer: [WWW_A] });
const failing = (req: Request) =>
  forwarded(req, { rcode: RCODE.SERVFAIL }, "timeout_upstream");

function setup() {
  const clock = new FakeClock();
  const stage = createCacheStage({ now: clock.now });
  const upstream = new ScriptedUpstream(failing);
  const query = (id: number) =>
    stage.serve(
      ask("wWw.example.org. A", SNAPSHOT, { id }),
      upstream.next,
    );
  return { clock, stage, upstream, query };
}

Deno.test("cache answers a failure again for 1 s without asking upstream (RFC 9520)", async () => {
  const { clock, stage, upstream, query } = setup();
  assert.equal((await query(1)).status, "timeout_upstream");
  assert.equal(upstream.calls, 1);
  clock.advance(0.5);
  const again = await query(2);
  assert.equal(upstream.calls, 1);
  assert.equal(again.stage, "cache");
  assert.equal(again.status, "timeout_upstream");
  const message = decodeAnswer(again.wire!);
  // Made out for this query: its ID and its case.
  assert.equal(message.id, 2);
  assert.equal(message.rcode, "SERVFAIL");
  assert.deepEqual(message.question, ["wWw.example.org. A IN"]);
  assert.equal(stage.stats().failureHits, 1);
  // After a second it is asked again.
  clock.advance(0.6);
  await query(3);
  assert.equal(upstream.calls, 2);
});

Deno.test("cache does not remember a group's overload as the question's failure", async () => {
  const { upstream, query } = setup();
  upstream.script = (req) =>
    forwarded(req, { rcode: RCODE.SERVFAIL }, "overloaded_upstream");
  assert.equal((await query(1)).status, "overloaded_upstream");
  assert.equal((await query(2)).status, "overloaded_upstream");
  assert.equal(upstream.calls, 2, "asked again at once");
});

Deno.test("cache remembers a question that keeps failing longer, up to 30 s, and forgets it once answered", async () => {
  const { clock, upstream, query } = setup();
  await query(1); // 1 s
  clock.advance(1);
  await query(2); // failed again at once: 2 s
  clock.advance(1.5);
  await query(3);
  assert.equal(upstream.calls, 2);
  clock.advance(0.5);
  await query(4); // 4 s
  for (let i = 0; i < 10; i++) {
    clock.advance(30);
    await query(5 + i);
  }
  const calls = upstream.calls;
  clock.advance(29.9);
  await query(20);
  assert.equal(upstream.calls, calls, "still within the 30 s cap");
  clock.advance(0.1);
  // An answer with a short TTL (kept minTTL, 5 s) ends the failures.
  upstream.script = (req) =>
    forwarded(req, { answer: ["www.example.org. 1 IN A 192.0.2.1"] });
  assert.equal((await query(21)).status, "forwarded");
  // Failing again soon after starts at 1 s, not where it left off (30 s).
  clock.advance(6);
  upstream.script = failing;
  await query(22);
  clock.advance(1);
  await query(23);
  assert.equal(upstream.calls, calls + 3);
});

Deno.test("cache answers stale, not the remembered failure, when it has a stale entry", async () => {
  const clock = new FakeClock();
  const stage = createCacheStage({ now: clock.now });
  const snapshot = snapshotWithCache(cacheSettings({
    serveStale: { ttl: "1h", answerTTL: "30s", maxWait: "20ms" },
  }));
  const upstream = new ScriptedUpstream(good);
  await stage.serve(ask("www.example.org. A", snapshot), upstream.next);
  clock.advance(301);
  upstream.script = failing;
  const first = await stage.serve(
    ask("www.example.org. A", snapshot),
    upstream.next,
  );
  assert.equal(first.status, "cached_stale");
  const second = await stage.serve(
    ask("www.example.org. A", snapshot),
    upstream.next,
  );
  assert.equal(second.status, "cached_stale");
  assert.equal(stage.stats().failureHits, 0);
});

Deno.test("cache flush forgets remembered failures", async () => {
  const { stage, upstream, query } = setup();
  await query(1);
  stage.flush("www.example.org.");
  await query(2);
  assert.equal(upstream.calls, 2);
});

Deno.test("failure cache keeps at most MAX_FAILURES questions", () => {
  const failures = new FailureCache();
  const outcome = { res: { status: "servfail_upstream" }, entry: undefined };
  for (let i = 0; i <= MAX_FAILURES; i++) {
    failures.failed(`q${i}`, outcome as never, 0);
  }
  assert.equal(failures.size, MAX_FAILURES);
  assert.equal(failures.get("q0", 1), undefined);
  assert.ok(failures.get(`q${MAX_FAILURES}`, 1));
});

Deno.test("a remembered failure is no trip upstream: it names no upstream", async () => {
  const { upstream, query } = setup();
  upstream.script = (req) => ({ ...failing(req), upstream: "default/a" });
  const first = await query(1);
  const again = await query(2);
  assert.equal(first.upstream, "default/a");
  assert.equal(again.stage, "cache");
  assert.equal(again.upstream, undefined);
});

Deno.test("an overloaded listener's drop does not end a question's failures", async () => {
  const { clock, upstream, query } = setup();
  await query(1); // 1 s
  clock.advance(1);
  await query(2); // failed again: 2 s
  clock.advance(2);
  // The upstream stage drops an overloaded query without asking.
  upstream.script = () => ({
    drop: true,
    status: "overloaded",
    stage: "upstream",
  });
  await query(3);
  upstream.script = failing;
  await query(4); // failed again: 4 s, not 1 s
  clock.advance(1.5);
  const calls = upstream.calls;
  await query(5);
  assert.equal(upstream.calls, calls);
});
