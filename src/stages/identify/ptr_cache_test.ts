import assert from "node:assert/strict";
import { BUSY_RETRY_MS, PtrCache, type PtrCacheOptions } from "./ptr_cache.ts";

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function cacheWith(opts: Partial<PtrCacheOptions> = {}) {
  const clock = { now: 1_000_000 };
  const answers = new Map<string, (name: string | null) => void>();
  const results: string[] = [];
  const calls: string[] = [];
  const cache = new PtrCache({
    resolvePtr: (address) => {
      calls.push(address);
      return new Promise((resolve) => answers.set(address, resolve));
    },
    now: () => clock.now,
    onResult: (address) => results.push(address),
    ...opts,
  });
  return { cache, clock, answers, results, calls };
}

Deno.test("PtrCache: lookups in flight say so, results are reported", async () => {
  const { cache, answers, results } = cacheWith();
  assert.deepEqual(cache.lookup("192.0.2.1"), { name: null, until: Infinity });
  assert.equal(cache.inFlight, 1);
  answers.get("192.0.2.1")!(" Host.Example. ");
  await settle();
  assert.deepEqual(results, ["192.0.2.1"]);
  assert.equal(cache.inFlight, 0);
  assert.deepEqual(cache.lookup("192.0.2.1"), {
    name: "host.example",
    until: 1_000_000 + 3_600_000,
  });
});

Deno.test("PtrCache: at most maxInFlight lookups; the rest retry soon", () => {
  const { cache, calls, clock } = cacheWith({ maxInFlight: 2 });
  cache.lookup("192.0.2.1");
  cache.lookup("192.0.2.2");
  assert.deepEqual(cache.lookup("192.0.2.3"), {
    name: null,
    until: clock.now + BUSY_RETRY_MS,
  });
  assert.deepEqual(calls, ["192.0.2.1", "192.0.2.2"]);
});

Deno.test("PtrCache: bounded, the oldest name goes first", async () => {
  const { cache, answers, calls } = cacheWith({ maxEntries: 2 });
  for (const address of ["192.0.2.1", "192.0.2.2", "192.0.2.3"]) {
    cache.lookup(address);
    answers.get(address)!(`h${address.at(-1)}`);
    await settle();
  }
  assert.equal(cache.lookup("192.0.2.3").name, "h3");
  assert.equal(cache.lookup("192.0.2.2").name, "h2");
  assert.equal(calls.length, 3);
  assert.equal(cache.lookup("192.0.2.1").name, null);
  assert.equal(calls.length, 4, "the evicted address is looked up again");
  answers.get("192.0.2.1")!(null);
  await settle();
});

Deno.test("PtrCache: a resolver that throws counts as a failed lookup", async () => {
  const results: string[] = [];
  const cache = new PtrCache({
    resolvePtr: () => {
      throw new Error("no resolver");
    },
    now: () => 0,
    onResult: (address) => results.push(address),
  });
  cache.lookup("192.0.2.1");
  await settle();
  assert.deepEqual(results, ["192.0.2.1"]);
  assert.deepEqual(cache.lookup("192.0.2.1"), { name: null, until: 300_000 });
});
