import assert from "node:assert/strict";
import { RCODE } from "../../dns/wire/constants.ts";
import type { Request } from "../../pipeline/request.ts";
import { decodeAnswer } from "../../testing/query_bytes.ts";
import { createCacheStage } from "./cache.ts";
import type { SerializedEntry } from "../../pipeline/cache_dump.ts";
import {
  ask,
  cacheSettings,
  FakeClock,
  forwarded,
  ScriptedUpstream,
  snapshotWithCache,
} from "./testdata/answers.ts";

const SNAPSHOT = snapshotWithCache(cacheSettings({
  serveStale: { ttl: "1h", answerTTL: "30s", maxWait: "20ms" },
}));

/** About 700 octets: whole for an EDNS client (1232), TC=1 without EDNS (512). */
const TXT = Array.from(
  { length: 4 },
  (_, i) => `big.example.org. 300 IN TXT "w${i}${"v".repeat(150)}"`,
);
const Q = "big.example.org. TXT";
const EDNS = { edns: { udpSize: 1232 } };

const good = (req: Request) => forwarded(req, { answer: TXT });
const failing = (req: Request) =>
  forwarded(req, { rcode: RCODE.SERVFAIL }, "servfail_upstream");

/** A stage holding the TXT answer, stored whole for an EDNS client, and what it shares. */
async function cachedWhole(clock = new FakeClock()) {
  const stage = createCacheStage({ now: clock.now });
  const shared: SerializedEntry[] = [];
  stage.onCutAnswerStored((entry) => shared.push(entry));
  const upstream = new ScriptedUpstream(good);
  const first = await stage.serve(ask(Q, SNAPSHOT, EDNS), upstream.next);
  assert.equal(decodeAnswer(first.wire!).tc, false);
  assert.equal(shared.length, 0, "a whole answer stays with its worker");
  return { clock, stage, shared, upstream };
}

Deno.test("cache hands an entry on once when a hit is answered TC=1", async () => {
  const { stage, shared, upstream } = await cachedWhole();
  const hit = await stage.serve(ask(Q, SNAPSHOT), upstream.next);
  assert.equal(hit.status, "cached");
  assert.equal(decodeAnswer(hit.wire!).tc, true);
  assert.deepEqual(shared.map((e) => e.name), ["big.example.org."]);
  assert.equal(shared[0]!.refreshFailedAt, undefined);
  await stage.serve(ask(Q, SNAPSHOT), upstream.next);
  await stage.serve(ask(Q, SNAPSHOT), upstream.next);
  assert.equal(shared.length, 1, "not again for every truncated hit");
});

Deno.test("cache hands on the entry of a TC=1 hit; the TCP retry hits it in the other worker's cache", async () => {
  const { clock, stage, shared, upstream } = await cachedWhole();
  await stage.serve(ask(Q, SNAPSHOT), upstream.next);
  const other = createCacheStage({ now: clock.now });
  assert.equal(other.importShared(shared), 1);
  const down = new ScriptedUpstream(failing);
  const retry = await other.serve(
    ask(Q, SNAPSHOT, { transport: "tcp" }),
    down.next,
  );
  assert.equal(retry.status, "cached");
  assert.equal(decodeAnswer(retry.wire!).answer.length, 4);
  assert.equal(down.calls, 0, "the retry asked no upstream");
});

Deno.test("cache hands on an entry answered stale with TC=1 with its failed refresh; the other worker answers the retry stale at once", async () => {
  const { clock, stage, shared, upstream } = await cachedWhole();
  clock.advance(360);
  upstream.script = failing;
  const viaEdns = await stage.serve(ask(Q, SNAPSHOT, EDNS), upstream.next);
  assert.equal(viaEdns.status, "cached_stale");
  assert.equal(decodeAnswer(viaEdns.wire!).tc, false);
  assert.equal(shared.length, 0, "answered whole: not handed on");
  const failedAt = clock.ms;
  const cut = await stage.serve(ask(Q, SNAPSHOT), upstream.next);
  assert.equal(cut.status, "cached_stale");
  assert.equal(decodeAnswer(cut.wire!).tc, true);
  assert.equal(shared.length, 1);
  assert.equal(shared[0]!.refreshFailedAt, failedAt);
  await stage.serve(ask(Q, SNAPSHOT), upstream.next);
  assert.equal(shared.length, 1, "not again for every truncated hit");

  const other = createCacheStage({ now: clock.now });
  assert.equal(other.importShared(shared), 1);
  const down = new ScriptedUpstream(failing);
  const tcp = () =>
    other.serve(ask(Q, SNAPSHOT, { transport: "tcp" }), down.next);
  const retry = await tcp();
  assert.equal(retry.status, "cached_stale");
  const answer = decodeAnswer(retry.wire!).answer;
  assert.equal(answer.length, 4);
  assert.ok(answer.every((rr) => rr.includes(" 30 IN TXT ")), answer[0]);
  assert.equal(down.calls, 0, "within the recheck time: no upstream query");

  // The recheck time is over: the first worker asks again, fails again,
  // and hands the new failure on with its next TC=1 answer.
  clock.advance(31);
  const calls = upstream.calls;
  await stage.serve(ask(Q, SNAPSHOT), upstream.next);
  assert.equal(upstream.calls, calls + 1);
  assert.equal(shared.length, 2);
  assert.equal(shared[1]!.refreshFailedAt, clock.ms);
  assert.equal(other.importShared(shared.slice(1)), 0, "the same entry");
  assert.equal((await tcp()).status, "cached_stale");
  assert.equal(down.calls, 0, "the failure came along: no upstream query");
});

Deno.test("cache hands on the entry when a coalesced asker gets it TC=1", async () => {
  const clock = new FakeClock();
  const stage = createCacheStage({ now: clock.now });
  const shared: SerializedEntry[] = [];
  stage.onCutAnswerStored((entry) => shared.push(entry));
  const upstream = new ScriptedUpstream(good, 10);
  const [leader, waiter] = await Promise.all([
    stage.serve(ask(Q, SNAPSHOT, EDNS), upstream.next),
    stage.serve(ask(Q, SNAPSHOT), upstream.next),
  ]);
  assert.equal(upstream.calls, 1);
  assert.equal(decodeAnswer(leader.wire!).tc, false);
  assert.equal(decodeAnswer(waiter.wire!).tc, true);
  assert.deepEqual(shared.map((e) => e.name), ["big.example.org."]);
});
