/**
 * foldCase: on lowercase names, the folded expression without flags matches
 * exactly when the written one with the `i` flag does, and it stays
 * runnable by the linear-time engine.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { collect } from "./test_support.ts";
import { foldCase } from "./regex_case.ts";

const CASES: Array<[written: string, folded: string]> = [
  ["^ads[0-9]*\\.", "^ads[0-9]*\\."],
  ["^AD[0-9]", "^ad[0-9]"],
  ["[A-F0-9]{4}", "[a-fA-F0-9]{4}"],
  ["[^A-Z]", "[^a-zA-Z]"],
  ["[-A]", "[a-a-A]"],
  ["[Z-a]", "[z-zZ-a]"],
  ["[\\x41-\\x43]", "[a-c\\x41-\\x43]"],
  ["\\x41\\u0042\\103", "abc"],
  ["\\D\\W\\S\\B\\bX", "\\D\\W\\S\\B\\bx"],
  ["(?<Name>X)\\k<Name>", "(?<Name>x)\\k<Name>"],
  ["(?-i:AB)C", "(?-i:AB)c"],
  ["(A)\\1", "(a)\\1"],
];

for (const [written, folded] of CASES) {
  Deno.test(`foldCase: ${written} -> ${folded}`, () => {
    assert.equal(foldCase(written), folded);
  });
}

/** Pieces of expressions, uppercase and escapes included. */
const PIECE = fc.constantFrom(
  ..."aAbBcCkKpPuUxXzZ0179.-_^$|*+?{},".split(""),
  "[",
  "[^",
  "]",
  "-",
  "(",
  "(?:",
  "(?-i:",
  "(?i:",
  "(?=",
  "(?<!",
  "(?<N>",
  ")",
  "{1,2}",
  "\\x41",
  "\\x61",
  "\\u005A",
  "\\101",
  "\\0",
  "\\12",
  "\\x4",
  "\\u",
  "\\P",
  "\\1",
  "\\8",
  "\\cA",
  "\\c",
  "\\k<N>",
  "\\B",
  "\\b",
  "\\D",
  "\\w",
  "\\W",
  "\\K",
  "\\-",
  "\\.",
);

const NAME = fc.string({
  unit: fc.constantFrom(..."abckpuxz019.-_\x01\x08\n".split("")),
  maxLength: 8,
});

function compiles(source: string, flags = ""): boolean {
  try {
    new RegExp(source, flags);
    return true;
  } catch {
    return false;
  }
}

Deno.test("foldCase: without flags it matches lowercase names as the written expression does with `i`", () => {
  fc.assert(
    fc.property(
      fc.array(PIECE, { maxLength: 10 }).map((p) => p.join("")),
      fc.array(NAME, { minLength: 1, maxLength: 10 }),
      (source, names) => {
        fc.pre(compiles(source));
        const folded = foldCase(source);
        const insensitive = new RegExp(source, "i");
        const result = new RegExp(folded);
        for (const name of names) {
          assert.equal(
            result.test(name),
            insensitive.test(name),
            `${source} -> ${folded} on ${JSON.stringify(name)}`,
          );
        }
        // What the linear-time engine could run, it still can.
        if (compiles(source, "l")) assert.ok(compiles(folded, "l"), folded);
      },
    ),
    { numRuns: 10_000 },
  );
});

Deno.test("regex rules ignore case: /^AD[0-9]/ matches ad1.example, still in linear time", () => {
  const adblock = collect("/^AD[0-9]/", "adblock");
  const regex = collect("^[[:upper:]]{2}TRACK", "regex");
  assert.deepEqual(adblock.rules, ["regex regex ^ad[0-9]"]);
  assert.deepEqual(regex.rules, ["regex regex ^[a-zA-Z]{2}track"]);
  for (const { rules, stats } of [adblock, regex]) {
    assert.equal(stats.invalid, 0);
    const source = rules[0]!.split(" ")[2]!;
    assert.ok(compiles(source, "l"));
  }
  assert.ok(new RegExp("^ad[0-9]").test("ad1.example"));
});
