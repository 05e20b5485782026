/**
 * Property test: on random rule sets and names, check() agrees with the
 * naive reference (testdata/reference.ts), which tries every rule with
 * plain string operations. A small alphabet of labels makes names share
 * parents, collide with rules, and sit at label boundaries often.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import type { RuleInput } from "../types.ts";
import { compileRules } from "./compiler.ts";
import { openCompiledList } from "./open.ts";
import { referenceMatcher } from "./testdata/reference.ts";
import { BLOCK, rule } from "./testdata/rules.ts";

const label = fc.constantFrom(
  ...["a", "b", "ab", "ads", "x", "cdn", "ok", "xads"],
  // longer labels take the other compare paths: 5-8 in the slot, 9+ outside
  ...[
    "track",
    "tracker",
    "trackers",
    "trackerz",
    "analytics",
    "analyticz",
    "doubleclick1",
  ],
);
const name = fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) =>
  labels.join(".")
);
const flags = fc.record({ exception: fc.boolean(), important: fc.boolean() });

const nodeRule: fc.Arbitrary<RuleInput> = fc.oneof(
  fc.tuple(
    name,
    fc.constantFrom("domain", "hosts", "adblock") as fc.Arbitrary<"domain">,
    flags,
  )
    .map(([n, syntax, f]) => rule("exact", n, syntax, f)),
  fc.tuple(
    name,
    fc.constantFrom("adblock", "wildcard") as fc.Arbitrary<"adblock">,
    flags,
  )
    .map(([n, syntax, f]) => rule("suffix", n, syntax, f)),
);

const SOURCES = [
  "^a",
  "b$",
  "ads",
  "^ab\\.",
  "a\\.b",
  "x+",
  "[ab]ads",
  "(a|b)\\.x",
  "ads\\.x$",
  "^cdn\\.",
  "^[a-z]+\\.ok$",
  "dsx",
  "ok\\.ads",
  "^xads\\.a$",
  "ker\\.",
  "^analytic",
];
const regexRule = fc.tuple(fc.constantFrom(...SOURCES), flags)
  .map(([source, f]) => rule("regex", source, "regex", f));

const rules = fc.array(
  fc.oneof({ weight: 4, arbitrary: nodeRule }, {
    weight: 1,
    arbitrary: regexRule,
  }),
  {
    maxLength: 25,
  },
);

Deno.test("property: check() agrees with the naive reference", () => {
  fc.assert(
    fc.property(
      rules,
      fc.array(name, { minLength: 1, maxLength: 20 }),
      fc.integer({ min: 0, max: 6 }),
      (ruleSet, names, cap) => {
        const matcher = openCompiledList(
          compileRules(BLOCK, ruleSet, { regexHardCap: cap }),
        );
        const reference = referenceMatcher(ruleSet, cap);
        // Ask the random names, and the rules' own names and their children.
        const asked = [
          ...names,
          ...ruleSet.filter((r) => r.kind !== "regex").map((r) => r.pattern),
        ];
        for (const n of asked) {
          for (const q of [n, n + ".", "x." + n + "."]) {
            assert.deepEqual(matcher.check(q), reference(q), q);
          }
        }
      },
    ),
    { numRuns: 400 },
  );
});
