import assert from "node:assert/strict";
import fc from "fast-check";
import {
  canonicalNameKey,
  compareNameKeys,
  compareNames,
} from "./canonical_order.ts";

const byKeys = (a: string, b: string) =>
  compareNameKeys(canonicalNameKey(a), canonicalNameKey(b));

Deno.test("compareNames sorts as RFC 4034 §6.1 shows", () => {
  // The example list of RFC 4034 §6.1, shuffled.
  const sorted = [
    "example.",
    "a.example.",
    "yljkjljk.a.example.",
    "Z.a.example.",
    "zABC.a.EXAMPLE.",
    "z.example.",
    "\\001.z.example.",
    "*.z.example.",
    "\\200.z.example.",
  ];
  const shuffled = [...sorted].reverse();
  shuffled.push(shuffled.shift()!);
  assert.deepEqual(shuffled.sort(compareNames), sorted);
});

Deno.test("compareNames without escapes agrees with the label keys", () => {
  const label = fc.stringMatching(/^[a-zA-Z0-9_*-]{0,4}$/);
  const name = fc.tuple(fc.array(label, { maxLength: 4 }), fc.boolean())
    .map(([labels, dot]) => labels.join(".") + (dot ? "." : ""));
  fc.assert(
    fc.property(name, name, (a, b) => {
      assert.equal(Math.sign(compareNames(a, b)), Math.sign(byKeys(a, b)));
    }),
    { numRuns: 5000 },
  );
  for (
    const [a, b] of [
      [".", "a."],
      ["", "."],
      ["a", "a."],
      ["a..b", "a.b"],
      // A leading empty label ended in an endless loop once.
      [".a", ".a"],
      [".a", "a"],
      ["..", "."],
    ]
  ) {
    assert.equal(Math.sign(compareNames(a!, b!)), Math.sign(byKeys(a!, b!)));
  }
});
