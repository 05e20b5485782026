/**
 * The verdict of a resolved policy on one name or address: allow lists first
 * (any rule of an allow list allows, `@@` or not, across every group's lists),
 * then the block lists in decision order, the first "matched" one deciding. An
 * "excepted" verdict (an `@@` rule of that list, not beaten by `$important`)
 * means that list does not block; later lists still may: an exception is scoped
 * to its own list (docs/blocking.md), unlike AdGuard Home's, which spans every
 * filter. A question excepted and blocked by no list is allowlisted: its answer
 * is not inspected either (AdGuard Home's `@@` semantics, the usual way to
 * unbreak a site behind a blocked CNAME). An `@@` rule needs no block rule of
 * its own list for that.
 */
import type { OpenedList, ResolvedPolicy } from "./policy_lists.ts";

/** What decided a name: the list, the rule to show, and which way. */
export interface ListHit {
  list: OpenedList;
  rule: string;
  /**
   * True when the hit lets the name through (an allow list, or an `@@`
   * exception no list overrides); the query log names it ("allowed by").
   */
  allows: boolean;
}

/**
 * The allow list of `policy` that allows `name`, if any. Every rule of a
 * list used for allowing allows, whatever the list's mode: an `@@` line of a
 * block-mode list named in allowListRefs (AdGuard Home's way to write an
 * allowlist) as much as a plain one.
 */
export function allowedBy(
  policy: ResolvedPolicy,
  name: string,
): ListHit | undefined {
  const { allow } = policy;
  for (let i = 0; i < allow.length; i++) {
    const verdict = allow[i]!.matcher.check(name);
    if (verdict !== null) {
      return { list: allow[i]!, rule: verdict.rule, allows: true };
    }
  }
  return undefined;
}

/**
 * The first block list of `policy` that blocks `name`, ignoring allow
 * lists; when none blocks it and an `@@` rule of one matched, that
 * exception (`allows` true: the name is allowlisted); undefined when no
 * list has anything to say about it. Allocates only on a verdict.
 */
export function firstBlock(
  policy: ResolvedPolicy,
  name: string,
): ListHit | undefined {
  const { block } = policy;
  let excepted = -1;
  let exceptionRule = "";
  for (let i = 0; i < block.length; i++) {
    const verdict = block[i]!.matcher.check(name);
    if (verdict === null) continue;
    if (verdict.outcome === "matched") {
      return { list: block[i]!, rule: verdict.rule, allows: false };
    }
    if (excepted < 0) {
      excepted = i;
      exceptionRule = verdict.rule;
    }
  }
  return excepted < 0
    ? undefined
    : { list: block[excepted]!, rule: exceptionRule, allows: true };
}

/**
 * An item of an answer (a CNAME target, an address) judged like a question
 * name, its rule prefixed with what matched, e.g. `CNAME tracker.example.:
 * ||tracker.example^`: a block, or what let a blocked or excepted item
 * through (an allow list, an exception). Allow lists are asked only when a
 * block list matched, so a clean item costs one check per block list.
 */
export function judgeAnswerItem(
  policy: ResolvedPolicy,
  label: string,
  text: string,
): ListHit | undefined {
  let hit = firstBlock(policy, text);
  if (hit === undefined) return undefined;
  if (!hit.allows) hit = allowedBy(policy, text) ?? hit;
  return {
    list: hit.list,
    rule: `${label} ${text}: ${hit.rule}`,
    allows: hit.allows,
  };
}
