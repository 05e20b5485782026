/**
 * Block-list semantics against real lists (../shared/data/blocklists, see
 * its README): the same list published in several syntaxes must block the
 * same names through our parser and matcher. Nobody here wrote these
 * lists, so they check the engine rather than our own reading of it.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { decodeListBody } from "../../src/blocking/parse/detect.ts";
import { parseList } from "../../src/blocking/parse/parse.ts";
import { compileRules } from "../../src/blocking/matcher/compiler.ts";
import { openCompiledList } from "../../src/blocking/matcher/open.ts";
import type { ListMatcher, RuleInput } from "../../src/blocking/types.ts";

const DATA = fileURLToPath(
  new URL("../../../shared/data/blocklists/", import.meta.url),
);

interface Loaded {
  rules: RuleInput[];
  matcher: ListMatcher;
}

const loaded = new Map<string, Loaded>();

/** Parses and compiles one real list (memoised: several tests share them). */
function load(file: string): Loaded {
  let list = loaded.get(file);
  if (list === undefined) {
    const text = decodeListBody(Deno.readFileSync(DATA + file));
    const rules: RuleInput[] = [];
    const stats = parseList(text, "auto", { rule: (r) => rules.push(r) });
    assert.ok(rules.length > 10_000, `${file}: ${rules.length} rules`);
    assert.ok(
      stats.invalid <= rules.length / 1000,
      `${file}: ${stats.invalid} invalid lines, e.g. ${stats.examples}`,
    );
    const data = compileRules(
      { key: `test/${file}`, name: file, mode: "block" },
      rules,
    );
    list = { rules, matcher: openCompiledList(data) };
    loaded.set(file, list);
  }
  return list;
}

const blocks = (m: ListMatcher, name: string) =>
  m.check(`${name}.`)?.outcome === "matched";

/** The names a list's rules are about (exact and suffix rules). */
const namesOf = (list: Loaded) =>
  list.rules.filter((r) => r.kind !== "regex").map((r) => r.pattern);

/** The parent of a name, or undefined for a single label. */
function parent(name: string): string | undefined {
  const dot = name.indexOf(".");
  return dot < 0 ? undefined : name.slice(dot + 1);
}

for (
  const [adblock, wildcard, count] of [
    ["adblock_light.txt", "wildcard_light.txt", 122_680],
    ["3p_stevenblack.adblock.txt", "3p_stevenblack.wildcard.txt", 85_291],
  ] as const
) {
  Deno.test(`${adblock} and ${wildcard} block exactly the same queries`, () => {
    const a = load(adblock);
    const w = load(wildcard);
    const names = new Set([...namesOf(a), ...namesOf(w)]);
    assert.equal(names.size, count);
    let checked = 0;
    for (const name of names) {
      // The name, a name below it, and its parent (often not listed).
      for (const q of [name, `x-1.${name}`, parent(name)]) {
        if (q === undefined) continue;
        assert.equal(blocks(a.matcher, q), blocks(w.matcher, q), q);
        checked++;
      }
      assert.ok(blocks(a.matcher, name), `${adblock} blocks ${name}`);
      assert.ok(blocks(a.matcher, `deep.sub.${name}`), `below ${name}`);
    }
    assert.ok(checked > count * 2);
  });
}

for (
  const [plain, adblock, exceptions] of [
    ["3p_stevenblack.domains.txt", "3p_stevenblack.adblock.txt", 213],
    ["3p_adguarddns.hosts.txt", "3p_adguarddns.adblock.txt", 53],
  ] as const
) {
  Deno.test(`every name of ${plain} is blocked by ${adblock}, apart from the known www. exceptions`, () => {
    const p = load(plain);
    const a = load(adblock);
    const missed = namesOf(p).filter((name) => !blocks(a.matcher, name));
    assert.equal(missed.length, exceptions, missed.slice(0, 5).join(", "));
    for (const name of missed) {
      assert.ok(name.startsWith("www."), `${name} is not a known exception`);
    }
    // The converse (README): every adblock name is listed in the plain form,
    // which blocks names exactly and nothing below them.
    for (const name of namesOf(a)) {
      assert.ok(blocks(p.matcher, name), `${plain} lists ${name}`);
    }
    const someName = namesOf(p).find((n) => !blocks(p.matcher, `zz-9.${n}`));
    assert.ok(someName, "plain names are exact: a name below is not blocked");
  });
}

Deno.test("3p_easylist.adblock.txt parses with its unsupported rules counted, never as blocks", () => {
  const text = decodeListBody(
    Deno.readFileSync(DATA + "3p_easylist.adblock.txt"),
  );
  const rules: RuleInput[] = [];
  const stats = parseList(text, "auto", { rule: (r) => rules.push(r) });
  assert.equal(stats.format, "adblock");
  assert.ok(rules.length > 1000, `${rules.length} rules`);
  assert.ok(stats.title, "the list has a title");
  const matcher = openCompiledList(
    compileRules(
      { key: "test/easylist", name: "easylist", mode: "block" },
      rules,
    ),
  );
  // Every rule's own name gets a verdict; deny rules block it unless an
  // exception of the list covers it (rare in EasyList's DNS part).
  let deny = 0;
  let blocked = 0;
  for (const r of rules) {
    if (r.kind === "regex") continue;
    const verdict = matcher.check(`${r.pattern}.`);
    assert.ok(verdict !== null, `${r.pattern} has a verdict`);
    if (!r.exception) {
      deny++;
      if (verdict.outcome === "matched") blocked++;
    }
  }
  assert.ok(blocked > deny * 0.9, `${blocked} of ${deny} deny rules block`);
});
