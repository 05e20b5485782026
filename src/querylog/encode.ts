/**
 * QueryEvent → the integers of one events row: every string goes through a
 * dictionary, enums through the labels table, the DO/AD bits into `flags`.
 * Runs inside the writer's batch transaction (new dictionary rows belong to
 * the batch that needed them).
 */
import type { DatabaseSync } from "node:sqlite";
import type { QueryEvent } from "../pipeline/query_event.ts";
import { Dictionary, type DictionaryTable } from "./dictionary.ts";
import type { EventFilter } from "./event_filter.ts";
import { minuteOf } from "./settings.ts";

/** `flags` bits. */
export const FLAG_DO = 1;
export const FLAG_AD = 2;

/** Statuses the rollups count as blocked. */
export const BLOCKED_STATUSES: ReadonlySet<string> = new Set([
  "blocked_list",
  "blocked_service",
]);
/** Statuses the upstream rollup counts as errors. */
export const UPSTREAM_ERROR_STATUSES: ReadonlySet<string> = new Set([
  "servfail_upstream",
  "timeout_upstream",
]);

/** One event as integers (dictionary ids), plus what the rollups need. */
export interface EncodedEvent {
  time: number;
  node: number;
  client: number;
  port: number;
  transport: number;
  qname: number;
  qtype: number;
  qclass: number;
  rcode: number;
  status: number;
  stage: number;
  upstream: number | null;
  list: number | null;
  rule: number | null;
  flags: number;
  answer: number | null;
  size: number;
  durationUs: number;
  groups: number | null;
  blocked: boolean;
  upstreamError: boolean;
}

/** An event the writer cannot store (counted, never thrown out of enqueue). */
export class InvalidEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidEventError";
  }
}

/** How many strings each dictionary keeps in memory. */
export interface DictionaryCacheSizes {
  names: number;
  clients: number;
  answers: number;
  labels: number;
}

export const DEFAULT_CACHE_SIZES: DictionaryCacheSizes = {
  names: 100_000,
  clients: 20_000,
  answers: 100_000,
  labels: 10_000,
};

const LABEL_KINDS = [
  "node",
  "status",
  "stage",
  "transport",
  "upstream",
  "list",
  "rule",
  "groups",
] as const;
export type LabelKind = typeof LABEL_KINDS[number];

/** The dictionaries of one connection, and the encoding that uses them. */
export class EventEncoder {
  readonly names: Dictionary;
  readonly clients: Dictionary;
  readonly answers: Dictionary;
  readonly labels: Record<LabelKind, Dictionary>;

  constructor(db: DatabaseSync, sizes = DEFAULT_CACHE_SIZES) {
    const dict = (table: DictionaryTable, size: number, kind?: string) =>
      new Dictionary(db, table, kind, size);
    this.names = dict("names", sizes.names);
    this.clients = dict("clients", sizes.clients);
    this.answers = dict("answers", sizes.answers);
    this.labels = Object.fromEntries(
      LABEL_KINDS.map((kind) => [kind, dict("labels", sizes.labels, kind)]),
    ) as Record<LabelKind, Dictionary>;
  }

  /**
   * The row for `event` under `filter`'s privacy mode; with privacy "none"
   * only status, stage and upstream are looked up (no row is written).
   *
   * @throws {InvalidEventError} when a required field is missing or not the type QueryEvent says
   */
  encode(event: QueryEvent, filter: EventFilter): EncodedEvent {
    const time = event.time;
    if (typeof time !== "number" || !Number.isFinite(time)) {
      throw new InvalidEventError("time is not a finite number");
    }
    const minute = minuteOf(time);
    const status = text(event.status, "status");
    const label = (kind: LabelKind, value: string) =>
      this.labels[kind].idOf(value, minute);
    const optional = (kind: LabelKind, value: string | undefined) =>
      typeof value === "string" && value !== "" ? label(kind, value) : null;
    const upstream = optional("upstream", event.upstream);
    const statusId = label("status", status);
    const stage = label("stage", text(event.stage, "stage"));
    const blocked = BLOCKED_STATUSES.has(status);
    const upstreamError = UPSTREAM_ERROR_STATUSES.has(status);
    const durationUs = int(event.durationUs);
    if (filter.privacy === "none") {
      return {
        ...EMPTY_ROW,
        time,
        status: statusId,
        stage,
        upstream,
        durationUs,
        blocked,
        upstreamError,
      };
    }
    const qname = text(event.qname, "qname");
    const address = text(event.clientAddress, "clientAddress");
    return {
      time,
      node: label("node", text(event.node, "node")),
      client: this.clients.idOf(filter.clientText(address), minute),
      port: filter.port(int(event.clientPort)),
      transport: label("transport", text(event.transport, "transport")),
      qname: this.names.idOf(filter.qnameText(qname), minute),
      qtype: int(event.qtype),
      qclass: int(event.qclass),
      rcode: int(event.rcode),
      status: statusId,
      stage,
      upstream,
      list: optional("list", event.list),
      rule: optional("rule", event.rule),
      flags: (event.dnssecOk === true ? FLAG_DO : 0) |
        (event.authenticData === true ? FLAG_AD : 0),
      answer: typeof event.answer === "string" &&
          filter.answerText(event.answer) !== ""
        ? this.answers.idOf(filter.answerText(event.answer), minute)
        : null,
      size: int(event.responseSize),
      durationUs,
      groups: Array.isArray(event.groups) && event.groups.length > 0
        ? label("groups", event.groups.join(","))
        : null,
      blocked,
      upstreamError,
    };
  }

  /** Every dictionary, for bumps and resets. */
  all(): Dictionary[] {
    return [
      this.names,
      this.clients,
      this.answers,
      ...Object.values(this.labels),
    ];
  }
}

const EMPTY_ROW: EncodedEvent = {
  time: 0,
  node: 0,
  client: 0,
  port: 0,
  transport: 0,
  qname: 0,
  qtype: 0,
  qclass: 0,
  rcode: 0,
  status: 0,
  stage: 0,
  upstream: null,
  list: null,
  rule: null,
  flags: 0,
  answer: null,
  size: 0,
  durationUs: 0,
  groups: null,
  blocked: false,
  upstreamError: false,
};

function text(value: unknown, field: string): string {
  if (typeof value !== "string") {
    throw new InvalidEventError(`${field} is not a string`);
  }
  return value;
}

/** Numbers the schema stores as integers; anything else counts as 0. */
function int(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value)
    ? Math.round(value)
    : 0;
}
