/**
 * Test helpers: RuleInput from the way a list writes a rule, so tables read
 * like lists and the expected rule text is the rule itself.
 *
 *   "ads.example"          exact, domain        "0.0.0.0 ads.example"  exact, hosts
 *   "||ads.example^"       suffix, adblock      "||192.0.2.1^"          exact, adblock (an IP)
 *   "*.ads.example"        suffix, wildcard     "/^ad[0-9]+/"           regex
 *   "@@…" exception, "…$important" important
 */

import type {
  ListVerdict,
  RuleInput,
  RuleKind,
  RuleSyntax,
} from "../../types.ts";

export function rule(
  kind: RuleKind,
  pattern: string,
  syntax: RuleSyntax,
  flags: { exception?: boolean; important?: boolean } = {},
): RuleInput {
  return {
    kind,
    pattern,
    syntax,
    exception: flags.exception ?? false,
    important: flags.important ?? false,
  };
}

/** A RuleInput from its list text (see the file comment). */
export function ruleFrom(text: string): RuleInput {
  let body = text;
  const exception = body.startsWith("@@");
  if (exception) body = body.slice(2);
  const important = body.endsWith("$important");
  if (important) body = body.slice(0, -"$important".length);
  const flags = { exception, important };
  if (body.startsWith("/") && body.endsWith("/") && body.length > 2) {
    return rule("regex", body.slice(1, -1), "regex", flags);
  }
  if (body.startsWith("||") && body.endsWith("^")) {
    const name = body.slice(2, -1);
    const ip = /^[0-9.]+$/.test(name) || name.includes(":");
    return rule(ip ? "exact" : "suffix", name, "adblock", flags);
  }
  if (body.startsWith("*.")) {
    return rule("suffix", body.slice(2), "wildcard", flags);
  }
  if (body.startsWith("0.0.0.0 ")) {
    return rule("exact", body.slice(8), "hosts", flags);
  }
  return rule("exact", body, "domain", flags);
}

export function rulesFrom(texts: string[]): RuleInput[] {
  return texts.map(ruleFrom);
}

/** The verdict naming `ruleText`: excepted when it is an exception. */
export function verdictOf(ruleText: string | null): ListVerdict | null {
  if (ruleText === null) return null;
  return {
    outcome: ruleText.startsWith("@@") ? "excepted" : "matched",
    rule: ruleText,
  };
}

export const BLOCK = {
  key: "default/ads",
  name: "ads",
  mode: "block",
} as const;
