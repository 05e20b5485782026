/**
 * The real lists in ../shared/data/blocklists/ (see its README): the same
 * names written as `||x^` and as `*.x` must block exactly the same queries,
 * and every name of a plain list is blocked by the adblock form of the same
 * list, except the `www.` names the converter dropped.
 */

import assert from "node:assert/strict";
import type { RuleInput } from "../types.ts";
import { compileRules } from "./compiler.ts";
import { openCompiledList } from "./open.ts";
import { readList } from "./testdata/list_reader.ts";
import { BLOCK } from "./testdata/rules.ts";

function open(rules: RuleInput[]) {
  return openCompiledList(compileRules(BLOCK, rules));
}

Deno.test("real lists: adblock and wildcard forms of the light list agree", async () => {
  const adblockRules = await readList("adblock_light.txt");
  const wildcardRules = await readList("wildcard_light.txt");
  assert.equal(adblockRules.length, 122_680);
  const byAdblock = open(adblockRules), byWildcard = open(wildcardRules);
  let blocked = 0;
  for (const r of wildcardRules) {
    for (
      const name of [
        r.pattern + ".",
        "sub." + r.pattern + ".",
        "x" + r.pattern + ".",
      ]
    ) {
      const a = byAdblock.check(name), w = byWildcard.check(name);
      assert.equal(a?.outcome, w?.outcome, name);
      if (a !== null) blocked++;
    }
  }
  // Every name and every child is blocked; "x"-prefixed siblings mostly not.
  assert.ok(
    blocked >= 2 * wildcardRules.length && blocked < 2.2 * wildcardRules.length,
    `${blocked}`,
  );
  assert.deepEqual(byAdblock.check("sub.000free.us."), {
    outcome: "matched",
    rule: "||000free.us^",
  });
  assert.deepEqual(byWildcard.check("sub.000free.us."), {
    outcome: "matched",
    rule: "*.000free.us",
  });
});

Deno.test("real lists: the plain StevenBlack names are blocked by its adblock form", async () => {
  const plain = await readList("3p_stevenblack.domains.txt");
  const byAdblock = open(await readList("3p_stevenblack.adblock.txt"));
  const byPlain = open(plain);
  const missed: string[] = [];
  for (const r of plain) {
    assert.equal(byPlain.check(r.pattern + ".")?.rule, r.pattern);
    if (byAdblock.check(r.pattern + ".") === null) missed.push(r.pattern);
  }
  // The README: 213 names, all starting with "www.", were dropped.
  assert.equal(missed.length, 213);
  assert.ok(missed.every((n) => n.startsWith("www.")));
});
