/**
 * The verdict of a resolved policy on one name or address (seed §7.1 step
 * 7): allow lists first (a "matched" verdict allows, across every group's
 * lists), then the block lists in decision order, the first "matched" one
 * deciding. An "excepted" verdict (an `@@` rule of that list, not beaten by
 * `$important`) means that list does not block; later lists still may.
 */
import type { OpenedList, ResolvedPolicy } from "./policy_lists.ts";

/** A block: the list and the rule text to show for it. */
export interface ListHit {
  list: OpenedList;
  rule: string;
}

/** True when an allow list of `policy` allows `name`. */
export function isAllowed(policy: ResolvedPolicy, name: string): boolean {
  const { allow } = policy;
  for (let i = 0; i < allow.length; i++) {
    if (allow[i]!.matcher.check(name)?.outcome === "matched") return true;
  }
  return false;
}

/** The first block list of `policy` that blocks `name`, ignoring allow lists. */
export function firstBlock(
  policy: ResolvedPolicy,
  name: string,
): ListHit | undefined {
  const { block } = policy;
  for (let i = 0; i < block.length; i++) {
    const list = block[i]!;
    const verdict = list.matcher.check(name);
    if (verdict?.outcome === "matched") return { list, rule: verdict.rule };
  }
  return undefined;
}

/**
 * An item of an answer (a CNAME target, an address) judged like a question
 * name: allowed by an allow list means not blocked. The rule is prefixed
 * with what matched, e.g. `CNAME tracker.example.: ||tracker.example^`.
 */
export function judgeAnswerItem(
  policy: ResolvedPolicy,
  label: string,
  text: string,
): ListHit | undefined {
  const hit = firstBlock(policy, text);
  if (hit === undefined || isAllowed(policy, text)) return undefined;
  return { list: hit.list, rule: `${label} ${text}: ${hit.rule}` };
}
