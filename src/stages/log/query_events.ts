/**
 * The query events of one worker (docs/design.md#query-log): one QueryEvent per
 * answer, kept in a bounded buffer that the worker drains to the main
 * thread in batches. Recording never waits and never grows without bound:
 * when the main thread falls behind, events are dropped and counted.
 */
import type { Request } from "../../pipeline/request.ts";
import type { Response } from "../../pipeline/response.ts";
import {
  type PackableEvent,
  QueryEventPacker,
} from "../../pipeline/query_event_pack.ts";
import type {
  QueryEventBatch,
  QueryEventSource,
} from "../../pipeline/data_plane.ts";
import { type AnswerSummary, summarizeCopy } from "./answer_summary.ts";

/** Events held between drains, at most. */
export const DEFAULT_MAX_PENDING = 65_536;

export interface QueryEventBuffer extends QueryEventSource {
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
   * Takes back the arrays of a drained batch once the main thread has read
   * them, for a later drain to fill (QueryEventPacker.recycle).
   */
  recycle(times: Float64Array, ints: Int32Array): void;
  /**
   * Makes the next drain start a new string table (the receiver missed a
   * batch).
   */
  restartStrings(): void;
  /** Events waiting for the next drain. */
  readonly pending: number;
}

export interface QueryEventBufferOptions {
  /** @default 65_536 (a worker posts every 250 ms: ~260k q/s) */
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
  const scratch = blankEvent();
  return {
    record(req, res, bytes, durationMs) {
      if (res.unlogged || req.policy?.queryLog === false) return;
      if (packer.count >= maxPending) {
        dropped++;
        return;
      }
      try {
        const summary = bytes === null
          ? NOTHING_SENT
          : summarizeCopy(bytes, res.wireSource);
        const event = fillEvent(scratch, summary, req, res, bytes, durationMs);
        packer.add(event, summary.hint);
      } catch {
        dropped++; // a malformed request cannot become an event
      }
    },
    drain() {
      const batch = { events: packer.take(), dropped };
      dropped = 0;
      return batch;
    },
    recycle(times, ints) {
      packer.recycle(times, ints);
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
const NOTHING_SENT: AnswerSummary = {
  rcode: -1,
  authenticData: false,
  text: "",
};

/**
 * Fills `event` for one answer. The buffer reuses one event object: the
 * packer copies every field out at once, and a fresh object per query was
 * garbage the listener's collector had to sweep.
 */
function fillEvent(
  event: PackableEvent,
  summary: AnswerSummary,
  req: Request,
  res: Response,
  bytes: Uint8Array | null,
  durationMs: number,
): PackableEvent {
  const question = req.query.question;
  event.time = req.received;
  event.node = req.node.name;
  event.clientAddress = req.client.address;
  event.clientPort = req.client.port;
  event.transport = req.client.transport;
  event.groups = req.groups;
  event.qname = req.qname;
  event.qtype = question?.type ?? 0;
  event.qclass = question?.class ?? 0;
  // An answer made as a message knows its whole RCODE; the header's four
  // bits lose the extended ones (BADVERS is 0 there, 1 in the OPT).
  event.rcode = res.message?.rcode ?? summary.rcode;
  event.status = res.status;
  event.stage = res.stage;
  event.dnssecOk = req.query.edns?.dnssecOk ?? false;
  event.authenticData = summary.authenticData;
  // A FORMERR answer has nothing to summarise; why the query was refused
  // is what the log can tell.
  event.answer = req.malformed === undefined
    ? summary.text
    : `malformed: ${req.malformed.message}`;
  event.responseSize = bytes?.length ?? 0;
  event.durationUs = Math.max(0, Math.round(durationMs * 1000));
  event.upstream = res.upstream;
  event.list = res.list;
  event.rule = res.rule;
  return event;
}

/** An event object to fill, with every field present (one hidden class). */
function blankEvent(): PackableEvent {
  return {
    time: 0,
    node: "",
    clientAddress: "",
    clientPort: 0,
    transport: "udp",
    groups: [],
    qname: "",
    qtype: 0,
    qclass: 0,
    rcode: 0,
    status: "servfail",
    stage: "ingress",
    dnssecOk: false,
    authenticData: false,
    answer: "",
    responseSize: 0,
    durationUs: 0,
    upstream: undefined,
    list: undefined,
    rule: undefined,
  };
}
