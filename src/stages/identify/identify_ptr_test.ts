import assert from "node:assert/strict";
import { createIdentifyStage, type IdentifyOptions } from "./identify.ts";
import { ask, blockingWith, GROUPS } from "./test_fixtures.ts";

/** A resolvePtr whose answers the test hands out one by one. */
function scriptedPtr() {
  const calls: string[] = [];
  const pending: ((name: string | null) => void)[] = [];
  const fail: ((error: Error) => void)[] = [];
  const resolvePtr: NonNullable<IdentifyOptions["resolvePtr"]> = (address) => {
    calls.push(address);
    return new Promise((resolve, reject) => {
      pending.push(resolve);
      fail.push(reject);
    });
  };
  return { calls, pending, fail, resolvePtr };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("identify: PTR names are looked up in the background and cached", async () => {
  let clock = Date.parse("2025-01-06T12:00:00Z");
  const ptr = scriptedPtr();
  const stage = createIdentifyStage({
    now: () => clock,
    resolvePtr: ptr.resolvePtr,
  });
  const blocking = blockingWith();

  // The first query does not wait for the name.
  assert.deepEqual(ask(stage, blocking, "203.0.113.7").groups, [
    "kudurru/default",
  ]);
  assert.deepEqual(ptr.calls, ["203.0.113.7"]);
  // One lookup in flight per address.
  ask(stage, blocking, "203.0.113.7");
  ask(stage, blocking, "203.0.113.7", "phone");
  assert.equal(ptr.calls.length, 1);

  ptr.pending[0]!("LAPTOP-anna.lan.");
  await settle();
  const later = ask(stage, blocking, "203.0.113.7");
  assert.deepEqual(later.groups, ["home/laptops"]);
  assert.equal(later.policy?.upstreamGroup, "work");
  assert.deepEqual(ask(stage, blocking, "203.0.113.7", "phone").groups, [
    "home/phone",
    "home/laptops",
  ]);
  assert.equal(ptr.calls.length, 1, "the name is cached");

  // After an hour it is refreshed, and used meanwhile.
  clock += 3_600_000;
  assert.deepEqual(ask(stage, blocking, "203.0.113.7").groups, [
    "home/laptops",
  ]);
  assert.equal(ptr.calls.length, 2);
  ptr.pending[1]!("desk.lan");
  await settle();
  assert.deepEqual(ask(stage, blocking, "203.0.113.7").groups, [
    "kudurru/default",
  ]);
});

Deno.test("identify: failed and empty PTR lookups are cached for 5 minutes", async () => {
  let clock = Date.parse("2025-01-06T12:00:00Z");
  const ptr = scriptedPtr();
  const stage = createIdentifyStage({
    now: () => clock,
    resolvePtr: ptr.resolvePtr,
  });
  const blocking = blockingWith();
  ask(stage, blocking, "127.0.0.1"); // loopback is looked up like anyone
  ask(stage, blocking, "::1");
  assert.deepEqual(ptr.calls, ["127.0.0.1", "::1"]);
  ptr.pending[0]!(null);
  ptr.fail[1]!(new Error("SERVFAIL"));
  await settle();
  clock += 299_999;
  assert.deepEqual(ask(stage, blocking, "127.0.0.1").groups, [
    "kudurru/default",
  ]);
  assert.deepEqual(ask(stage, blocking, "::1").groups, ["kudurru/default"]);
  assert.equal(ptr.calls.length, 2);
  clock += 1;
  ask(stage, blocking, "127.0.0.1");
  ask(stage, blocking, "::1");
  assert.deepEqual(ptr.calls.slice(2), ["127.0.0.1", "::1"]);
  ptr.pending[2]!("laptop-1.lan");
  ptr.pending[3]!(null);
  await settle();
  assert.deepEqual(ask(stage, blocking, "127.0.0.1").groups, ["home/laptops"]);
});

Deno.test("identify: no PTR lookups when no group has hostname entries", () => {
  const ptr = scriptedPtr();
  const stage = createIdentifyStage({ resolvePtr: ptr.resolvePtr });
  const blocking = blockingWith(GROUPS.slice(0, 3));
  ask(stage, blocking, "203.0.113.7");
  ask(stage, blocking, "192.168.1.9");
  assert.deepEqual(ptr.calls, []);
});
