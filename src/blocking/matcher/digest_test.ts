/**
 * The digest: equal for equal rules, different when anything that changes
 * the matcher changes, the same from createRuleDigest as from finish(), and
 * the per-thread memo of openCompiledList that relies on it.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import type { RuleInput } from "../types.ts";
import { compileRules, createListCompiler } from "./compiler.ts";
import { createRuleDigest } from "./digest.ts";
import { openCompiledList } from "./open.ts";
import { BLOCK, rule, rulesFrom } from "./testdata/rules.ts";

const BASE = [
  "||ads.example^",
  "0.0.0.0 t.example",
  "@@||ok.ads.example^",
  "/^ad[0-9]/",
];

function digestOf(
  texts: string[],
  mode: "block" | "allow" = "block",
  cap?: number,
): string {
  const opts = cap === undefined ? {} : { regexHardCap: cap };
  return compileRules({ ...BLOCK, mode }, rulesFrom(texts), opts).digest;
}

Deno.test("digest: equal rules, equal digest (even across list names)", () => {
  assert.equal(digestOf(BASE), digestOf([...BASE]));
  const other = compileRules(
    { key: "x/y", name: "y", mode: "block" },
    rulesFrom(BASE),
  );
  assert.equal(other.digest, digestOf(BASE));
  assert.match(other.digest, /^[0-9a-f]{16}$/);
});

const CHANGES: [what: string, digest: () => string][] = [
  ["a rule more", () => digestOf([...BASE, "||more.example^"])],
  ["a rule less", () => digestOf(BASE.slice(1))],
  ["another order", () => digestOf([BASE[1]!, BASE[0]!, ...BASE.slice(2)])],
  ["a pattern", () => digestOf(["||adz.example^", ...BASE.slice(1)])],
  ["a syntax", () => digestOf(["*.ads.example", ...BASE.slice(1)])],
  ["a kind", () => digestOf(["ads.example", ...BASE.slice(1)])],
  ["exception", () => digestOf(["@@||ads.example^", ...BASE.slice(1)])],
  ["important", () => digestOf(["||ads.example^$important", ...BASE.slice(1)])],
  ["the mode", () => digestOf(BASE, "allow")],
  ["the regex cap", () => digestOf(BASE, "block", 1)],
  ["a duplicate", () => digestOf([...BASE, BASE[0]!])],
];

for (const [what, digest] of CHANGES) {
  Deno.test(`digest: changes with ${what}`, () => {
    assert.notEqual(digest(), digestOf(BASE));
  });
}

Deno.test("digest: pattern boundaries count ('ab'+'c' is not 'a'+'bc')", () => {
  const a = [rule("exact", "ab", "domain"), rule("exact", "c", "domain")];
  const b = [rule("exact", "a", "domain"), rule("exact", "bc", "domain")];
  assert.notEqual(compileRules(BLOCK, a).digest, compileRules(BLOCK, b).digest);
});

const arbRule: fc.Arbitrary<RuleInput> = fc.record({
  kind: fc.constantFrom("exact", "suffix", "regex"),
  pattern: fc.string({ maxLength: 12 }),
  syntax: fc.constantFrom("domain", "hosts", "adblock", "wildcard", "regex"),
  exception: fc.boolean(),
  important: fc.boolean(),
}) as fc.Arbitrary<RuleInput>;

Deno.test("digest: createRuleDigest equals finish().digest (any rules, even invalid)", () => {
  fc.assert(
    fc.property(
      fc.array(arbRule, { maxLength: 20 }),
      fc.constantFrom("block" as const, "allow" as const),
      fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
      (rules, mode, cap) => {
        const opts = cap === undefined ? {} : { regexHardCap: cap };
        const sink = createRuleDigest({ mode }, opts);
        const compiler = createListCompiler({ ...BLOCK, mode }, opts);
        for (const r of rules) {
          sink.rule(r);
          compiler.rule(r);
        }
        assert.equal(sink.digest(), compiler.finish().digest);
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("open: the same data object gives the same matcher", () => {
  const data = compileRules(BLOCK, rulesFrom(BASE));
  assert.equal(openCompiledList(data), openCompiledList(data));
});

Deno.test("open: the same digest gives the same matcher (a structured clone, a recompile)", () => {
  const data = compileRules(BLOCK, rulesFrom(BASE));
  const first = openCompiledList(data);
  assert.equal(openCompiledList(structuredClone(data)), first);
  assert.equal(openCompiledList(compileRules(BLOCK, rulesFrom(BASE))), first);
});

Deno.test("open: the same rules under another key give a matcher of that key", () => {
  const data = compileRules(BLOCK, rulesFrom(BASE));
  const other = compileRules({
    key: "default/other",
    name: "other",
    mode: "block",
  }, rulesFrom(BASE));
  const a = openCompiledList(data), b = openCompiledList(other);
  assert.notEqual(a, b);
  assert.equal(b.key, "default/other");
  assert.deepEqual(a.check("x.ads.example."), b.check("x.ads.example."));
});
