/**
 * The Extended DNS Error (RFC 8914) a block carries, from the list and
 * rule that blocked: the blocked answer sends it, and the query log, which
 * keeps the list and rule, shows the same one.
 */
import { EDE } from "../../dns/wire/extended_error.ts";

/** The rule a block names when an allow-only policy filtered the name. */
export const ALLOW_ONLY_RULE = "allowOnly";

/** An INFO-CODE and its EXTRA-TEXT. */
export interface BlockReason {
  infoCode: number;
  text: string;
}

/**
 * 17 Filtered for an allow-only policy (`list` is then the policy's key),
 * 15 Blocked naming the list otherwise.
 */
export function blockReason(list: string, rule: string): BlockReason {
  return rule === ALLOW_ONLY_RULE
    ? {
      infoCode: EDE.FILTERED,
      text: `not on an allow list of allow-only policy ${list}`,
    }
    : { infoCode: EDE.BLOCKED, text: `blocked by ${list}` };
}
