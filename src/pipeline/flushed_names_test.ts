import assert from "node:assert/strict";
import { flushedNamesOf, namesAtAndAbove } from "./flushed_names.ts";

Deno.test("flushed names of a subtree: the name and the names below it, nothing beside it", async (t) => {
  const cases: [string, string, boolean][] = [
    ["example.com", "example.com.", true],
    ["example.com", "www.example.com.", true],
    ["example.com", "a.b.example.com.", true],
    ["EXAMPLE.com.", "www.example.com.", true],
    ["example.com", "notexample.com.", false],
    ["example.com", "com.", false],
    ["example.com", "example.com.evil.", false],
    // One label "evil.example" under com., written with an escaped dot.
    ["example.com", "evil\\.example.com.", false],
    // A label that ends with a backslash, then example.com.
    ["example.com", "a\\\\.example.com.", true],
    ["a_b.example", "x.a_b.example.", true],
    ["a_b.example", "x.aab.example.", false],
  ];
  for (const [flushed, key, covered] of cases) {
    await t.step(`${flushed} ${covered ? "covers" : "leaves"} ${key}`, () => {
      const names = flushedNamesOf(flushed, { subtree: true });
      assert.ok(names);
      assert.equal(names.covers(key), covered);
    });
  }
});

Deno.test("flushed names of one name cover that name only", () => {
  const names = flushedNamesOf("Example.COM");
  assert.deepEqual(
    { name: names?.name, subtree: names?.subtree },
    { name: "example.com.", subtree: false },
  );
  assert.equal(names?.covers("example.com."), true);
  assert.equal(names?.covers("www.example.com."), false);
});

Deno.test("flushed names of the root's subtree, or of no name, are every name", () => {
  assert.equal(flushedNamesOf(".", { subtree: true }), undefined);
  assert.equal(flushedNamesOf(undefined, { subtree: true }), undefined);
  assert.equal(flushedNamesOf(undefined), undefined);
  // The root alone is one name like any other.
  assert.equal(flushedNamesOf(".")?.covers("example.com."), false);
});

Deno.test("names at and above a name: itself up to its top label, escaped dots kept", () => {
  assert.deepEqual([...namesAtAndAbove("a.b.example.com.")], [
    "a.b.example.com.",
    "b.example.com.",
    "example.com.",
    "com.",
  ]);
  assert.deepEqual([...namesAtAndAbove("evil\\.example.com.")], [
    "evil\\.example.com.",
    "com.",
  ]);
  assert.deepEqual([...namesAtAndAbove(".")], []);
});
