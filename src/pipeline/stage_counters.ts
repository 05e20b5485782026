/**
 * Query-path counters, kept in plain numbers inside a worker and drained in
 * batches to the main thread, which owns the Prometheus registry. Every
 * label set is closed (transports, rcode names, statuses, stage names), so a
 * hostile client cannot grow them.
 */
import type { Transport } from "./handler.ts";
import type { AnswerSource, Response } from "./response.ts";
import type { Status } from "./status.ts";

/** Rcode labels; anything else is counted as OTHER. */
export type RcodeLabel =
  | "NOERROR"
  | "FORMERR"
  | "SERVFAIL"
  | "NXDOMAIN"
  | "NOTIMP"
  | "REFUSED"
  | "BADVERS"
  | "OTHER";

const RCODE_LABELS: Record<number, RcodeLabel> = {
  0: "NOERROR",
  1: "FORMERR",
  2: "SERVFAIL",
  3: "NXDOMAIN",
  4: "NOTIMP",
  5: "REFUSED",
  16: "BADVERS",
};

/** The counts since the previous drain; keys with a zero count are left out. */
export interface CounterBatch {
  /** Queries received, by transport. */
  queries: Partial<Record<Transport, number>>;
  /** Answers sent, by rcode (drops have none). */
  responsesByRcode: Partial<Record<RcodeLabel, number>>;
  /** Answers and drops, by status. */
  responsesByStatus: Partial<Record<Status, number>>;
  /** Stages that threw (answered SERVFAIL by the chain), by stage. */
  stageErrors: Partial<Record<AnswerSource, number>>;
  /** Answers that could not be encoded (answered SERVFAIL by the handler). */
  encodeErrors: number;
}

/** The counters of one pipeline instance. */
export interface StageCounters {
  countQuery(transport: Transport): void;
  countResponse(res: Response): void;
  countStageError(stage: AnswerSource): void;
  countEncodeError(): void;
  /** Returns the counts since the previous drain and starts again from zero. */
  drain(): CounterBatch;
}

function emptyBatch(): CounterBatch {
  return {
    queries: {},
    responsesByRcode: {},
    responsesByStatus: {},
    stageErrors: {},
    encodeErrors: 0,
  };
}

function bump<K extends string>(
  counts: Partial<Record<K, number>>,
  key: K,
): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** The rcode of a response: the spec's, or the header's low 4 bits for wire answers. */
function rcodeOf(res: Response): number | undefined {
  if (res.message !== undefined) return res.message.rcode;
  if (res.wire !== undefined && res.wire.length >= 4) {
    return res.wire[3]! & 0x0f;
  }
  return undefined;
}

/** Fresh counters, all zero. */
export function createStageCounters(): StageCounters {
  let batch = emptyBatch();
  return {
    countQuery: (transport) => bump(batch.queries, transport),
    countResponse(res) {
      bump(batch.responsesByStatus, res.status);
      if (res.drop === true) return;
      const rcode = rcodeOf(res);
      if (rcode === undefined) return;
      bump(batch.responsesByRcode, RCODE_LABELS[rcode] ?? "OTHER");
    },
    countStageError: (stage) => bump(batch.stageErrors, stage),
    countEncodeError() {
      batch.encodeErrors++;
    },
    drain() {
      const out = batch;
      batch = emptyBatch();
      return out;
    },
  };
}
