import assert from "node:assert/strict";
import { cacheStatsDelta, emptyCacheStats } from "./cache_stats.ts";

Deno.test("cacheStatsDelta gives the counts' growth and the current size", () => {
  const before = { ...emptyCacheStats(), hits: 10, misses: 4, entries: 7 };
  const now = {
    ...emptyCacheStats(),
    hits: 15,
    misses: 4,
    evictions: 2,
    entries: 5,
  };
  assert.deepEqual(cacheStatsDelta(now, before), {
    ...emptyCacheStats(),
    hits: 5,
    evictions: 2,
    entries: 5,
  });
});

Deno.test("cacheStatsDelta counts from zero when the counts went down (a new cache)", () => {
  const before = { ...emptyCacheStats(), hits: 100, inserts: 50, entries: 50 };
  const now = { ...emptyCacheStats(), hits: 3, inserts: 1, entries: 1 };
  assert.deepEqual(cacheStatsDelta(now, before), now);
});
