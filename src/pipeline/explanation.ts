/**
 * Why a query would get the answer it gets (the API's "why"), as plain data
 * a worker posts to the main thread: the answer, which stage gave it and
 * what decided it (the client's groups, the policies that apply, the zone,
 * the list and rule that matched, the upstream group and the rule that
 * picked it). Made without forwarding, counting or logging anything.
 */
import type { Status } from "./status.ts";
import type { AnswerSource } from "./response.ts";

export interface Explanation {
  /** The question as asked (lowercased name, type mnemonic). */
  name: string;
  type: string;
  /** The client it was asked for. */
  client: string;
  status: Status;
  stage: AnswerSource;
  /** "NOERROR", "NXDOMAIN", …; "-" when nothing would be sent. */
  rcode: string;
  /** The answer section, as the query log shows it ("A 192.0.2.1, …"). */
  answer: string;
  /** The client's ClientGroups. */
  groups: string[];
  /** The policies that apply, highest priority first, and their lists. */
  policies: string[];
  blockLists: string[];
  allowLists: string[];
  /** The zone that covers the name, when one does. */
  zone?: string;
  /** The list and rule of a block, or of the allow that let it through. */
  list?: string;
  rule?: string;
  /**
   * Where it would be forwarded (a cache miss): the upstream group, and
   * the rule that picked it ("forward_zone", "conditional", "policy",
   * "default") with its suffix.
   */
  route?: { group: string; rule: string; suffix?: string };
  /** Why the query itself is malformed, when it is. */
  malformed?: string;
}
