/**
 * The main thread's copy of one packer's string table (see
 * query_event_pack.ts): it turns each PostedQueryEvents of that packer,
 * in the order they were taken, into a complete PackedQueryEvents.
 */
import type {
  PackedQueryEvents,
  PostedQueryEvents,
} from "./query_event_pack.ts";

/** One receiver per packer (per listener worker). */
export class QueryEventReceiver {
  #table = -1;
  /**
   * The table so far. Batches handed out share it; it only ever grows
   * until a batch starts a new table, so their indices stay valid.
   */
  #strings: string[] = [];

  /**
   * `posted` with every string of its table, or undefined when it does not
   * follow the previous batch (one went missing): its events cannot be
   * read, and the packer must start a new table (`restartTable()`).
   */
  receive(posted: PostedQueryEvents): PackedQueryEvents | undefined {
    if (posted.stringBase === 0) {
      this.#table = posted.table;
      this.#strings = [];
    } else if (
      posted.table !== this.#table ||
      posted.stringBase !== this.#strings.length
    ) {
      return undefined;
    }
    const strings = this.#strings;
    // A loop, not push(...): a spread of 100k arguments overflows the stack.
    for (let i = 0; i < posted.strings.length; i++) {
      strings.push(posted.strings[i]!);
    }
    return {
      count: posted.count,
      strings,
      times: posted.times,
      ints: posted.ints,
    };
  }
}
