/**
 * Query-path counters, kept in plain numbers inside a worker and drained in
 * batches to the main thread, which owns the Prometheus registry. Every
 * label set is closed (transports, rcode names, statuses, stage names,
 * qtype mnemonics, fixed duration buckets) or capped per batch (list
 * names), so a hostile client cannot grow them.
 *
 * Two drains: `drain()` keeps the summary counts the listeners have always
 * posted; `drainDetail()` carries what only the metrics need (qtypes,
 * rcode × status, durations, block lists, rate limiting), so the summary's
 * shape stays as its users expect.
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

/** Every rcode label, for checking labels on the main thread. */
export const RCODE_LABEL_NAMES: readonly RcodeLabel[] = [
  ...Object.values(RCODE_LABELS),
  "OTHER",
];

/** The query types counted by name; the rest are OTHER, no question is NONE. */
const QTYPE_LABELS = {
  1: "A",
  2: "NS",
  5: "CNAME",
  6: "SOA",
  12: "PTR",
  15: "MX",
  16: "TXT",
  28: "AAAA",
  33: "SRV",
  43: "DS",
  48: "DNSKEY",
  64: "SVCB",
  65: "HTTPS",
  251: "IXFR",
  252: "AXFR",
  255: "ANY",
  257: "CAA",
} as const;

/** A qtype label: a common type's mnemonic, OTHER, or NONE (no question). */
export type QtypeLabel =
  | (typeof QTYPE_LABELS)[keyof typeof QTYPE_LABELS]
  | "OTHER"
  | "NONE";

/** Every qtype label, for checking labels on the main thread. */
export const QTYPE_LABEL_NAMES: readonly QtypeLabel[] = [
  ...Object.values(QTYPE_LABELS),
  "OTHER",
  "NONE",
];

/** The label of a query type; undefined (no question, or not told) is NONE. */
export function qtypeLabel(type: number | undefined): QtypeLabel {
  if (type === undefined) return "NONE";
  return (QTYPE_LABELS as Record<number, QtypeLabel>)[type] ?? "OTHER";
}

/**
 * Upper bounds of the request duration buckets, in microseconds (50 µs to
 * 5 s). The main thread's histogram uses the same bounds in seconds.
 */
export const DURATION_BUCKETS_US: readonly number[] = [
  50,
  100,
  250,
  500,
  1_000,
  2_500,
  5_000,
  10_000,
  25_000,
  50_000,
  100_000,
  250_000,
  500_000,
  1_000_000,
  2_500_000,
  5_000_000,
];

/**
 * Distinct list names one batch keeps; further names count as "other". The
 * same as the metric's own cap (MAX_LIST_LABELS in src/metrics): a smaller
 * one put the blocks of some of 300 lists under "other", a different few
 * each second, while the metric had room for them all.
 */
export const MAX_LISTS_PER_BATCH = 500;
/** The list label that stands for names beyond the cap. */
export const OTHER_LIST = "other";

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

/** The metrics-only counts since the previous `drainDetail()`. */
export interface DetailBatch {
  /** Queries by transport and qtype label. */
  queriesByType: Partial<
    Record<Transport, Partial<Record<QtypeLabel, number>>>
  >;
  /** Answers sent, by status and rcode. */
  answers: Partial<Record<Status, Partial<Record<RcodeLabel, number>>>>;
  /** Queries that got nothing back, by status (dropped, rate_limited, …). */
  drops: Partial<Record<Status, number>>;
  /**
   * Request durations: `counts[i]` answers took at most
   * `DURATION_BUCKETS_US[i]` (and more than the bound before); the last
   * entry counts those above the last bound. Only answers whose duration
   * was given are counted.
   */
  durations: { counts: number[]; sumUs: number };
  /**
   * Answers blocked by a BlockList (status blocked_list), by list name; at
   * most MAX_LISTS_PER_BATCH names, the rest under "other". A
   * null-prototype record: list names are data, not property names.
   */
  blockedByList: Record<string, number>;
  /** Over-limit UDP queries: not answered, or answered TC=1. */
  rateLimited: { dropped: number; truncated: number };
}

/** The counters of one pipeline instance. */
export interface StageCounters {
  /** One query arrived; `qtype` is its question's type, if it has one. */
  countQuery(transport: Transport, qtype?: number): void;
  /**
   * One final answer (or drop); `durationUs` is the time from arrival,
   * when the caller measured it.
   */
  countResponse(res: Response, durationUs?: number): void;
  countStageError(stage: AnswerSource): void;
  countEncodeError(): void;
  /** Returns the counts since the previous drain and starts again from zero. */
  drain(): CounterBatch;
  /** Returns the metrics-only counts since the previous call; zero again after. */
  drainDetail(): DetailBatch;
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

function emptyDetail(): DetailBatch {
  return {
    queriesByType: {},
    answers: {},
    drops: {},
    durations: {
      counts: new Array(DURATION_BUCKETS_US.length + 1).fill(0),
      sumUs: 0,
    },
    blockedByList: Object.create(null),
    rateLimited: { dropped: 0, truncated: 0 },
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

/** The index of the bucket `us` falls in (the last one: above every bound). */
function bucketOf(us: number): number {
  let i = 0;
  while (i < DURATION_BUCKETS_US.length && us > DURATION_BUCKETS_US[i]!) i++;
  return i;
}

/** Fresh counters, all zero. */
export function createStageCounters(): StageCounters {
  let batch = emptyBatch();
  let detail = emptyDetail();
  let lists = 0;

  function countBlocked(list: string): void {
    const counts = detail.blockedByList;
    if (counts[list] === undefined) {
      if (lists >= MAX_LISTS_PER_BATCH) list = OTHER_LIST;
      else lists++;
    }
    counts[list] = (counts[list] ?? 0) + 1;
  }

  function countDuration(us: number): void {
    // A clock that went backwards or a bad value must not poison the sum.
    if (!(us >= 0) || !Number.isFinite(us)) return;
    detail.durations.counts[bucketOf(us)]!++;
    detail.durations.sumUs += us;
  }

  return {
    countQuery(transport, qtype) {
      bump(batch.queries, transport);
      const byType = detail.queriesByType[transport] ??= {};
      bump(byType, qtypeLabel(qtype));
    },
    countResponse(res, durationUs) {
      bump(batch.responsesByStatus, res.status);
      if (durationUs !== undefined) countDuration(durationUs);
      if (res.status === "blocked_list") {
        countBlocked(res.list ?? OTHER_LIST);
      }
      if (res.status === "rate_limited") {
        if (res.drop === true) detail.rateLimited.dropped++;
        else detail.rateLimited.truncated++;
      }
      const rcode = res.drop === true ? undefined : rcodeOf(res);
      if (rcode === undefined) {
        bump(detail.drops, res.status);
        return;
      }
      const label = RCODE_LABELS[rcode] ?? "OTHER";
      bump(batch.responsesByRcode, label);
      bump(detail.answers[res.status] ??= {}, label);
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
    drainDetail() {
      const out = detail;
      detail = emptyDetail();
      lists = 0;
      return out;
    },
  };
}
