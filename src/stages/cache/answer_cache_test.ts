import assert from "node:assert/strict";
import { AnswerCache, MAX_ENTRIES_PER_NAME } from "./answer_cache.ts";
import type { CacheEntry } from "./cache_entry.ts";
import { parseCacheKey } from "./cache_key.ts";

function entry(name: string, type = 1, scope = ""): CacheEntry {
  const key = `${name} ${type} 1 --${scope === "" ? "" : " " + scope}`;
  return {
    key,
    name,
    ...parseCacheKey(key, name)!,
    wire: new Uint8Array(12),
    offsets: new Uint16Array(),
    ttls: new Uint32Array(),
    additional: { start: 12, ttlsBefore: 0 },
    storedAt: 0,
    expiresAt: 300_000,
    ttl: 300,
    negative: false,
    hits: 0,
    windowStart: 0,
    prefetching: false,
    shared: false,
  };
}

/** What the cache holds for the name, variant and scope of `e`. */
function find(cache: AnswerCache, e: CacheEntry): CacheEntry | undefined {
  return cache.get(e.name, e.variant, e.scope);
}

Deno.test("answer cache keeps at most its limit", () => {
  const cache = new AnswerCache(4);
  for (const name of ["a.", "b.", "c.", "d.", "e.", "f.", "g."]) {
    cache.set(entry(name));
  }
  assert.ok(cache.size <= 4);
  assert.ok(cache.evictions >= 3);
  assert.ok(find(cache, entry("g.")));
});

Deno.test("answer cache keeps an entry that is read while others come and go", () => {
  const cache = new AnswerCache(4);
  cache.set(entry("hot."));
  for (const name of ["a.", "b.", "c.", "d.", "e.", "f.", "g.", "h."]) {
    cache.set(entry(name));
    assert.ok(find(cache, entry("hot.")), name);
  }
  assert.equal(find(cache, entry("a.")), undefined);
});

Deno.test("answer cache flushes every type of one name", () => {
  const cache = new AnswerCache(100);
  cache.set(entry("www.example."));
  cache.set(entry("www.example.", 28));
  cache.set(entry("mail.example."));
  assert.equal(cache.flush("WWW.example"), 2);
  assert.equal(cache.size, 1);
});

Deno.test("answer cache tells a name's entries apart by type and ECS scope", () => {
  const cache = new AnswerCache(100);
  const kept = [
    entry("www.example."),
    entry("www.example.", 28),
    entry("www.example.", 1, "192.0.2.0/24"),
    entry("www.example.", 1, "198.51.100.0/24"),
  ];
  for (const e of kept) cache.set(e);
  for (const e of kept) assert.equal(find(cache, e), e, e.key);
  assert.equal(find(cache, entry("www.example.", 16)), undefined);
  // Storing the same question again replaces the entry.
  const again = entry("www.example.", 28);
  cache.set(again);
  assert.equal(find(cache, again), again);
  assert.equal(cache.size, 4);
  cache.delete(again);
  assert.equal(find(cache, again), undefined);
  assert.equal(cache.size, 3);
});

Deno.test("answer cache keeps at most MAX_ENTRIES_PER_NAME entries for one name", () => {
  const cache = new AnswerCache(10_000);
  const types = Array.from(
    { length: MAX_ENTRIES_PER_NAME + 2 },
    (_, i) => i + 1,
  );
  for (const type of types) cache.set(entry("www.example.", type));
  assert.equal(cache.size, MAX_ENTRIES_PER_NAME);
  assert.equal(cache.evictions, 2);
  assert.equal(find(cache, entry("www.example.", 1)), undefined);
  assert.ok(find(cache, entry("www.example.", types.at(-1))));
});

Deno.test("answer cache lists every entry, least recently used names first", () => {
  const cache = new AnswerCache(4); // generations of 2
  for (const name of ["a.", "b.", "c."]) cache.set(entry(name));
  find(cache, entry("a.")); // a and b were older: a is recent again
  assert.deepEqual([...cache.entries()].map((e) => e.name), ["b.", "c.", "a."]);
});
