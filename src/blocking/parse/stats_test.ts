/** ParseStats bookkeeping: examples, line numbers, the regex cap, odd bodies. */

import assert from "node:assert/strict";
import { DEFAULT_MAX_REGEXES, parseList } from "./parse.ts";
import { collect } from "./test_support.ts";

Deno.test("examples: 'line N: <text>: <why>', line numbers count blank, comment and CRLF lines", () => {
  const { stats } = collect(
    "! header\r\n\r\n||ok.example^\r\n||bad..name^\r\n||x^$third-party\r\n",
    "adblock",
  );
  assert.deepEqual(stats.examples, [
    "line 4: ||bad..name^: not a valid domain name",
    "line 5: ||x^$third-party: the $third-party modifier is not supported",
  ]);
});

Deno.test("examples: at most 5 kept, long lines quoted up to 80 characters", () => {
  const long = "x".repeat(300) + " y";
  const { stats } = collect(Array(8).fill(long).join("\n"), "domains");
  assert.equal(stats.invalid, 8);
  assert.equal(stats.examples.length, 5);
  const quoted = stats.examples[0]!.slice("line 1: ".length).split(": ")[0]!;
  assert.equal(quoted.length, 80);
  assert.ok(quoted.endsWith("…"));
  assert.ok(stats.examples[4]!.startsWith("line 5: "));
});

Deno.test("regex cap: more than maxRegexes counts the extra ones invalid", () => {
  const { rules, stats } = collect("a1\nb2\n# c\nc3\nd4", "regex", 2);
  assert.deepEqual(rules, ["regex regex a1", "regex regex b2"]);
  assert.equal(stats.invalid, 2);
  assert.deepEqual(stats.examples, [
    "line 4: more than 2 regular expressions in one list",
    "line 5: more than 2 regular expressions in one list",
  ]);
});

Deno.test("regex cap: the default is 1000 per list, adblock /re/ rules included", () => {
  assert.equal(DEFAULT_MAX_REGEXES, 1000);
  const body = Array.from({ length: 1003 }, (_, i) => `/ads${i}\\./`).join(
    "\n",
  );
  const { stats } = collect(body, "adblock");
  assert.equal(stats.rules, 1000);
  assert.equal(stats.invalid, 3);
  assert.equal(
    stats.examples[0],
    "line 1001: more than 1000 regular expressions in one list",
  );
});

Deno.test("title: the first `# Title:` wins, also in a regex list", () => {
  const { stats } = collect(
    "# Title: Regexes\n# Title: other\n^ads\\.",
    "regex",
  );
  assert.equal(stats.title, "Regexes");
  assert.equal(stats.rules, 1);
});

Deno.test("a BOM at the start of the text is skipped", () => {
  const { rules } = collect("\ufeffads.example\n", "domains");
  assert.deepEqual(rules, ["exact domain ads.example"]);
});

Deno.test("a very long line is invalid, not compiled or scanned as a rule", () => {
  const { stats } = collect("/" + "a".repeat(10_000) + "/\n/ok/", "adblock");
  assert.equal(stats.invalid, 1);
  assert.equal(stats.rules, 1);
  assert.match(stats.examples[0]!, /longer than 8192 characters$/);
});

Deno.test("rules reach the sink while parsing, line by line", () => {
  // The sink sees each rule before the next line is read: a sink that
  // throws stops the parse at the line that produced the rule.
  let seen = 0;
  const sink = {
    rule() {
      if (++seen === 2) throw new Error("stop");
    },
  };
  assert.throws(
    () => parseList("a.example\nb.example\nc.example\n", "domains", sink),
    /stop/,
  );
  assert.equal(seen, 2);
});

Deno.test("the sink gets a fresh object per rule, safe to keep", () => {
  const kept: unknown[] = [];
  parseList("a.example\n*.b.example\n", "domains", {
    rule: (r) => kept.push(r),
  });
  assert.deepEqual(kept, [
    {
      kind: "exact",
      pattern: "a.example",
      syntax: "domain",
      exception: false,
      important: false,
    },
    {
      kind: "suffix",
      pattern: "b.example",
      syntax: "wildcard",
      exception: false,
      important: false,
    },
  ]);
});

Deno.test("regex rules: ones that backtrack are kept (V8 runs them in linear time); ones its linear engine cannot run, or that match every name, are refused", () => {
  const { rules, stats } = collect(
    [
      "^ads?[0-9]*\\.",
      "(a+)+$",
      "^(a|a)+$",
      "/(x*)*y/",
      // mmotti/pihole-regex lines a syntactic check would refuse:
      "^(.+[_.-])?adse?rv(er?|ice)?s?[0-9]*[_.-]",
      "^advert(s|is(ing|ements?))?[0-9]*[_.-]",
      "(a)\\1",
      "(?=a)ab",
      ".*",
      "||x.example^",
    ].join("\n"),
    "regex",
  );
  assert.deepEqual(rules, [
    "regex regex ^ads?[0-9]*\\.",
    "regex regex (a+)+$",
    "regex regex ^(a|a)+$",
    "regex regex (x*)*y",
    "regex regex ^(.+[_.-])?adse?rv(er?|ice)?s?[0-9]*[_.-]",
    "regex regex ^advert(s|is(ing|ements?))?[0-9]*[_.-]",
  ]);
  assert.equal(stats.invalid, 4);
  assert.match(
    stats.examples[0]!,
    /^line 7: \(a\)\\1: cannot run in linear time/,
  );
  assert.match(
    stats.examples[1]!,
    /^line 8: \(\?=a\)ab: cannot run in linear time/,
  );
  assert.match(stats.examples[2]!, /^line 9: \.\*: matches the empty string/);
  assert.match(
    stats.examples[3]!,
    /^line 10: .*adblock syntax in a regex list/,
  );
});
