/**
 * Compiler tests: dedup, many names sharing parents, bad patterns skipped
 * with one warning, the empty list, and misuse of the compiler.
 */

import assert from "node:assert/strict";
import type { RuleInput } from "../types.ts";
import { compileRules, createListCompiler } from "./compiler.ts";
import { openCompiledList } from "./open.ts";
import {
  BLOCK,
  rule,
  ruleFrom,
  rulesFrom,
  verdictOf,
} from "./testdata/rules.ts";

Deno.test("dedup: the same rule twice is stored once", () => {
  const data = compileRules(
    BLOCK,
    rulesFrom(["||a.example^", "||a.example^", "/^a/", "/^a/"]),
  );
  assert.equal(data.ruleCount, 2);
});

Deno.test("dedup: the same name in another syntax keeps the first", () => {
  const data = compileRules(
    BLOCK,
    rulesFrom(["ads.example", "0.0.0.0 ads.example"]),
  );
  assert.equal(data.ruleCount, 1);
  assert.deepEqual(
    openCompiledList(data).check("ads.example."),
    verdictOf("ads.example"),
  );
});

Deno.test("dedup: other kinds and roles are other rules", () => {
  const data = compileRules(
    BLOCK,
    rulesFrom([
      "ads.example",
      "||ads.example^",
      "@@||ads.example^",
      "||ads.example^$important",
      "@@||ads.example^$important",
      "/ads/",
      "@@/ads/",
    ]),
  );
  assert.equal(data.ruleCount, 7);
});

Deno.test("compile: 300,000 names with shared parents all resolve", () => {
  // More nodes at one depth than node_layout.ts sorts in one chunk.
  const rules: RuleInput[] = [];
  const nameOf = (i: number) => `n${i}.g${i % 37}.example`;
  for (let i = 0; i < 300_000; i++) {
    rules.push(ruleFrom(i % 2 === 1 ? `||${nameOf(i)}^` : nameOf(i)));
  }
  const matcher = openCompiledList(compileRules(BLOCK, rules));
  for (let i = 0; i < 300_000; i++) {
    const text = i % 2 === 1 ? `||${nameOf(i)}^` : nameOf(i);
    assert.deepEqual(matcher.check(nameOf(i) + "."), verdictOf(text));
    assert.deepEqual(
      matcher.check(`x.${nameOf(i)}.`),
      verdictOf(i % 2 === 1 ? text : null),
    );
    assert.equal(matcher.check(`m${i}.g${i % 37}.example.`), null);
  }
});

Deno.test("compile: bad patterns are skipped with one warning, never thrown", () => {
  const warnings: string[] = [];
  const data = compileRules(
    BLOCK,
    [
      rule("exact", "", "domain"),
      rule("exact", "a..b", "domain"),
      rule("exact", "x".repeat(64) + ".example", "domain"),
      rule("exact", "a b.example", "domain"),
      rule("exact", "ünï.example", "domain"),
      rule("exact", ("a".repeat(60) + ".").repeat(5) + "example", "domain"),
      rule("regex", "(unclosed", "regex"),
      rule("exact", "ads.example", "regex"),
      rule("exact", "ADS.Example.", "domain"),
    ],
    { warn: (w) => warnings.push(w) },
  );
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0]!,
    /^list default\/ads: 8 rules skipped, e\.g\. "": an empty name; "a\.\.b": an empty label; "x{64}\.example": a label longer/,
  );
  assert.equal(data.ruleCount, 1);
  // Uppercase and a trailing dot are forgiven.
  assert.deepEqual(
    openCompiledList(data).check("ads.example."),
    verdictOf("ads.example"),
  );
});

Deno.test("compile: an empty list matches nothing", () => {
  const data = compileRules(BLOCK, []);
  assert.equal(data.ruleCount, 0);
  assert.equal(openCompiledList(data).check("ads.example."), null);
});

Deno.test("compile: the data is plain, with shared buffers", () => {
  const data = compileRules(BLOCK, rulesFrom(["||ads.example^", "/^ad/"]));
  const layout = data.data as Record<string, unknown>;
  assert.ok(layout.slots instanceof SharedArrayBuffer);
  assert.ok(layout.labels instanceof SharedArrayBuffer);
  assert.deepEqual(structuredClone(data).digest, data.digest);
});

Deno.test("compile: misuse is an error", async (t) => {
  const compiler = createListCompiler(BLOCK);
  compiler.rule(ruleFrom("a.example"));
  compiler.finish();
  await t.step(
    "finish twice",
    () => assert.throws(() => compiler.finish(), /twice/),
  );
  await t.step("rule after finish", () => {
    assert.throws(() => compiler.rule(ruleFrom("b.example")), /after finish/);
  });
  await t.step("open garbage", () => {
    const fake = { ...compileRules(BLOCK, []), data: { format: "other" } };
    assert.throws(() => openCompiledList(fake), TypeError);
  });
});
