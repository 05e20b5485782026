/**
 * Exceptions with a modifier kudurru does not apply: `$dnstype`, `$client`
 * and `$ctag` exceptions apply to every query (dropping them blocked what
 * their author excepted); they are counted and quoted apart.
 */

import assert from "node:assert/strict";
import { compileRules } from "../matcher/compiler.ts";
import { openCompiledList } from "../matcher/open.ts";
import type { RuleInput } from "../types.ts";
import { parseList } from "./parse.ts";

Deno.test("exception modifiers: @@…$dnstype=A keeps its name out of its list's block", () => {
  const rules: RuleInput[] = [];
  const stats = parseList(
    "||allowed-in-list.test^\n@@||allowed-in-list.test^$dnstype=A\n" +
      "||blocked.test^$dnstype=A\n",
    "auto",
    { rule: (r) => rules.push(r) },
  );
  const matcher = openCompiledList(
    compileRules({ key: "test/l", name: "l", mode: "block" }, rules),
  );
  assert.deepEqual(matcher.check("allowed-in-list.test."), {
    outcome: "excepted",
    rule: "@@||allowed-in-list.test^",
  });
  // A narrowed block rule stays dropped: blocking less is the safe side.
  assert.equal(matcher.check("blocked.test."), null);
  assert.equal(stats.broadenedExceptions, 1);
  assert.equal(stats.unsupported, 1);
});

Deno.test("exception modifiers: counted apart from unsupported, quoted with the modifier left out", () => {
  const stats = parseList(
    "! x\n@@||ok.example^$client=192.168.1.2,important\n@@||no.example^$denyallow=a.no.example",
    "adblock",
    { rule() {} },
  );
  assert.equal(stats.rules, 1);
  assert.equal(stats.broadenedExceptions, 1);
  assert.equal(stats.unsupported, 1);
  assert.deepEqual(stats.examples, [
    "line 2: @@||ok.example^$client=192.168.1.2,important: kept as an exception for every query ($client is not applied)",
    "line 3: @@||no.example^$denyallow=a.no.example: the $denyallow modifier is not supported",
  ]);
});
