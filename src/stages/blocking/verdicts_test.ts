/**
 * The stage's test double (testdata/set_matcher.ts) gives the verdicts of
 * the real matcher, on the stage's table lists and on the cases where they
 * once differed: a stage test that passes with the double must mean what
 * it says for the real thing.
 */
import assert from "node:assert/strict";
import { compileRules } from "../../blocking/matcher/compiler.ts";
import { openCompiledList } from "../../blocking/matcher/open.ts";
import { rules } from "./testdata/fixtures.ts";
import { TEST_LISTS, type TestList } from "./testdata/lists.ts";
import { openSetList, setListData } from "./testdata/set_matcher.ts";

const EXTRA: TestList[] = [
  {
    // An important exception beats an important rule (AdGuard Home).
    meta: { key: "dns/both-important", name: "Both", mode: "block" },
    rules: rules("||a.example^$important", "@@||a.example^$important"),
  },
  {
    // An exception with no rule of its own list.
    meta: { key: "dns/lone", name: "Lone", mode: "block" },
    rules: rules("@@||lone.example^", "@@/^cdn[0-9]/"),
  },
];

/** Each rule's own name, a name below it, and some names no rule has. */
function namesFor(lists: TestList[]): string[] {
  const names = new Set([
    "example.org.",
    "cdn7.example.",
    "a.example.",
    "x.a.example.",
  ]);
  for (const list of lists) {
    for (const rule of list.rules) {
      if (rule.kind === "regex") continue;
      names.add(`${rule.pattern}.`);
      names.add(`sub.${rule.pattern}.`);
    }
  }
  return [...names];
}

Deno.test("test double: the same verdicts as the compiled matcher", async (t) => {
  const lists = [...TEST_LISTS, ...EXTRA];
  const names = namesFor(lists);
  for (const list of lists) {
    await t.step(list.meta.key, () => {
      const real = openCompiledList(compileRules(list.meta, list.rules));
      const double = openSetList(setListData(list.meta, list.rules));
      for (const name of names) {
        assert.deepEqual(double.check(name), real.check(name), name);
      }
    });
  }
});

Deno.test("test double and matcher: lone exceptions and important pairs", async (t) => {
  const kits = {
    "compiled matcher": (l: TestList) =>
      openCompiledList(compileRules(l.meta, l.rules)),
    "test double": (l: TestList) => openSetList(setListData(l.meta, l.rules)),
  };
  for (const [kit, open] of Object.entries(kits)) {
    await t.step(kit, () => {
      const [both, lone] = EXTRA.map(open);
      assert.deepEqual(both!.check("a.example."), {
        outcome: "excepted",
        rule: "@@||a.example^$important",
      });
      assert.deepEqual(lone!.check("www.lone.example."), {
        outcome: "excepted",
        rule: "@@||lone.example^",
      });
      assert.deepEqual(lone!.check("cdn1.example."), {
        outcome: "excepted",
        rule: "@@/^cdn[0-9]/",
      });
      assert.equal(lone!.check("example.org."), null);
    });
  }
});
