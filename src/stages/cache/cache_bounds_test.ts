/**
 * The cache's memory bounds: `maxBytes` besides `maxEntries`, bounds that
 * apply from the snapshot on (to shared and dumped entries too), big
 * entries kept to their worker, and askers that may not wait on a question
 * in flight.
 */
import assert from "node:assert/strict";
import { RCODE } from "../../dns/wire/constants.ts";
import type { Request } from "../../pipeline/request.ts";
import type { Response } from "../../pipeline/response.ts";
import { decodeAnswer } from "../../testing/query_bytes.ts";
import { memoryLogger } from "../../log/logger.ts";
import { createDataPlane } from "../data_plane.ts";
import { createCacheStage } from "./cache.ts";
import { MAX_SHARED_OCTETS, MAX_WAITERS } from "./cache_rules.ts";
import type { SerializedEntry } from "../../pipeline/cache_dump.ts";
import {
  ask,
  cacheSettings,
  FakeClock,
  forwarded,
  ScriptedUpstream,
  snapshotWithCache,
  WWW_A,
} from "./testdata/answers.ts";

/** `records` TXT records of about 1,000 octets each for `name`. */
function bigTxt(name: string, records: number): string[] {
  return Array.from({ length: records }, (_, i) => {
    const s = `"${i}${"a".repeat(240)}"`;
    return `${name} 300 IN TXT ${s} ${s} ${s} ${s}`;
  });
}

const bigAnswer = (records: number) => (req: Request) =>
  forwarded(req, { answer: bigTxt(req.qname, records) });

/** `count` entries of about 30 KB from a stage with default settings. */
async function bigEntries(count: number): Promise<SerializedEntry[]> {
  const stage = createCacheStage();
  const upstream = new ScriptedUpstream(bigAnswer(30));
  const snapshot = snapshotWithCache(cacheSettings());
  for (let i = 0; i < count; i++) {
    await stage.serve(ask(`n${i}.example.org. TXT`, snapshot), upstream.next);
  }
  return stage.exportEntries();
}

/** `req` as an overloaded UDP listener hands it on. */
function overloaded(req: Request): Request {
  return { ...req, client: { ...req.client, overloaded: true as const } };
}

/** A `next` that answers only when told, counting calls. */
function heldUpstream() {
  const pending: ((res: Response) => void)[] = [];
  const calls: Request[] = [];
  return {
    calls,
    next: (req: Request) => {
      calls.push(req);
      return new Promise<Response>((resolve) => pending.push(resolve));
    },
    answerAll(script: (req: Request) => Response) {
      pending.forEach((resolve, i) => resolve(script(calls[i]!)));
    },
  };
}

Deno.test("cache keeps at most maxBytes of answers, whatever maxEntries allows", async () => {
  const snapshot = snapshotWithCache(cacheSettings({ maxBytes: "1MiB" }));
  const stage = createCacheStage();
  const upstream = new ScriptedUpstream(bigAnswer(30)); // ~30 KB each
  for (let i = 0; i < 100; i++) {
    await stage.serve(ask(`n${i}.example.org. TXT`, snapshot), upstream.next);
  }
  const { entries, evictions } = stage.stats();
  assert.ok(entries <= 2 ** 20 / 30_000, `${entries} entries of ~30 KB`);
  assert.ok(evictions >= 60, `${evictions} evictions`);
  const again = await stage.serve(
    ask("n99.example.org. TXT", snapshot),
    upstream.next,
  );
  assert.equal(again.status, "cached", "the last one stored is kept");
});

Deno.test("cache does not hand entries bigger than MAX_SHARED_OCTETS to the other workers", async () => {
  const shared: string[] = [];
  const stage = createCacheStage();
  stage.onCutAnswerStored((entry) => shared.push(entry.name));
  const snapshot = snapshotWithCache(cacheSettings());
  // Both cut for their client, as the upstream stage marks a TC=1 answer.
  const upstream = new ScriptedUpstream((req) => {
    const res = bigAnswer(req.qname.startsWith("huge.") ? 20 : 2)(req);
    res.wholeWire = res.wire!;
    return res;
  });
  await stage.serve(ask("small.example.org. TXT", snapshot), upstream.next);
  await stage.serve(ask("huge.example.org. TXT", snapshot), upstream.next);
  assert.deepEqual(shared, ["small.example.org."]);
  // Nor when a hit on it is answered TC=1.
  const hit = await stage.serve(
    ask("huge.example.org. TXT", snapshot),
    upstream.next,
  );
  assert.equal(hit.status, "cached");
  assert.equal(decodeAnswer(hit.wire!).tc, true);
  assert.deepEqual(shared, ["small.example.org."]);
  const entries = stage.exportEntries();
  const huge = entries.find((e) => e.name === "huge.example.org.")!;
  assert.ok(huge.wire.length > MAX_SHARED_OCTETS);
});

Deno.test("cache applies the snapshot's bounds to shared entries before its first query", async () => {
  const entries = await bigEntries(60);
  assert.equal(entries.length, 60);
  const { handler, cache } = createDataPlane({
    logger: memoryLogger(),
    queryLog: false,
  });
  handler.setSnapshot(snapshotWithCache(cacheSettings({ maxEntries: 10 })));
  for (const entry of entries) cache.importShared([entry]);
  const held = cache.stats().entries;
  assert.ok(held <= 10, `${held} entries, maxEntries 10`);
  // maxBytes too: 1 MiB holds at most 34 entries of ~30 KB.
  handler.setSnapshot(snapshotWithCache(cacheSettings({ maxBytes: "1MiB" })));
  for (const entry of await bigEntries(60)) cache.importShared([entry]);
  const bytes = cache.stats().entries;
  assert.ok(bytes <= 2 ** 20 / 30_000, `${bytes} entries, maxBytes 1MiB`);
});

Deno.test("cache brings a dump taken before the first snapshot within the snapshot's bounds at once", async () => {
  const entries = await bigEntries(60);
  const { handler, cache } = createDataPlane({
    logger: memoryLogger(),
    queryLog: false,
  });
  assert.equal(cache.importEntries(entries), 60, "room for the whole dump");
  handler.setSnapshot(snapshotWithCache(cacheSettings({ maxEntries: 10 })));
  assert.equal(cache.stats().entries, 10, "the 10 most recently used");
  const kept = cache.exportEntries().map((e) => e.name);
  assert.deepEqual(kept, entries.slice(-10).map((e) => e.name));
});

Deno.test("cache turns away an overloaded listener's query for a question in flight rather than make it wait", async () => {
  const snapshot = snapshotWithCache(cacheSettings());
  const stage = createCacheStage();
  const upstream = heldUpstream();
  const q = "www.example.org. A";
  const leader = stage.serve(ask(q, snapshot), upstream.next);
  const res = stage.serve(overloaded(ask(q, snapshot)), upstream.next);
  assert.ok(!(res instanceof Promise), "answered at once, not waiting");
  assert.equal(res.drop, true);
  assert.equal(res.status, "overloaded");
  assert.equal(upstream.calls.length, 1);
  upstream.answerAll((req) => forwarded(req, { answer: [WWW_A] }));
  assert.equal((await leader).status, "forwarded");
  // Once cached, an overloaded query is answered from the cache.
  const hit = stage.serve(overloaded(ask(q, snapshot)), upstream.next);
  assert.equal((hit as Response).status, "cached");
});

Deno.test("cache lets at most MAX_WAITERS askers wait on one question in flight", async () => {
  const snapshot = snapshotWithCache(cacheSettings());
  const stage = createCacheStage();
  const upstream = heldUpstream();
  const q = "www.example.org. A";
  const waiting: Promise<Response>[] = [];
  for (let i = 0; i <= MAX_WAITERS; i++) {
    const res = stage.serve(ask(q, snapshot), upstream.next);
    assert.ok(res instanceof Promise, `asker ${i} waits`);
    waiting.push(res);
  }
  for (const transport of ["udp", "tcp"] as const) {
    const past = stage.serve(ask(q, snapshot, { transport }), upstream.next);
    assert.ok(!(past instanceof Promise), transport);
    assert.equal(past.status, "overloaded");
    // Over UDP nothing (the client asks again); over TCP SERVFAIL at once.
    if (transport === "udp") assert.equal(past.drop, true);
    else assert.equal(past.message?.rcode, RCODE.SERVFAIL);
  }
  assert.equal(upstream.calls.length, 1);
  upstream.answerAll((req) => forwarded(req, { answer: [WWW_A] }));
  const answers = await Promise.all(waiting);
  assert.ok(answers.every((a) => a.wire !== undefined));
  assert.equal(stage.stats().coalesced, MAX_WAITERS);
});

Deno.test("cache answers an asker past MAX_WAITERS stale when it can", async () => {
  const clock = new FakeClock();
  const snapshot = snapshotWithCache(cacheSettings({
    serveStale: { maxWait: "10s" },
  }));
  const stage = createCacheStage({ now: clock.now });
  const fill = new ScriptedUpstream((req) =>
    forwarded(req, { answer: [WWW_A] })
  );
  const q = "www.example.org. A";
  await stage.serve(ask(q, snapshot), fill.next);
  clock.advance(301);
  const upstream = heldUpstream();
  const waiting: Promise<Response>[] = [];
  for (let i = 0; i <= MAX_WAITERS; i++) {
    waiting.push(stage.serve(ask(q, snapshot), upstream.next) as never);
  }
  const past = stage.serve(ask(q, snapshot), upstream.next);
  assert.ok(!(past instanceof Promise));
  assert.equal(past.status, "cached_stale");
  upstream.answerAll((req) => forwarded(req, { answer: [WWW_A] }));
  await Promise.all(waiting);
});
