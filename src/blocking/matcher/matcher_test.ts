/**
 * Table tests of ListMatcher.check: exact, suffix and regex rules,
 * exceptions and $important, trailing dots, parent-walk boundaries and
 * names the query path never sends. Each case: rules as a list writes
 * them, the name asked, and the rule the verdict must name (null: no
 * verdict; an `@@` rule: "excepted"; any other: "matched").
 */

import assert from "node:assert/strict";
import { compileRules } from "./compiler.ts";
import { openCompiledList } from "./open.ts";
import { BLOCK, rulesFrom, verdictOf } from "./testdata/rules.ts";

type Case = [what: string, rules: string[], name: string, want: string | null];

const CASES: Case[] = [
  // exact rules match the name only
  ["exact hit", ["ads.example"], "ads.example.", "ads.example"],
  ["exact hit without the dot", ["ads.example"], "ads.example", "ads.example"],
  ["exact skips children", ["ads.example"], "x.ads.example.", null],
  ["exact skips parents", ["ads.example"], "example.", null],
  [
    "hosts text",
    ["0.0.0.0 ads.example"],
    "ads.example.",
    "0.0.0.0 ads.example",
  ],
  ["bare IPv4", ["0.0.0.0 192.0.2.1"], "192.0.2.1", "0.0.0.0 192.0.2.1"],
  ["bare IPv6", ["||2001:db8::1^"], "2001:db8::1", "||2001:db8::1^"],
  // suffix rules match the name and every name below it
  ["suffix on itself", ["||ads.example^"], "ads.example.", "||ads.example^"],
  [
    "suffix on a child",
    ["||ads.example^"],
    "a.b.ads.example.",
    "||ads.example^",
  ],
  ["label boundary", ["||ads.example^"], "notads.example.", null],
  ["label boundary deeper", ["||ads.example^"], "x.notads.example.", null],
  ["suffix is not a prefix", ["||ads.example^"], "ads.example.com.", null],
  ["suffix skips its parent", ["||ads.example^"], "example.", null],
  [
    "wildcard covers itself",
    ["*.ads.example"],
    "ads.example.",
    "*.ads.example",
  ],
  [
    "wildcard covers children",
    ["*.ads.example"],
    "x.ads.example.",
    "*.ads.example",
  ],
  ["a whole TLD", ["||zip^"], "a.b.zip.", "||zip^"],
  [
    "sibling under a shared parent",
    ["||a.shared.example^"],
    "b.shared.example.",
    null,
  ],
  [
    "deepest suffix reported",
    ["||example^", "||ads.example^"],
    "x.ads.example.",
    "||ads.example^",
  ],
  [
    "exact preferred",
    ["||ads.example^", "ads.example"],
    "ads.example.",
    "ads.example",
  ],
  // regex rules see the name without its trailing dot
  ["regex hit", ["/^ad[0-9]+\\./"], "ad12.example.", "/^ad[0-9]+\\./"],
  ["regex anchored at the end", ["/example$/"], "ads.example.", "/example$/"],
  ["regex miss", ["/^ad[0-9]+\\./"], "adx.example.", null],
  ["unindexed regex", ["/^[a-z]\\./"], "q.example", "/^[a-z]\\./"],
  [
    "node rule before regex",
    ["/ads/", "||ads.example^"],
    "ads.example",
    "||ads.example^",
  ],
  [
    "first regex in arrival order",
    ["/example$/", "/^ads/"],
    "ads.example",
    "/example$/",
  ],
  // exceptions within the list
  [
    "exception on the name",
    ["||ads.example^", "@@||ads.example^"],
    "ads.example.",
    "@@||ads.example^",
  ],
  [
    "exception on a child",
    ["||example^", "@@||ok.example^"],
    "a.ok.example.",
    "@@||ok.example^",
  ],
  [
    "exception elsewhere",
    ["||example^", "@@||ok.example^"],
    "ads.example.",
    "||example^",
  ],
  // An exception with no rule of its own list still excepts (AdGuard Home's
  // allowlist entry); the stage decides whether another list overrides it.
  [
    "exception alone",
    ["@@||ok.example^"],
    "sub.ok.example.",
    "@@||ok.example^",
  ],
  ["exception alone, exact", ["@@ok.example"], "ok.example.", "@@ok.example"],
  ["regex exception alone", ["@@/^cdn/"], "cdn1.example.", "@@/^cdn/"],
  [
    "important exception alone",
    ["@@||ok.example^$important"],
    "ok.example.",
    "@@||ok.example^$important",
  ],
  ["exception alone elsewhere", ["@@||ok.example^"], "ads.example.", null],
  [
    "exception above the rule",
    ["||ads.example^", "@@||example^"],
    "ads.example.",
    "@@||example^",
  ],
  ["regex exception", ["||example^", "@@/^cdn/"], "cdn1.example.", "@@/^cdn/"],
  [
    "exception over a regex",
    ["/^ads/", "@@||ads.example^"],
    "ads.example.",
    "@@||ads.example^",
  ],
  // $important beats exceptions, except important ones
  [
    "important",
    ["||ads.example^$important", "@@||ads.example^"],
    "ads.example.",
    "||ads.example^$important",
  ],
  [
    "important over a regex exception",
    ["||example^$important", "@@/ads/"],
    "ads.example.",
    "||example^$important",
  ],
  [
    "important regex",
    ["/^ads/$important", "@@||example^"],
    "ads.example.",
    "/^ads/$important",
  ],
  [
    "important exception",
    ["||example^$important", "@@||ads.example^$important"],
    "ads.example.",
    "@@||ads.example^$important",
  ],
  [
    "important exception on plain",
    ["||example^", "@@||example^$important"],
    "example.",
    "@@||example^$important",
  ],
  [
    "important exception preferred",
    ["||example^", "@@||example^", "@@||example^$important"],
    "example.",
    "@@||example^$important",
  ],
  // names the query path does not send: no verdict, no exception
  ["uppercase is not expected", ["||ads.example^"], "ADS.EXAMPLE.", null],
  ["empty name", ["||ads.example^"], "", null],
  ["root", ["||ads.example^"], ".", null],
  ["empty label", ["ads.example"], "a..b.", null],
  ["double trailing dot", ["||ads.example^"], "ads.example..", null],
  ["non-ASCII", ["||ads.example^"], "ädś.example.", null],
  [
    "over 253 characters",
    ["||ads.example^"],
    "a.".repeat(130) + "ads.example.",
    null,
  ],
];

for (const [what, rules, name, want] of CASES) {
  Deno.test(`check: ${what}`, () => {
    const matcher = openCompiledList(compileRules(BLOCK, rulesFrom(rules)));
    assert.deepEqual(matcher.check(name), verdictOf(want));
  });
}

Deno.test("check: a list of mode allow says 'matched' and carries its mode", () => {
  const meta = { key: "default/ok", name: "ok", mode: "allow" } as const;
  const matcher = openCompiledList(
    compileRules(meta, rulesFrom(["||ok.example^"])),
  );
  assert.equal(matcher.mode, "allow");
  assert.equal(matcher.key, "default/ok");
  assert.equal(matcher.name, "ok");
  assert.deepEqual(matcher.check("x.ok.example."), verdictOf("||ok.example^"));
});

Deno.test("check: a repeated hit returns the same frozen verdict, per rule and outcome", () => {
  const matcher = openCompiledList(
    compileRules(
      BLOCK,
      rulesFrom(["||ads.example^", "@@||ok.ads.example^", "/^track[0-9]+\\./"]),
    ),
  );
  const first = matcher.check("a.ads.example.");
  assert.deepEqual(first, verdictOf("||ads.example^"));
  assert.ok(Object.isFrozen(first), "shared, so nobody may change it");
  assert.equal(matcher.check("b.ads.example."), first, "same rule and outcome");
  assert.deepEqual(
    matcher.check("ok.ads.example."),
    verdictOf("@@||ok.ads.example^"),
  );
  assert.deepEqual(
    matcher.check("ads.example"),
    first,
    "trailing dot optional",
  );
  const regex = matcher.check("track7.example.");
  assert.deepEqual(regex, verdictOf("/^track[0-9]+\\./"));
  assert.equal(matcher.check("track8.example."), regex);
});
