/**
 * A tiny reader for the real lists in ../shared/data/blocklists/ (tests and
 * benchmarks only; the real parser is src/blocking/parse): `||x^` and `*.x`
 * lines are suffix rules, `0.0.0.0 x` and plain lines exact rules; comments
 * and anything else are skipped.
 */

import type { RuleInput } from "../../types.ts";

/** The folder of the real lists, from this file. */
export const BLOCKLISTS = new URL(
  "../../../../../shared/data/blocklists/",
  import.meta.url,
);

const PLAIN = /^[a-z0-9_.-]+$/;

/**
 * Calls `onRule` for each rule of a list body, in order, with one reused
 * object (copy it to keep it).
 */
export function forEachRule(
  body: string,
  onRule: (rule: RuleInput) => void,
): void {
  const rule: RuleInput = {
    kind: "exact",
    pattern: "",
    syntax: "domain",
    exception: false,
    important: false,
  };
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf("\n", start);
    if (end < 0) end = body.length;
    const line = body.slice(start, end).trim();
    start = end + 1;
    if (line === "" || line.startsWith("!") || line.startsWith("#")) continue;
    if (line.startsWith("||") && line.endsWith("^")) {
      [rule.kind, rule.syntax, rule.pattern] = [
        "suffix",
        "adblock",
        line.slice(2, -1),
      ];
    } else if (line.startsWith("*.")) {
      [rule.kind, rule.syntax, rule.pattern] = [
        "suffix",
        "wildcard",
        line.slice(2),
      ];
    } else if (line.startsWith("0.0.0.0 ")) {
      [rule.kind, rule.syntax, rule.pattern] = [
        "exact",
        "hosts",
        line.slice(8).trim(),
      ];
    } else {
      [rule.kind, rule.syntax, rule.pattern] = ["exact", "domain", line];
    }
    if (PLAIN.test(rule.pattern)) onRule(rule);
  }
}

/** The rules of one list body, in order. */
export function readRules(body: string): RuleInput[] {
  const rules: RuleInput[] = [];
  forEachRule(body, (r) => rules.push({ ...r }));
  return rules;
}

/** Reads and parses one list file by name. */
export async function readList(file: string): Promise<RuleInput[]> {
  return readRules(await Deno.readTextFile(new URL(file, BLOCKLISTS)));
}
