import assert from "node:assert/strict";
import { AnswerCache, MAX_ENTRIES_PER_NAME } from "./answer_cache.ts";
import { ENTRY_OVERHEAD_BYTES, entryBytes } from "../../pipeline/cache_dump.ts";
import type { CacheEntry } from "./cache_entry.ts";
import { parseCacheKey } from "../../pipeline/cache_key.ts";

function entry(
  name: string,
  type = 1,
  scope = "",
  octets = 12,
): CacheEntry {
  const key = `${name} ${type} 1 --${scope === "" ? "" : " " + scope}`;
  return {
    key,
    name,
    ...parseCacheKey(key, name)!,
    wire: new Uint8Array(octets),
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

Deno.test("answer cache flushes a name and every name below it with subtree", () => {
  const cache = new AnswerCache(100);
  const kept = [
    "notexample.com.",
    "com.",
    "example.org.",
    "evil\\.example.com.",
  ];
  const flushed = ["example.com.", "www.example.com.", "a.b.example.com."];
  for (const name of [...flushed, ...kept]) cache.set(entry(name));
  cache.set(entry("www.example.com.", 28));
  // Half in the older generation: both are walked.
  cache.setLimits(8, Infinity);
  cache.set(entry("x.example.com."));
  assert.equal(cache.flush("Example.COM", { subtree: true }), 5);
  for (const name of kept) assert.ok(find(cache, entry(name)), name);
  for (const name of [...flushed, "x.example.com."]) {
    assert.equal(find(cache, entry(name)), undefined, name);
  }
  assert.equal(cache.size, kept.length);
  assert.equal(
    cache.bytes,
    kept.reduce((sum, name) => sum + entryBytes(entry(name)), 0),
  );
  assert.equal(cache.flush(".", { subtree: true }), kept.length, "the root");
  assert.equal(cache.size, 0);
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

/** The bytes of every entry held, added up from scratch. */
function heldBytes(cache: AnswerCache): number {
  let bytes = 0;
  for (const e of cache.entries()) bytes += entryBytes(e);
  return bytes;
}

Deno.test("answer cache keeps at most maxBytes, however few entries that is", () => {
  const octets = 60_000; // a 60 KB answer
  const cost = entryBytes(entry("n0.example.", 1, "", octets));
  assert.ok(cost > octets + ENTRY_OVERHEAD_BYTES);
  const maxBytes = 20 * cost;
  const cache = new AnswerCache(200_000, maxBytes);
  for (let i = 0; i < 100; i++) {
    cache.set(entry(`n${i}.example.`, 1, "", octets));
    assert.ok(cache.bytes <= maxBytes, `${cache.bytes} bytes after ${i + 1}`);
  }
  assert.ok(cache.size <= 20 && cache.size >= 10, `${cache.size} entries`);
  assert.equal(cache.bytes, heldBytes(cache));
  assert.ok(cache.evictions >= 80);
  assert.ok(find(cache, entry("n99.example.")), "the last one stored is kept");
});

Deno.test("answer cache counts bytes through replacements, moves, deletes and flushes", () => {
  const cache = new AnswerCache(8, 1e9); // generations of 4 entries
  const check = (what: string) =>
    assert.equal(cache.bytes, heldBytes(cache), what);
  for (let i = 0; i < 6; i++) cache.set(entry(`n${i}.`, 1, "", 100 * i + 12));
  check("stored");
  cache.set(entry("n1.", 1, "", 5_000));
  check("replaced (older generation)");
  cache.set(entry("n5.", 1, "", 7));
  check("replaced (recent generation)");
  find(cache, entry("n2."));
  check("moved to the recent generation by a hit");
  const types = Array.from({ length: MAX_ENTRIES_PER_NAME + 1 }, (_, i) => i);
  for (const type of types) cache.set(entry("many.", type + 1, "", type));
  check("a name's oldest dropped");
  cache.delete([...cache.entries()][0]!);
  check("deleted (older generation)");
  cache.delete([...cache.entries()].at(-1)!);
  check("deleted (recent generation)");
  cache.flush("n2.");
  check("one name flushed");
  cache.flush();
  assert.equal(cache.bytes, 0);
});

Deno.test("answer cache drops the least recently used at once when its bounds are lowered", () => {
  const cache = new AnswerCache(40, 1e9); // generations of 20
  for (let i = 10; i < 60; i++) cache.set(entry(`n${i}.`));
  find(cache, [...cache.entries()][0]!); // the older generation's first
  const before = [...cache.entries()].map((e) => e.name);
  cache.setLimits(10, 1e9);
  assert.equal(cache.size, 10);
  assert.deepEqual(
    [...cache.entries()].map((e) => e.name),
    before.slice(-10),
    "the ten most recently used",
  );
  assert.ok(find(cache, entry("n59.")), "the one stored last is kept");
  const cost = entryBytes(entry("n00.")); // every name here is as long
  cache.setLimits(10, 3 * cost);
  assert.equal(cache.size, 3);
  assert.equal(cache.bytes, heldBytes(cache));
  cache.setLimits(0, 3 * cost);
  assert.equal(cache.size, 0, "maxEntries 0: nothing kept");
});
