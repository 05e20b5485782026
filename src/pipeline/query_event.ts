/**
 * One answered query, as the query log keeps it (docs/design.md#query-log):
 * who asked, what, what we answered, who answered and why. The log stage
 * builds one per answer; workers post them to the main thread in batches.
 * Flat plain data so a batch crosses to the main thread cheaply.
 */
import type { Transport } from "./handler.ts";
import type { AnswerSource } from "./response.ts";
import type { Status } from "./status.ts";

export interface QueryEvent {
  /** Epoch milliseconds when the query arrived. */
  time: number;
  /** The node that answered. */
  node: string;
  clientAddress: string;
  clientPort: number;
  transport: Transport;
  /** The client's groups ("namespace/name"). */
  groups: string[];
  /** Lowercase, fully qualified ("ads.example.com."). */
  qname: string;
  qtype: number;
  qclass: number;
  /** The response code sent (extended codes included); -1 when nothing was sent. */
  rcode: number;
  status: Status;
  /** The stage that answered. */
  stage: AnswerSource;
  /** The upstream server that answered (a configured name, never a raw address). */
  upstream?: string;
  /**
   * For blocks: the BlockList's name and the rule that matched. With any
   * other status: the list and rule that let the answer through (an allow
   * list, an `@@` exception), when one did.
   */
  list?: string;
  rule?: string;
  /** The query's DO bit. */
  dnssecOk: boolean;
  /** The answer's AD bit. */
  authenticData: boolean;
  /**
   * A short text of the answer section ("A 192.0.2.1, A 192.0.2.2",
   * "CNAME x.example.", at most 256 characters); "" when it is empty.
   */
  answer: string;
  /** Octets sent; 0 when nothing was sent. */
  responseSize: number;
  /** Microseconds from arrival to answer. */
  durationUs: number;
}
