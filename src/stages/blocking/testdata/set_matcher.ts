/**
 * Test double: a ListMatcher over plain arrays of rules, whose verdicts
 * come from the matcher's naive reference (src/blocking/matcher/testdata/
 * reference.ts), which the property tests hold to the compiled matcher:
 * a stage test that passes with it passes for the same reasons with the
 * real one. Used to tell a stage bug from a matcher bug; stage tests whose
 * outcome depends on the verdicts run with the real matcher too
 * (blocking_test.ts, verdicts_test.ts).
 */
import type {
  CompiledListData,
  ListMatcher,
  RuleInput,
} from "../../../blocking/types.ts";
import { referenceMatcher } from "../../../blocking/matcher/testdata/reference.ts";

/** What a list is besides its rules. */
export interface ListMeta {
  key: string;
  name: string;
  mode: "block" | "allow";
  response?: CompiledListData["response"];
}

/** A CompiledListData whose `data` is the rules themselves. */
export function setListData(
  meta: ListMeta,
  rules: readonly RuleInput[],
): CompiledListData {
  const data = [...rules];
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
  return {
    key: data.key,
    name: data.name,
    mode: data.mode,
    digest: data.digest,
    check: referenceMatcher(data.data as RuleInput[]),
  };
}
