/**
 * Regex rules: the required-literal extraction behind the index, the index
 * against a brute-force scan, the per-list cap and the warnings.
 */

import assert from "node:assert/strict";
import { compileRules } from "./compiler.ts";
import { openCompiledList } from "./open.ts";
import { requiredLiterals } from "./regex_literal.ts";
import { BLOCK, rule, verdictOf } from "./testdata/rules.ts";

const LITERALS: [source: string, runs: string[]][] = [
  ["^ad[0-9]+\\.example\\.com$", ["ad", ".example.com"]],
  ["ads?tracker", ["ad", "tracker"]],
  ["ab+c", ["ab", "c"]],
  ["ab{0,2}c", ["a", "c"]],
  ["ads{2}x", ["ads", "x"]],
  ["ab*?cd", ["a", "cd"]],
  ["(ads)tracker", ["tracker"]],
  ["^(.+\\.)?ads\\.", ["ads."]],
  ["[abc]def", ["def"]],
  ["a.*b", ["a", "b"]],
  ["foo\\dbar", ["foo", "bar"]],
  ["a{b", ["a{b"]],
  ["x(?=abc)yz", ["x", "yz"]],
  ["a|b", []],
  ["(a|b)cde", ["cde"]],
  ["\\x41bcd", []],
  ["\\u0041bcd", []],
  ["bad(", []],
  ["bad[", []],
];

for (const [source, runs] of LITERALS) {
  Deno.test(`requiredLiterals: /${source}/`, () => {
    assert.deepEqual(requiredLiterals(source), runs);
  });
}

Deno.test("regex index: same answers as trying every expression", () => {
  // Indexed (4- and 3-character keys) and unindexed expressions, with keys
  // at the start, middle and end of names.
  const sources: string[] = [];
  for (let i = 0; i < 120; i++) {
    sources.push(
      i % 4 === 0
        ? `^t${i}x[0-9]+\\.`
        : i % 4 === 1
        ? `\\.k${i % 10}q$`
        : i % 4 === 2
        ? `mid${i}mid`
        : `^[a-z]{${(i % 9) + 2}}\\.u${i % 3}$`,
    );
  }
  const compiled = sources.map((s) => new RegExp(s));
  const matcher = openCompiledList(
    compileRules(BLOCK, sources.map((s) => rule("regex", s, "regex"))),
  );
  const names: string[] = [];
  for (let i = 0; i < 130; i++) {
    names.push(
      `t${i}x${i * 7}.example.`,
      `a.k${i % 12}q`,
      `pre.mid${i}mid.post`,
      `${"abcdefghijk".slice(0, i % 12)}.u${i % 4}`,
    );
  }
  let hits = 0;
  for (const name of names) {
    const subject = name.endsWith(".") ? name.slice(0, -1) : name;
    const first = compiled.findIndex((r) => r.test(subject));
    if (first >= 0) hits++;
    const want = first < 0 ? null : `/${sources[first]}/`;
    assert.deepEqual(matcher.check(name), verdictOf(want), name);
  }
  assert.ok(
    hits > 100 && hits < names.length,
    `${hits} of ${names.length} names match`,
  );
});

Deno.test("regex cap: expressions beyond it are dropped with a warning", () => {
  const warnings: string[] = [];
  const rules = ["^a1", "^a2", "^a1", "^a3", "^a4", "^a5"].map((s) =>
    rule("regex", s, "regex")
  );
  const data = compileRules(BLOCK, rules, {
    regexHardCap: 3,
    warn: (w) => warnings.push(w),
  });
  assert.equal(data.ruleCount, 3);
  assert.deepEqual(warnings, [
    "list default/ads: 2 regular expressions over the cap of 3 per list were dropped",
  ]);
  const matcher = openCompiledList(data);
  assert.deepEqual(matcher.check("a3.example."), verdictOf("/^a3/"));
  assert.equal(matcher.check("a4.example."), null);
});

Deno.test("regex cap: the default is 1000", () => {
  const warnings: string[] = [];
  const rules = Array.from(
    { length: 1002 },
    (_, i) => rule("regex", `^r${i}\\.`, "regex"),
  );
  const data = compileRules(BLOCK, rules, { warn: (w) => warnings.push(w) });
  assert.equal(data.ruleCount, 1000);
  assert.match(
    warnings.join("\n"),
    /2 regular expressions over the cap of 1000/,
  );
});

Deno.test("unindexed regexes: a warning above 50, none at 50", () => {
  for (const [count, warned] of [[50, false], [51, true]] as const) {
    const warnings: string[] = [];
    const rules = Array.from(
      { length: count },
      (_, i) => rule("regex", `^[a-z]{${i + 1}}$`, "regex"),
    );
    compileRules(BLOCK, rules, { warn: (w) => warnings.push(w) });
    assert.equal(warnings.length, warned ? 1 : 0, `${count} unindexed`);
    if (warned) {
      assert.match(warnings[0]!, /51 regular expressions have no literal/);
    }
  }
});
