/**
 * The real lists in ../shared/data/blocklists/ (see its README): every file
 * sniffs to its syntax and parses without invalid lines, and the facts the
 * README states across syntaxes of the same list hold for what we parse.
 */

import assert from "node:assert/strict";
import type { ListFormat, ParseStats, RuleInput } from "../types.ts";
import { decodeListBody, notAListReason } from "./detect.ts";
import { parseList } from "./parse.ts";

const DIR = new URL("../../../../shared/data/blocklists/", import.meta.url);

const FILES: Array<
  [file: string, format: Exclude<ListFormat, "auto">, kind: RuleInput["kind"]]
> = [
  ["adblock_light.txt", "adblock", "suffix"],
  ["wildcard_light.txt", "domains", "suffix"],
  ["3p_stevenblack.adblock.txt", "adblock", "suffix"],
  ["3p_stevenblack.wildcard.txt", "domains", "suffix"],
  ["3p_stevenblack.domains.txt", "domains", "exact"],
  ["3p_adguarddns.adblock.txt", "adblock", "suffix"],
  ["3p_adguarddns.hosts.txt", "hosts", "exact"],
  ["3p_easylist.adblock.txt", "adblock", "suffix"],
];

interface Parsed extends ParseStats {
  names: Set<string>;
  kinds: Set<string>;
}

const cache = new Map<string, Parsed>();

async function parseFile(file: string): Promise<Parsed> {
  const hit = cache.get(file);
  if (hit) return hit;
  const bytes = await Deno.readFile(new URL(file, DIR));
  assert.equal(notAListReason(bytes), null, file);
  const names = new Set<string>();
  const kinds = new Set<string>();
  const stats = parseList(decodeListBody(bytes), "auto", {
    rule(rule) {
      names.add(rule.pattern);
      kinds.add(rule.kind);
    },
  });
  const parsed = { ...stats, names, kinds };
  cache.set(file, parsed);
  return parsed;
}

/** Rule lines as the test counts them: not blank, not a `#`/`!` comment. */
async function ruleLineCount(file: string): Promise<number> {
  const text = await Deno.readTextFile(new URL(file, DIR));
  return text.split("\n").filter((l) =>
    l.trim() !== "" && !/^[#!]/.test(l.trim())
  ).length;
}

/** Blocked by a set of suffix rules: the name or one of its parents is in it. */
function coveredBySuffix(name: string, suffixes: Set<string>): boolean {
  for (
    let rest = name;
    rest !== "";
    rest = rest.slice(rest.indexOf(".") + 1 || rest.length)
  ) {
    if (suffixes.has(rest)) return true;
  }
  return false;
}

for (const [file, format, kind] of FILES) {
  Deno.test(`real list ${file}: sniffs to ${format}, every rule line parses`, async () => {
    const parsed = await parseFile(file);
    assert.equal(parsed.format, format);
    assert.equal(parsed.invalid, 0);
    assert.equal(parsed.unsupported, 0);
    assert.equal(parsed.rules, await ruleLineCount(file));
    assert.deepEqual([...parsed.kinds], [kind]);
    const header = (await Deno.readTextFile(new URL(file, DIR))).split(
      "\n",
      1,
    )[0]!;
    assert.equal(parsed.title, header.replace(/^[#!] Title: /, "").trim());
  });
}

const SAME_NAMES: Array<[a: string, b: string, count: number]> = [
  ["adblock_light.txt", "wildcard_light.txt", 122_680],
  ["3p_stevenblack.adblock.txt", "3p_stevenblack.wildcard.txt", 85_291],
];

for (const [a, b, count] of SAME_NAMES) {
  Deno.test(`real lists: ${a} and ${b} give the same ${count} suffix rules`, async () => {
    const [left, right] = [await parseFile(a), await parseFile(b)];
    assert.equal(left.rules, count);
    assert.equal(right.rules, count);
    assert.equal(left.names.size, count);
    for (const name of left.names) assert.ok(right.names.has(name), name);
  });
}

const PLAIN_FORMS: Array<[adblock: string, plain: string, wwwOnly: number]> = [
  ["3p_stevenblack.adblock.txt", "3p_stevenblack.domains.txt", 213],
  ["3p_adguarddns.adblock.txt", "3p_adguarddns.hosts.txt", 53],
];

for (const [adblockFile, plainFile, wwwOnly] of PLAIN_FORMS) {
  Deno.test(`real lists: ${adblockFile} and ${plainFile} agree (except ${wwwOnly} www. names)`, async () => {
    const [adblock, plain] = [
      await parseFile(adblockFile),
      await parseFile(plainFile),
    ];
    for (const name of adblock.names) {
      assert.ok(plain.names.has(name), `${name} missing from ${plainFile}`);
    }
    const uncovered = [...plain.names].filter((name) =>
      !coveredBySuffix(name, adblock.names)
    );
    assert.equal(uncovered.length, wwwOnly);
    for (const name of uncovered) assert.ok(name.startsWith("www."), name);
  });
}
