/**
 * A naive reference for ListMatcher.check, written from the rules as stated
 * (not from the compiled layout): every stored rule is tried against the
 * name with string operations. Property tests compare the real matcher
 * against it on random rule sets and names.
 */

import type { ListVerdict, RuleInput } from "../../types.ts";

interface StoredRule {
  kind: "exact" | "suffix" | "regex";
  pattern: string;
  role: number; // 0 block, 1 important, 2 exception, 3 important exception
  text: string;
  /** Regex arrival id among the kept expressions. */
  id: number;
  regex?: RegExp;
}

function textOf(rule: RuleInput): string {
  const p = rule.pattern;
  let text = rule.syntax === "hosts"
    ? "0.0.0.0 " + p
    : rule.syntax === "adblock"
    ? "||" + p + "^"
    : rule.syntax === "wildcard"
    ? "*." + p
    : rule.syntax === "regex"
    ? "/" + p + "/"
    : p;
  if (rule.exception) text = "@@" + text;
  if (rule.important) text += "$important";
  return text;
}

/** Reference verdicts for `rules` (valid lowercase patterns assumed). */
export function referenceMatcher(
  rules: RuleInput[],
  regexHardCap = 1000,
): (name: string) => ListVerdict | null {
  const stored: StoredRule[] = [];
  const seen = new Set<string>();
  let regexes = 0;
  for (const rule of rules) {
    const role = (rule.exception ? 2 : 0) + (rule.important ? 1 : 0);
    // One rule per (kind, role, pattern): the first syntax wins.
    const identity = `${
      rule.kind === "regex" ? "regex" : rule.kind
    }|${role}|${rule.pattern}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    if (rule.kind === "regex") {
      if (regexes >= regexHardCap) continue;
      stored.push({
        kind: "regex",
        pattern: rule.pattern,
        role,
        text: textOf(rule),
        id: regexes++,
        regex: new RegExp(rule.pattern),
      });
    } else {
      stored.push({
        kind: rule.kind,
        pattern: rule.pattern,
        role,
        text: textOf(rule),
        id: 0,
      });
    }
  }
  return (input: string) => {
    const name = input.endsWith(".") ? input.slice(0, -1) : input;
    if (name.length > 253) return null;
    const matching = stored.filter((r) =>
      r.kind === "exact"
        ? r.pattern === name
        : r.kind === "suffix"
        ? name === r.pattern || name.endsWith("." + r.pattern)
        : r.regex!.test(name)
    );
    // Preference: exact, then suffix (longest pattern first), then regex
    // (arrival order); on one pattern an important exception first.
    const rank = (r: StoredRule): number[] =>
      r.kind === "exact"
        ? [0, 0, r.role === 3 ? 0 : 1]
        : r.kind === "suffix"
        ? [1, -r.pattern.length, r.role === 3 ? 0 : 1]
        : [2, r.id, 0];
    const pick = (roles: number[]): StoredRule | undefined => {
      let best: StoredRule | undefined;
      for (const r of matching) {
        if (!roles.includes(r.role)) continue;
        if (best === undefined || less(rank(r), rank(best))) best = r;
      }
      return best;
    };
    const important = pick([1]);
    if (important !== undefined) {
      const exception = pick([3]);
      return exception !== undefined
        ? { outcome: "excepted", rule: exception.text }
        : { outcome: "matched", rule: important.text };
    }
    const exception = pick([2, 3]);
    if (exception !== undefined) {
      return { outcome: "excepted", rule: exception.text };
    }
    const block = pick([0]);
    return block === undefined
      ? null
      : { outcome: "matched", rule: block.text };
  };
}

function less(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    if (a[i]! !== b[i]!) return a[i]! < b[i]!;
  }
  return false;
}
