import assert from "node:assert/strict";
import { AnswerCache } from "./answer_cache.ts";
import type { CacheEntry } from "./cache_entry.ts";

function entry(name: string, type = 1): CacheEntry {
  return {
    key: `${name} ${type} 1 --`,
    name,
    wire: new Uint8Array(12),
    offsets: new Uint16Array(),
    ttls: new Uint32Array(),
    storedAt: 0,
    expiresAt: 300_000,
    ttl: 300,
    negative: false,
    hits: 0,
    windowStart: 0,
    prefetching: false,
  };
}

Deno.test("answer cache keeps at most its limit", () => {
  const cache = new AnswerCache(4);
  for (const name of ["a.", "b.", "c.", "d.", "e.", "f.", "g."]) {
    cache.set(entry(name));
  }
  assert.ok(cache.size <= 4);
  assert.ok(cache.evictions >= 3);
  assert.ok(cache.get(entry("g.").key));
});

Deno.test("answer cache keeps an entry that is read while others come and go", () => {
  const cache = new AnswerCache(4);
  cache.set(entry("hot."));
  for (const name of ["a.", "b.", "c.", "d.", "e.", "f.", "g.", "h."]) {
    cache.set(entry(name));
    assert.ok(cache.get(entry("hot.").key), name);
  }
  assert.equal(cache.get(entry("a.").key), undefined);
});

Deno.test("answer cache flushes every type of one name", () => {
  const cache = new AnswerCache(100);
  cache.set(entry("www.example."));
  cache.set(entry("www.example.", 28));
  cache.set(entry("mail.example."));
  assert.equal(cache.flush("WWW.example"), 2);
  assert.equal(cache.size, 1);
});
