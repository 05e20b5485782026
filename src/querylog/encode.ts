/**
 * Packed events (a worker's batch) → stored rows (chunk_codec.ts columns):
 * every string through its dictionary, enums through the labels table.
 * Events name strings by index into their worker's table, so each distinct
 * string is filtered and looked up once per minute (see ResolvedStrings);
 * per event only integers move. Runs inside the writer's batch transaction
 * (new dictionary rows belong to the batch that needed them).
 */
import type { DatabaseSync } from "node:sqlite";
import {
  EV,
  EVENT_INTS,
  FLAG_AD,
  FLAG_DO,
  type PackedQueryEvents,
} from "../pipeline/query_event_pack.ts";
import { C } from "./chunk_codec.ts";
import type { EncodedRows } from "./encoded_rows.ts";
import { Dictionary, type DictionaryTable } from "./dictionary.ts";
import type { EventFilter } from "./event_filter.ts";
import { MAX_FUTURE_MS, minuteOf } from "./settings.ts";

export { FLAG_AD, FLAG_DO };

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

/** `EncodedRows.kinds` bits. */
export const KIND_BLOCKED = 1;
export const KIND_UPSTREAM_ERROR = 2;

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

/** What encoding a stretch of a batch left out. */
export interface EncodeCounts {
  excluded: number;
  invalid: number;
  /** Why the last invalid event was refused. */
  lastInvalid?: string;
}

/** Each string field of a packed event and the column its id goes to. */
const STRING_FIELDS = [
  [EV.node, C.node],
  [EV.client, C.client],
  [EV.transport, C.transport],
  [EV.groups, C.groups],
  [EV.qname, C.qname],
  [EV.status, C.status],
  [EV.stage, C.stage],
  [EV.upstream, C.upstream],
  [EV.list, C.list],
  [EV.rule, C.rule],
  [EV.answer, C.answer],
] as const;
type Role = typeof STRING_FIELDS[number][0];
const OPTIONAL: ReadonlySet<number> = new Set([EV.upstream, EV.list, EV.rule]);
/** A string index that names no string: the event is invalid. */
const INVALID = -2;
/**
 * The string fields as parallel typed arrays, for the per-event loop: the
 * role (EV position), its column, its slot in ResolvedStrings (its
 * position in STRING_FIELDS) and whether it may be absent. The loop is a
 * fifth to a third of the writer's time at 150k events/s; reading these
 * instead of destructuring a tuple, calling a closure and asking a Set per
 * field made it ~23 % faster.
 */
interface FieldTable {
  roles: Int32Array;
  columns: Int32Array;
  slots: Int32Array;
  optional: Uint8Array;
}

function fieldTable(keep: (role: number) => boolean): FieldTable {
  const kept = STRING_FIELDS.map(([role, column], slot) => ({
    role,
    column,
    slot,
  })).filter((f) => keep(f.role));
  return {
    roles: Int32Array.from(kept, (f) => f.role),
    columns: Int32Array.from(kept, (f) => f.column),
    slots: Int32Array.from(kept, (f) => f.slot),
    optional: Uint8Array.from(kept, (f) => OPTIONAL.has(f.role) ? 1 : 0),
  };
}

const ALL_FIELDS = fieldTable(() => true);
/** What privacy "none" still needs (per-status and per-upstream counters). */
const FIELDS_WITHOUT_EVENTS = fieldTable((role) =>
  role === EV.status || role === EV.stage || role === EV.upstream
);
/** The slot after the roles': whether the string, as a qname, is excluded (1) or not (-1). */
const EXCLUDED_SLOT = STRING_FIELDS.length;
const SLOTS = STRING_FIELDS.length + 1;

/**
 * The stored ids of one string table's entries, per role, kept with the
 * table: a worker's table outlives its batches, and most of its strings
 * (a zone's names, their answers) come back batch after batch. An entry
 * counts only while its stamp is the encoder's generation, which moves on
 * with the minute (so each string is looked up, and its last_used bumped,
 * in every minute it is used), with the filter, and when the dictionaries
 * forget their ids (a rollback, a retention sweep).
 */
class ResolvedStrings {
  ids = new Int32Array(0);
  stamps = new Uint32Array(0);
  /** KIND_* bits of the strings used as a status. */
  statusKinds = new Uint8Array(0);

  /** Makes room for a table of `size` strings (entries may be forgotten). */
  fit(size: number): void {
    if (size <= this.statusKinds.length) return;
    const capacity = Math.max(size, this.statusKinds.length * 2, 64);
    this.ids = new Int32Array(capacity * SLOTS);
    this.stamps = new Uint32Array(capacity * SLOTS);
    this.statusKinds = new Uint8Array(capacity);
  }
}

function kindsOf(status: string): number {
  return (BLOCKED_STATUSES.has(status) ? KIND_BLOCKED : 0) |
    (UPSTREAM_ERROR_STATUSES.has(status) ? KIND_UPSTREAM_ERROR : 0);
}

/** The dictionaries of one connection, and the encoding that uses them. */
export class EventEncoder {
  /** Per string table (a worker's, shared by its batches). */
  readonly #resolved = new WeakMap<string[], ResolvedStrings>();
  /** What ResolvedStrings' stamps must equal (see there); never 0. */
  #generation = 1;
  #generationMinute = -1;
  #generationFilter: EventFilter | undefined;
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
   * Appends events [from, to) of `batch` that `filter` keeps to `out`.
   * Under privacy "none" only time, status, stage, upstream and duration
   * are filled in (no row is stored; the rollups still count them). A time
   * more than MAX_FUTURE_MS after `now` is stored as `now`.
   */
  encode(
    batch: PackedQueryEvents,
    from: number,
    to: number,
    filter: EventFilter,
    out: EncodedRows,
    now = Infinity,
  ): EncodeCounts {
    const counts: EncodeCounts = { excluded: 0, invalid: 0 };
    const { times, ints, strings } = batch;
    const timeOf = (i: number) => {
      const time = times[i]!;
      // Not finite: refused below, not mended.
      return Number.isFinite(time) && time > now + MAX_FUTURE_MS ? now : time;
    };
    let newest = -Infinity;
    for (let i = from; i < to; i++) {
      const time = timeOf(i);
      if (time > newest) newest = time;
    }
    // Every lookup of the batch is stamped with its newest minute: the
    // dictionaries' last_used may run ahead of real use, never behind.
    const minute = minuteOf(Number.isFinite(newest) ? newest : 0);
    const storeAll = filter.privacy !== "none";
    const fields = storeAll ? ALL_FIELDS : FIELDS_WITHOUT_EVENTS;
    const fieldCount = fields.roles.length;
    if (
      minute !== this.#generationMinute || filter !== this.#generationFilter
    ) {
      this.#generation++;
      this.#generationMinute = minute;
      this.#generationFilter = filter;
    }
    // Per role, string index → stored id, resolved on first use.
    let resolved = this.#resolved.get(strings);
    if (resolved === undefined) {
      resolved = new ResolvedStrings();
      this.#resolved.set(strings, resolved);
    }
    resolved.fit(strings.length);
    const { ids, stamps, statusKinds } = resolved;
    const serial = this.#generation;
    /** The stored id of string `index` as field `f`, looked up (not yet this generation). */
    const resolve = (f: number, index: number): number => {
      if (index < 0 || index >= strings.length) return INVALID;
      const slot = index * SLOTS + fields.slots[f]!;
      const text = strings[index];
      if (typeof text !== "string") return INVALID;
      const role = fields.roles[f] as Role;
      ids[slot] = this.#resolve(role, text, filter, minute);
      stamps[slot] = serial;
      if (role === EV.status) statusKinds[index] = kindsOf(text);
      return ids[slot]!;
    };
    const { roles, columns, slots, optional } = fields;
    const stringCount = strings.length;
    const nameExcluded = filter.excludesNames ? resolved : undefined;
    const clientExcluded = filter.excludesClients
      ? new Map<number, boolean>()
      : undefined;

    for (let i = from; i < to; i++) {
      const at = i * EVENT_INTS;
      const time = timeOf(i);
      if (!Number.isFinite(time)) {
        counts.invalid++;
        counts.lastInvalid = "time is not a finite number";
        continue;
      }
      if (
        (nameExcluded !== undefined &&
          this.#nameExcluded(
            batch,
            ints[at + EV.qname]!,
            filter,
            nameExcluded,
            serial,
          )) ||
        (clientExcluded !== undefined &&
          this.#clientExcluded(batch, at, filter, clientExcluded))
      ) {
        counts.excluded++;
        continue;
      }
      const row = out.push(0);
      const r = out.rows;
      let invalid = false;
      for (let f = 0; f < fieldCount; f++) {
        const index = ints[at + roles[f]!]!;
        // The common cases inline: a string resolved in this generation, or
        // an optional field left out.
        const slot = index * SLOTS + slots[f]!;
        const id = index >= 0 && index < stringCount && stamps[slot] === serial
          ? ids[slot]!
          : index === -1 && optional[f] === 1
          ? 0
          : resolve(f, index);
        if (id === INVALID) invalid = true;
        r[row + columns[f]!] = id;
      }
      if (invalid) {
        out.pop();
        counts.invalid++;
        counts.lastInvalid = "a string field names no string of its batch";
        continue;
      }
      out.kinds[out.count - 1] = statusKinds[ints[at + EV.status]!]!;
      r[row + C.time] = Math.floor(time);
      r[row + C.durationUs] = Math.max(0, ints[at + EV.durationUs]!);
      if (!storeAll) {
        for (const c of ZEROED_WITHOUT_EVENTS) r[row + c] = 0;
        continue;
      }
      r[row + C.port] = filter.port(ints[at + EV.port]!);
      r[row + C.qtype] = ints[at + EV.qtype]!;
      r[row + C.qclass] = ints[at + EV.qclass]!;
      r[row + C.rcode] = ints[at + EV.rcode]!;
      r[row + C.flags] = ints[at + EV.flags]! & (FLAG_DO | FLAG_AD);
      r[row + C.size] = ints[at + EV.size]!;
    }
    return counts;
  }

  /**
   * Makes every dictionary forget its cached ids (after a rollback or a
   * sweep of unused rows), and this encoder the ids it kept per table.
   */
  resetDictionaries(): void {
    for (const dictionary of this.all()) dictionary.reset();
    this.#generation++;
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

  /** The stored id of `text` in `role` (0: absent). */
  #resolve(
    role: Role,
    text: string,
    filter: EventFilter,
    minute: number,
  ): number {
    const label = (kind: LabelKind) => this.labels[kind].idOf(text, minute);
    switch (role) {
      case EV.client:
        return this.clients.idOf(filter.clientText(text), minute);
      case EV.qname:
        return this.names.idOf(filter.qnameText(text), minute);
      case EV.answer: {
        const answer = filter.answerText(text);
        return answer === "" ? 0 : this.answers.idOf(answer, minute);
      }
      case EV.rule: {
        const rule = filter.ruleText(text);
        return rule === "" ? 0 : this.labels.rule.idOf(rule, minute);
      }
      case EV.groups: {
        const groups = filter.groupsText(text);
        return groups === "" ? 0 : this.labels.groups.idOf(groups, minute);
      }
      case EV.node:
        return label("node");
      case EV.transport:
        return label("transport");
      case EV.status:
        return label("status");
      case EV.stage:
        return label("stage");
      default:
        // Optional labels: "" is as good as absent.
        return text === "" ? 0 : label(OPTIONAL_KINDS[role]!);
    }
  }

  #nameExcluded(
    batch: PackedQueryEvents,
    index: number,
    filter: EventFilter,
    memo: ResolvedStrings,
    serial: number,
  ): boolean {
    if (index < 0 || index >= batch.strings.length) return false; // invalid: counted later
    const at = index * SLOTS + EXCLUDED_SLOT;
    if (memo.stamps[at] !== serial) {
      const qname = batch.strings[index];
      memo.ids[at] = typeof qname === "string" && filter.nameExcluded(qname)
        ? 1
        : -1;
      memo.stamps[at] = serial;
    }
    return memo.ids[at] === 1;
  }

  #clientExcluded(
    batch: PackedQueryEvents,
    at: number,
    filter: EventFilter,
    memo: Map<number, boolean>,
  ): boolean {
    const client = batch.ints[at + EV.client]!;
    const groups = batch.ints[at + EV.groups]!;
    const key = client * batch.strings.length + groups;
    let hit = memo.get(key);
    if (hit === undefined) {
      const address = batch.strings[client];
      const joined = batch.strings[groups];
      hit = typeof address === "string" && typeof joined === "string" &&
        filter.clientExcluded(address, joined === "" ? [] : joined.split(","));
      memo.set(key, hit);
    }
    return hit;
  }
}

const OPTIONAL_KINDS: Partial<Record<Role, LabelKind>> = {
  [EV.groups]: "groups",
  [EV.upstream]: "upstream",
  [EV.list]: "list",
  [EV.rule]: "rule",
};

/** Columns left 0 under privacy "none". */
const ZEROED_WITHOUT_EVENTS = [
  C.node,
  C.client,
  C.port,
  C.transport,
  C.qname,
  C.qtype,
  C.qclass,
  C.rcode,
  C.list,
  C.rule,
  C.flags,
  C.answer,
  C.size,
  C.groups,
];
