/**
 * The query events of one worker (seed §7.1 step 13): one QueryEvent per
 * answer, kept in a bounded buffer that the worker drains to the main
 * thread in batches. Recording never waits and never grows without bound:
 * when the main thread falls behind, events are dropped and counted.
 */
import type { Request, Response } from "../../pipeline/mod.ts";
import type { QueryEvent } from "../../pipeline/query_event.ts";
import {
  type PostedQueryEvents,
  QueryEventPacker,
} from "../../pipeline/query_event_pack.ts";
import { summarizeCopy } from "./answer_summary.ts";

/** Events held between drains, at most. */
export const DEFAULT_MAX_PENDING = 20_000;

/** What a drain hands over. */
export interface QueryEventBatch {
  /**
   * Packed for the trip to the main thread; its `times` and `ints` are
   * arrays of their own, so they can be transferred rather than copied,
   * and its strings are what the buffer's string table gained.
   */
  events: PostedQueryEvents;
  /** Events dropped since the previous drain because the buffer was full. */
  dropped: number;
}

export interface QueryEventBuffer {
  /**
   * Records the answer `bytes` (null: nothing sent) to `req`, which took
   * `durationMs`; never throws.
   */
  record(
    req: Request,
    res: Response,
    bytes: Uint8Array | null,
    durationMs: number,
  ): void;
  /** The events since the previous drain, and how many were dropped. */
  drain(): QueryEventBatch;
  /**
   * Makes the next drain start a new string table (the receiver missed a
   * batch).
   */
  restartStrings(): void;
  /** Events waiting for the next drain. */
  readonly pending: number;
}

export interface QueryEventBufferOptions {
  /** @default 20_000 */
  maxPending?: number;
}

/** Creates an empty buffer. */
export function createQueryEventBuffer(
  opts: QueryEventBufferOptions = {},
): QueryEventBuffer {
  const maxPending = opts.maxPending ?? DEFAULT_MAX_PENDING;
  // Grows as needed up to maxPending; take() leaves its arrays for reuse.
  const packer = new QueryEventPacker(Math.min(maxPending, 1024));
  let dropped = 0;
  return {
    record(req, res, bytes, durationMs) {
      if (res.unlogged || req.policy?.queryLog === false) return;
      if (packer.count >= maxPending) {
        dropped++;
        return;
      }
      try {
        packer.add(eventOf(req, res, bytes, durationMs));
      } catch {
        dropped++; // a malformed request cannot become an event
      }
    },
    drain() {
      const batch = { events: packer.take(), dropped };
      dropped = 0;
      return batch;
    },
    restartStrings() {
      packer.restartTable();
    },
    get pending() {
      return packer.count;
    },
  };
}

/** The summary of an answer that was not sent. */
const NOTHING_SENT = { rcode: -1, authenticData: false, text: "" } as const;

function eventOf(
  req: Request,
  res: Response,
  bytes: Uint8Array | null,
  durationMs: number,
): QueryEvent {
  const question = req.query.question;
  const summary = bytes === null
    ? NOTHING_SENT
    : summarizeCopy(bytes, res.wireSource);
  const event: QueryEvent = {
    time: req.received,
    node: req.node.name,
    clientAddress: req.client.address,
    clientPort: req.client.port,
    transport: req.client.transport,
    groups: req.groups,
    qname: req.qname,
    qtype: question?.type ?? 0,
    qclass: question?.class ?? 0,
    rcode: summary.rcode,
    status: res.status,
    stage: res.stage,
    dnssecOk: req.query.edns?.dnssecOk ?? false,
    authenticData: summary.authenticData,
    answer: summary.text,
    responseSize: bytes?.length ?? 0,
    durationUs: Math.max(0, Math.round(durationMs * 1000)),
  };
  if (res.upstream !== undefined) event.upstream = res.upstream;
  if (res.list !== undefined) event.list = res.list;
  if (res.rule !== undefined) event.rule = res.rule;
  return event;
}
