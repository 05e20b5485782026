import assert from "node:assert/strict";
import { RCODE } from "../../dns/wire/constants.ts";
import type { Request } from "../../pipeline/request.ts";
import { createCacheStage } from "./cache.ts";
import {
  ask,
  cacheSettings,
  FakeClock,
  forwarded,
  ScriptedUpstream,
  snapshotWithCache,
} from "./testdata/answers.ts";

const SNAPSHOT = snapshotWithCache(cacheSettings({
  serveStale: { enabled: false },
}));
const answer = (req: Request) =>
  forwarded(req, { answer: [`${req.qname} 300 IN A 192.0.2.1`] });
const failing = (req: Request) =>
  forwarded(req, { rcode: RCODE.SERVFAIL }, "servfail_upstream");

/** Below example.com., and beside or above it. */
const BELOW = ["example.com.", "www.example.com.", "a.b.example.com."];
const BESIDE = ["notexample.com.", "com.", "example.org."];

function setup(script = answer) {
  const clock = new FakeClock();
  const stage = createCacheStage({ now: clock.now });
  const upstream = new ScriptedUpstream(script);
  const serve = async (name: string) =>
    (await stage.serve(ask(`${name} A`, SNAPSHOT), upstream.next)).status;
  return { clock, stage, upstream, serve };
}

Deno.test("cache flush with subtree drops a name and every name below it, nothing beside it", async () => {
  const { stage, serve } = setup();
  for (const name of [...BELOW, ...BESIDE]) await serve(name);
  assert.equal(stage.flush("Example.COM", { subtree: true }), BELOW.length);
  for (const name of BESIDE) assert.equal(await serve(name), "cached", name);
  for (const name of BELOW) assert.equal(await serve(name), "forwarded", name);
  assert.equal(stage.flush(".", { subtree: true }), 6, "the root: all");
});

Deno.test("cache flush with subtree forgets the failures below the name, not the others (RFC 9520)", async () => {
  const { stage, upstream, serve } = setup(failing);
  assert.equal(await serve("www.example.com."), "servfail_upstream");
  assert.equal(await serve("www.notexample.com."), "servfail_upstream");
  assert.equal(upstream.calls, 2);
  stage.flush("example.com", { subtree: true });
  await serve("www.example.com.");
  assert.equal(upstream.calls, 3, "asked again");
  await serve("www.notexample.com.");
  assert.equal(upstream.calls, 3, "still answered with its failure");
  stage.flush();
  await serve("www.notexample.com.");
  assert.equal(upstream.calls, 4, "a whole flush forgets every failure");
});

Deno.test("cache does not take a shared entry stored before a subtree flush above its name", async () => {
  const { clock, stage: target, upstream } = setup();
  const source = createCacheStage({ now: clock.now });
  for (const name of [...BELOW, ...BESIDE]) {
    await source.serve(ask(`${name} A`, SNAPSHOT), upstream.next);
  }
  const shared = source.exportEntries();
  clock.advance(1);
  target.flush("example.com.", { subtree: true });
  assert.equal(target.importShared(shared), BESIDE.length);
  assert.equal(target.stats().entries, BESIDE.length);
});
