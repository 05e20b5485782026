/**
 * The query-path metrics (kudurru_dns_*, kudurru_blocked_total,
 * kudurru_ratelimit_*): the workers' counter batches added into prom-client
 * metrics on the main thread. Every label is checked against a closed set
 * or capped here too, so a bug in a worker cannot grow a label set. Also
 * the block-list compile metrics (kudurru_blocklist_*), which the blocking
 * assembler feeds.
 */
import client from "prom-client";
import type { CounterDeltas } from "../listeners/worker_messages.ts";
import { STAGE_ORDER } from "../pipeline/stage.ts";
import {
  DURATION_BUCKETS_US,
  QTYPE_LABEL_NAMES,
  RCODE_LABEL_NAMES,
} from "../pipeline/stage_counters.ts";
import { STATUSES } from "../pipeline/status.ts";
import { BulkHistogram, CallbackGauge } from "./bulk_metrics.ts";
import { CappedLabel, closedLabel, isCount } from "./bounded_labels.ts";
import type { Registry } from "./registry.ts";

/** Transports now and planned; anything else is "other". */
const TRANSPORTS = new Set(["udp", "tcp", "dot", "doh", "doq", "doh3"]);
const QTYPES = new Set<string>(QTYPE_LABEL_NAMES);
const RCODES = new Set<string>(RCODE_LABEL_NAMES);
const STATUS_SET = new Set<string>(STATUSES);
const STAGES = new Set<string>([...STAGE_ORDER, "chain"]);

/** Distinct block list names kept as labels over the process's life. */
export const MAX_LIST_LABELS = 500;

/** The request duration buckets, in seconds (the workers count in µs). */
export const DURATION_BUCKETS_SECONDS: readonly number[] = DURATION_BUCKETS_US
  .map((us) => us / 1e6);

/** Socket counters by the `event` label of kudurru_dns_tcp_connections_total. */
const TCP_EVENTS = {
  tcpAccepted: "accepted",
  tcpRejected: "rejected",
  tcpEvicted: "evicted",
  tcpResetBeforeAccept: "reset_before_accept",
  tcpMalformed: "malformed",
  tcpIdleClosed: "idle_closed",
} as const;

/** DoQ connection counts (doq_stats.ts) by the `event` label of kudurru_dns_doq_connections_total. */
const DOQ_EVENTS = {
  accepted: "accepted",
  refused: "refused",
  evicted: "evicted",
  throttled: "throttled",
  protocolErrors: "protocol_error",
  stalled: "stalled",
  excessiveLoad: "excessive_load",
  idleClosed: "idle_closed",
} as const;

/** Socket counters by the `reason` label of kudurru_dns_dropped_total. */
const DROP_REASONS = {
  udpStopping: "shutting_down",
  proxyUnauthenticated: "proxy_unauthenticated",
  proxyUntrusted: "proxy_untrusted",
  proxyMalformed: "proxy_malformed",
} as const;

/** Adds the counts of a `{label: count}` map to `counter`. */
function addEach(
  counts: Record<string, number | undefined> | undefined,
  add: (key: string, n: number) => void,
): void {
  if (counts === undefined || counts === null) return;
  for (const [key, n] of Object.entries(counts)) if (isCount(n)) add(key, n);
}

/** Where a batch came from: the worker's transport. */
export interface BatchSource {
  transport: string;
}

/** Creates the query-path metrics on `registry`. */
export function createQueryMetrics(registry: Registry) {
  const registers = [registry];
  const queries = new client.Counter({
    name: "kudurru_dns_queries_total",
    help: "DNS queries received, by transport and query type.",
    labelNames: ["transport", "qtype"] as const,
    registers,
  });
  const responses = new client.Counter({
    name: "kudurru_dns_responses_total",
    help: "DNS answers sent, by why (status) and response code.",
    labelNames: ["status", "rcode"] as const,
    registers,
  });
  const dropped = new client.Counter({
    name: "kudurru_dns_dropped_total",
    help:
      "DNS queries that got no answer, by reason (a status, such as overloaded: too many queries waiting on upstreams (UDP, or TCP past its per-worker budget); shutting_down: UDP queries that came while the listener finished its last answers; proxy_unauthenticated, proxy_untrusted, proxy_malformed: a PROXYv2 header without the shared secret, from a peer not in listeners.proxyProtocolFrom, or malformed, dropped with its datagram or connection).",
    labelNames: ["reason"] as const,
    registers,
  });
  const duration = new BulkHistogram({
    name: "kudurru_dns_request_duration_seconds",
    help:
      "Time from a query's arrival to its answer, or to the decision to send none (dropped, rate-limited), by transport.",
    labelNames: ["transport"] as const,
    bounds: DURATION_BUCKETS_SECONDS,
    registers,
  });
  const udpOversize = new client.Counter({
    name: "kudurru_dns_udp_oversize_total",
    help:
      "UDP queries larger than 4096 octets, answered TC=1 unread so the client asks over TCP.",
    registers,
  });
  const tlsHandshakes = new client.Counter({
    name: "kudurru_dns_tls_handshake_failures_total",
    help:
      "TLS handshakes on the DoT, DoH and DoQ listeners that failed or timed out, by transport.",
    labelNames: ["transport"] as const,
    registers,
  });
  const dohBad = new client.Counter({
    name: "kudurru_dns_doh_bad_requests_total",
    help:
      "DoH requests refused with a 4xx: a bad method, media type, path or DNS message.",
    registers,
  });
  const doqConnections = new client.Counter({
    name: "kudurru_dns_doq_connections_total",
    help:
      "DNS-over-QUIC connection events: accepted, refused (at the cap, none idle), evicted (idle, closed at the cap for a new one), throttled (over the handshake rate, ignored), protocol_error, stalled, excessive_load, idle_closed.",
    labelNames: ["event"] as const,
    registers,
  });
  const stageErrors = new client.Counter({
    name: "kudurru_dns_stage_errors_total",
    help: "Stages that failed (the query was answered SERVFAIL), by stage.",
    labelNames: ["stage"] as const,
    registers,
  });
  const encodeErrors = new client.Counter({
    name: "kudurru_dns_encode_errors_total",
    help: "Answers that could not be encoded (answered SERVFAIL instead).",
    registers,
  });
  const sendErrors = new client.Counter({
    name: "kudurru_dns_send_errors_total",
    help: "Answers that could not be sent (client gone, buffer full).",
    labelNames: ["transport"] as const,
    registers,
  });
  const tcpConnections = new client.Counter({
    name: "kudurru_dns_tcp_connections_total",
    help:
      "DNS-over-TCP connection events: accepted, rejected (at the cap, none idle), evicted (idle, closed at the cap for a new one), reset_before_accept, malformed, idle_closed.",
    labelNames: ["event"] as const,
    registers,
  });
  const blocked = new client.Counter({
    name: "kudurru_blocked_total",
    help:
      `Answers blocked by a block list, by list (at most ${MAX_LIST_LABELS} lists, then "other").`,
    labelNames: ["list"] as const,
    registers,
  });
  const rateLimited = new client.Counter({
    name: "kudurru_ratelimit_limited_total",
    help:
      "UDP queries over the per-prefix rate limit, by action: drop (no answer) or truncate (TC=1).",
    labelNames: ["action"] as const,
    registers,
  });
  const bucketsEvicted = new client.Counter({
    name: "kudurru_ratelimit_buckets_evicted_total",
    help:
      "Rate-limit buckets dropped to stay within ratelimit.maxBuckets; a steady rise means more client prefixes than buckets (a spoofed flood), so limits reset early.",
    registers,
  });
  const lists = new CappedLabel(MAX_LIST_LABELS);

  return {
    record(deltas: CounterDeltas, from: BatchSource): void {
      const transport = closedLabel(from.transport, TRANSPORTS);
      const { socket, handler, detail, doq } = deltas;
      if (doq !== undefined && doq !== null) {
        for (const [key, event] of Object.entries(DOQ_EVENTS)) {
          const n = doq[key as keyof typeof DOQ_EVENTS];
          if (isCount(n)) doqConnections.inc({ event }, n);
        }
      }
      if (socket !== undefined) {
        if (isCount(socket.sendErrors)) {
          sendErrors.inc({ transport }, socket.sendErrors);
        }
        for (const [key, reason] of Object.entries(DROP_REASONS)) {
          const n = socket[key as keyof typeof DROP_REASONS];
          if (isCount(n)) dropped.inc({ reason }, n);
        }
        if (isCount(socket.tlsHandshakeFailed)) {
          tlsHandshakes.inc({ transport }, socket.tlsHandshakeFailed);
        }
        if (isCount(socket.dohBadRequest)) dohBad.inc(socket.dohBadRequest);
        if (isCount(socket.udpOversize)) udpOversize.inc(socket.udpOversize);
        for (const [key, event] of Object.entries(TCP_EVENTS)) {
          const n = socket[key as keyof typeof TCP_EVENTS];
          if (isCount(n)) tcpConnections.inc({ event }, n);
        }
      }
      if (handler !== undefined) {
        addEach(
          handler.stageErrors,
          (stage, n) =>
            stageErrors.inc({ stage: closedLabel(stage, STAGES) }, n),
        );
        if (isCount(handler.encodeErrors)) {
          encodeErrors.inc(handler.encodeErrors);
        }
      }
      const evicted = deltas.rateLimit?.bucketsEvicted;
      if (isCount(evicted)) bucketsEvicted.inc(evicted);
      if (detail === undefined) {
        // A pipeline without detail counts: queries by transport only.
        addEach(handler?.queries, (t, n) =>
          queries.inc({
            transport: closedLabel(t, TRANSPORTS),
            qtype: "NONE",
          }, n));
        return;
      }
      for (const [t, byType] of Object.entries(detail.queriesByType ?? {})) {
        addEach(byType, (qtype, n) =>
          queries.inc({
            transport: closedLabel(t, TRANSPORTS),
            qtype: closedLabel(qtype, QTYPES, "OTHER"),
          }, n));
      }
      for (const [status, byRcode] of Object.entries(detail.answers ?? {})) {
        addEach(byRcode, (rcode, n) =>
          responses.inc({
            status: closedLabel(status, STATUS_SET),
            rcode: closedLabel(rcode, RCODES, "OTHER"),
          }, n));
      }
      addEach(
        detail.drops,
        (status, n) =>
          dropped.inc({ reason: closedLabel(status, STATUS_SET) }, n),
      );
      if (detail.durations !== undefined) {
        duration.add(
          { transport },
          detail.durations.counts,
          detail.durations.sumUs / 1e6,
        );
      }
      addEach(
        detail.blockedByList,
        (list, n) => blocked.inc({ list: lists.of(list) }, n),
      );
      const limited = detail.rateLimited;
      if (limited !== undefined) {
        if (isCount(limited.dropped)) {
          rateLimited.inc({ action: "drop" }, limited.dropped);
        }
        if (isCount(limited.truncated)) {
          rateLimited.inc({ action: "truncate" }, limited.truncated);
        }
      }
    },
  };
}

/** What the blocking assembler reports about compiling block lists. */
export interface BlockListMetrics {
  /** A block-list compile failed (its worker crashed); it is retried. */
  compileFailed(): void;
  /** Where kudurru_blocklist_compiles_pending reads its value at scrape time. */
  readPendingFrom(read: () => number): void;
}

/**
 * The block-list compile metrics on `registry`; without one they are kept
 * but not exposed.
 */
export function createBlockListMetrics(registry?: Registry): BlockListMetrics {
  const registers = registry ? [registry] : [];
  const failures = new client.Counter({
    name: "kudurru_blocklist_compile_failures_total",
    help:
      "Block-list compiles that failed (the compile worker crashed); each is tried again in a fresh worker, 1 s doubling to 5 min later, while the list keeps its last rules.",
    registers,
  });
  let pending: () => number | undefined = () => undefined;
  new CallbackGauge({
    name: "kudurru_blocklist_compiles_pending",
    help:
      "BlockLists whose newest spec or body is not compiled yet on this node (queued, compiling, or waiting to be tried again); they serve their last compile meanwhile, or nothing before their first.",
    read: () => pending(),
    registers,
  });
  return {
    compileFailed: () => failures.inc(),
    readPendingFrom(read) {
      pending = read;
    },
  };
}
