/**
 * The linear-time guard for regex rules: the processes run with its V8
 * flags, and an expression that backtracks exponentially answers a hostile
 * name at once through the parser and the compiled matcher.
 */
import assert from "node:assert/strict";
import denoJson from "../../../deno.json" with { type: "json" };
import { compileRules } from "../matcher/compiler.ts";
import { openCompiledList } from "../matcher/open.ts";
import { BLOCK, verdictOf } from "../matcher/testdata/rules.ts";
import type { RuleInput } from "../types.ts";
import { parseList } from "./parse.ts";
import { linearEngineAvailable, REGEX_V8_FLAGS } from "./regex_engine.ts";

Deno.test("every deno task that runs kudurru or its tests passes the regex V8 flags", () => {
  const tasks = denoJson.tasks as Record<string, string>;
  for (
    const name of [
      "serve",
      "test",
      "compile:linux-amd64",
      "compile:linux-arm64",
    ]
  ) {
    assert.ok(
      tasks[name]!.includes(`--v8-flags=${REGEX_V8_FLAGS} `),
      `task ${name} needs --v8-flags=${REGEX_V8_FLAGS}`,
    );
  }
  assert.ok(linearEngineAvailable(), "this test runs with the flags");
});

Deno.test("an exponentially backtracking rule answers a hostile name at once (V8 falls back to linear time)", () => {
  // Before: refused by a syntactic check that (?:…) and (a|a)+ got past;
  // `^(a|a)+$` on 27 letters and a "!" took ~8 s here, doubling per letter.
  const body = "^(a|a)+$\n^(?:[a-z0-9]+-?)+\\.ads\\.example$\n";
  const rules: RuleInput[] = [];
  const stats = parseList(body, "regex", { rule: (r) => rules.push(r) });
  assert.equal(stats.invalid, 0);
  const matcher = openCompiledList(compileRules(BLOCK, rules));
  const started = performance.now();
  assert.equal(matcher.check("a".repeat(27) + "!."), null);
  assert.equal(matcher.check("a".repeat(24) + ".ads.examplex."), null);
  assert.deepEqual(
    matcher.check("ab-cd.ads.example."),
    verdictOf("/^(?:[a-z0-9]+-?)+\\.ads\\.example$/"),
  );
  // Generous: without the fallback this takes seconds, with it microseconds.
  assert.ok(performance.now() - started < 1000, "answered in under 1 s");
});
