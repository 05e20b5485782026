/**
 * What the rows of the blocking stage's table test are made of: a row, the
 * blocked answer it expects, and the helpers rows share.
 */
import type { PolicyDecision } from "../../../blocking/blocking_snapshot.ts";
import type { Status } from "../../../pipeline/status.ts";

/** The synthesised SOA of negative blocked answers, without its MINIMUM. */
export const SOA_TAIL =
  "IN SOA localhost. blocked.kudurru.invalid. 1 3600 600 86400";

export interface Blocked {
  rcode: string;
  answer?: string[];
  authority?: string[];
  list: string;
  rule: string;
  /** INFO-CODE and text; null: no EDE (the query had no EDNS). */
  ede: [number, string] | null;
}

export interface Row {
  name: string;
  q: string;
  policy?: Partial<PolicyDecision>;
  /** Answer records of the upstream's reply. */
  upstream?: string[];
  carrier?: "wire" | "message";
  status?: Status;
  /** @default true */
  edns?: boolean;
  /** Undefined: the upstream's answer passes untouched. */
  blocked?: Blocked;
  /**
   * The upstream's answer passes, naming the list and rule that let the
   * question or an answer item through (the query log's "allowed by").
   */
  allowed?: Allowed;
}

/** What let an answer through. */
export interface Allowed {
  list: string;
  rule: string;
}

export const ADS = ["dns/ads"];
export const BOTH = ["dns/ads", "dns/trackers"];

export function listBlock(
  list: string,
  rule: string,
  answer: string[] | undefined,
  authority?: string[],
  rcode = "NOERROR",
): Blocked {
  return {
    rcode,
    ...(answer && { answer }),
    ...(authority && { authority }),
    list,
    rule,
    ede: [15, `blocked by ${list}`],
  };
}
