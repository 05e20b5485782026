/**
 * Test double: a ListMatcher over plain arrays of rules, with the verdict
 * semantics of src/blocking/types.ts (exact and suffix rules; an `@@`
 * exception beats a rule of its own list unless that rule is `$important`).
 * Used to test the stage on its own and to check that the real matcher
 * gives the stage the same verdicts.
 */
import type {
  CompiledListData,
  ListMatcher,
  ListVerdict,
  RuleInput,
} from "../../../blocking/types.ts";

/** What a list is besides its rules. */
export interface ListMeta {
  key: string;
  name: string;
  mode: "block" | "allow";
  response?: CompiledListData["response"];
}

/** One rule with the text its list wrote. */
interface SetRule extends RuleInput {
  text: string;
}

/** A CompiledListData whose `data` is the rules themselves. */
export function setListData(
  meta: ListMeta,
  rules: readonly RuleInput[],
): CompiledListData {
  const data: SetRule[] = rules.map((r) => ({ ...r, text: ruleText(r) }));
  const list: CompiledListData = {
    key: meta.key,
    name: meta.name,
    mode: meta.mode,
    digest: `set:${meta.key}`,
    ruleCount: rules.length,
    data,
  };
  if (meta.response !== undefined) list.response = meta.response;
  return list;
}

/** Opens a list made by {@linkcode setListData}. */
export function openSetList(data: CompiledListData): ListMatcher {
  const rules = data.data as SetRule[];
  return {
    key: data.key,
    name: data.name,
    mode: data.mode,
    digest: data.digest,
    check(name: string): ListVerdict | null {
      const bare = name.endsWith(".") ? name.slice(0, -1) : name;
      const matches = rules.filter((r) => covers(r, bare));
      const important = matches.find((r) => r.important && !r.exception);
      if (important) return { outcome: "matched", rule: important.text };
      const exception = matches.find((r) => r.exception);
      if (exception) return { outcome: "excepted", rule: exception.text };
      const rule = matches[0];
      return rule ? { outcome: "matched", rule: rule.text } : null;
    },
  };
}

function covers(rule: RuleInput, name: string): boolean {
  if (rule.kind === "exact") return name === rule.pattern;
  if (rule.kind === "suffix") {
    return name === rule.pattern || name.endsWith(`.${rule.pattern}`);
  }
  return new RegExp(rule.pattern).test(name);
}

/** The rule as an adblock or domains list writes it. */
function ruleText(r: RuleInput): string {
  if (r.syntax === "domain") return r.pattern;
  if (r.syntax === "regex") return `/${r.pattern}/`;
  if (r.syntax === "hosts") return `0.0.0.0 ${r.pattern}`;
  if (r.syntax === "wildcard") return `*.${r.pattern}`;
  return `${r.exception ? "@@" : ""}||${r.pattern}^${
    r.important ? "$important" : ""
  }`;
}
