/**
 * The verdict of a resolved policy on one name or address (seed §7.1 step
 * 7): allow lists first (a "matched" verdict allows, across every group's
 * lists), then the block lists in decision order, the first "matched" one
 * deciding. An "excepted" verdict (an `@@` rule of that list, not beaten by
 * `$important`) means that list does not block; later lists still may. A
 * question excepted and blocked by no list is allowlisted: its answer is
 * not inspected either (AdGuard Home's `@@` semantics, the usual way to
 * unbreak a site behind a blocked CNAME).
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

/** What firstBlock returns when no list blocks a name and one excepts it. */
export const EXCEPTED = "excepted";

/**
 * The first block list of `policy` that blocks `name`, ignoring allow
 * lists; EXCEPTED when none blocks it and an `@@` rule of one matched it
 * (the name was allowlisted by a list's own exception); undefined when no
 * list has anything to say about it.
 */
export function firstBlock(
  policy: ResolvedPolicy,
  name: string,
): ListHit | typeof EXCEPTED | undefined {
  const { block } = policy;
  let excepted = false;
  for (let i = 0; i < block.length; i++) {
    const list = block[i]!;
    const verdict = list.matcher.check(name);
    if (verdict?.outcome === "matched") return { list, rule: verdict.rule };
    if (verdict?.outcome === "excepted") excepted = true;
  }
  return excepted ? EXCEPTED : undefined;
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
  if (hit === undefined || hit === EXCEPTED || isAllowed(policy, text)) {
    return undefined;
  }
  return { list: hit.list, rule: `${label} ${text}: ${hit.rule}` };
}
