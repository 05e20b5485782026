/**
 * The query events of one worker (seed §7.1 step 13): one QueryEvent per
 * answer, kept in a bounded buffer that the worker drains to the main
 * thread in batches. Recording never waits and never grows without bound:
 * when the main thread falls behind, events are dropped and counted.
 */
import type { Request, Response } from "../../pipeline/mod.ts";
import type { QueryEvent } from "../../pipeline/query_event.ts";
import {
  EVENT_FIELDS,
  type PackedQueryEvents,
  packQueryEvent,
} from "../../pipeline/query_event_pack.ts";
import { summarizeAnswer } from "./answer_summary.ts";

/** Events held between drains, at most. */
export const DEFAULT_MAX_PENDING = 20_000;

/** What a drain hands over. */
export interface QueryEventBatch {
  /** Packed for the trip to the main thread (`unpackQueryEvents`). */
  events: PackedQueryEvents;
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
  let events: PackedQueryEvents = [];
  let dropped = 0;
  const maxValues = maxPending * EVENT_FIELDS;
  return {
    record(req, res, bytes, durationMs) {
      if (res.unlogged || req.policy?.queryLog === false) return;
      if (events.length >= maxValues) {
        dropped++;
        return;
      }
      try {
        packQueryEvent(events, eventOf(req, res, bytes, durationMs));
      } catch {
        dropped++; // a malformed request cannot become an event
      }
    },
    drain() {
      const batch = { events, dropped };
      events = [];
      dropped = 0;
      return batch;
    },
    get pending() {
      return events.length / EVENT_FIELDS;
    },
  };
}

function eventOf(
  req: Request,
  res: Response,
  bytes: Uint8Array | null,
  durationMs: number,
): QueryEvent {
  const question = req.query.question;
  const summary = bytes === null
    ? { rcode: -1, authenticData: false, text: "" }
    : summarizeAnswer(bytes);
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
