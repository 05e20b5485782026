/**
 * QueryEvents as they cross from a worker to the main thread: numbers in
 * two typed arrays (transferred, not copied) and strings as indices into a
 * table that the worker and the main thread both keep. A structured clone
 * of plain values cost ~0.8 µs per event on the sending worker alone; a
 * transfer costs nothing per event. Each string crosses once per table,
 * not once per batch: a zone's names are asked again and again, and the
 * fresh copy each query decodes then dies young instead of being kept for
 * the batch (and promoted by the garbage collector). The writer resolves
 * each distinct string of a batch once, not once per event. The main
 * thread hands a batch's arrays back once it has read them, and the packer
 * fills them again: fresh ones each batch (MBs at 150k q/s) cost the worker
 * ~0.12 µs per event in page faults.
 */
import type { QueryEvent } from "./query_event.ts";

/** Int32 values per event in `PackedQueryEvents.ints`. */
export const EVENT_INTS = 18;

/**
 * Where each field sits among one event's ints. String fields hold an
 * index into `strings`; the optional ones (upstream, list, rule) hold -1
 * when absent. `groups` is the groups joined with "," ("" for none).
 */
export const EV = {
  node: 0,
  client: 1,
  port: 2,
  transport: 3,
  groups: 4,
  qname: 5,
  qtype: 6,
  qclass: 7,
  rcode: 8,
  status: 9,
  stage: 10,
  upstream: 11,
  list: 12,
  rule: 13,
  flags: 14,
  answer: 15,
  size: 16,
  durationUs: 17,
} as const;

/** `flags` bits. */
export const FLAG_DO = 1;
export const FLAG_AD = 2;

/** A batch of events (see EV for the layout of `ints`). */
export interface PackedQueryEvents {
  count: number;
  /** Every string the batch names (and maybe more), each once. */
  strings: string[];
  /** Arrival time (epoch ms) per event. */
  times: Float64Array;
  /** EVENT_INTS values per event. */
  ints: Int32Array;
  /**
   * Called once, when the reader no longer needs the arrays; after it they
   * may be detached (handed back to the worker that filled them). Never
   * throws. Absent when nobody wants them back.
   */
  release?: () => void;
}

/**
 * A batch as a packer hands it over: `strings` holds only the strings
 * the table gained since the previous batch, at indices from `stringBase`
 * on. A batch with `stringBase` 0 starts a table, so it is also a complete
 * PackedQueryEvents; later ones need a QueryEventReceiver.
 */
export interface PostedQueryEvents extends PackedQueryEvents {
  /** Which table the indices refer to (a packer numbers its tables 0, 1, …). */
  table: number;
  /** The table index of `strings[0]`. */
  stringBase: number;
}

/**
 * What QueryEventPacker.add reads: a QueryEvent, or one object reused for
 * every event (its absent optional fields set to undefined), which spares
 * the hot path an allocation per query.
 */
export type PackableEvent =
  & Omit<QueryEvent, "upstream" | "list" | "rule">
  & {
    upstream?: string | undefined;
    list?: string | undefined;
    rule?: string | undefined;
  };

/**
 * Where one stored answer's name and answer text sit in a packer's table,
 * for the events that copy it (memo and cache hits): with it, their two
 * busiest strings need no lookup. The packer fills it in; a hint made for
 * another packer or table, or for other strings, is refreshed, never
 * trusted.
 */
export class PackHint {
  packer: QueryEventPacker | undefined;
  table = -1;
  qname = "";
  answer = "";
  qnameIndex = -1;
  answerIndex = -1;
}

/** Strings a packer's table holds before it starts a new one (at a take). */
export const MAX_TABLE_STRINGS = 65_536;

const INT32_MAX = 0x7fffffff;

/**
 * Pairs of returned arrays a packer keeps, at most: the writer holds about
 * a second of batches (four) and hands them back together.
 */
export const MAX_RECYCLED = 4;

/** The buffers of a returned batch, and how many events they hold. */
interface RecycledPair {
  times: ArrayBuffer;
  ints: ArrayBuffer;
  capacity: number;
}

/**
 * Collects events into one batch at a time. Its string table outlives the
 * batch, up to `maxTableStrings` (a flood of random names must not grow it
 * without bound); then the next batch starts a new one.
 */
export class QueryEventPacker {
  #table = 0;
  #index = new Map<string, number>();
  /** Strings added to the table since the last take(). */
  #newStrings: string[] = [];
  #restartAtTake = false;
  /**
   * Per string field, the string it held last and its index: most fields
   * repeat from one event to the next (the node, the transport, a status,
   * a client's groups), and `===` on the same string is cheaper than
   * hashing it for the table. Indexed by EV position.
   */
  readonly #recentText: (string | undefined)[] = [];
  readonly #recentIndex = new Int32Array(EVENT_INTS);
  /** A frozen groups array seen last (identify hands out one per client). */
  #recentGroups: readonly string[] | undefined;
  readonly #maxTableStrings: number;
  #times: Float64Array;
  #ints: Int32Array;
  #count = 0;
  /** Returned pairs (recycle), largest first. */
  #recycled: RecycledPair[] = [];

  constructor(initialCapacity = 1024, maxTableStrings = MAX_TABLE_STRINGS) {
    const capacity = Math.max(1, initialCapacity);
    this.#times = new Float64Array(capacity);
    this.#ints = new Int32Array(capacity * EVENT_INTS);
    this.#maxTableStrings = maxTableStrings;
  }

  /** Events added since the last take(). */
  get count(): number {
    return this.#count;
  }

  /** Adds `e`; `hint` is for events that copy one stored answer (PackHint). */
  add(e: PackableEvent, hint?: PackHint): void {
    if (this.#count === this.#times.length) this.#grow();
    const at = this.#count * EVENT_INTS;
    const ints = this.#ints;
    this.#times[this.#count] = e.time;
    ints[at + EV.node] = this.#field(EV.node, e.node);
    ints[at + EV.client] = this.#field(EV.client, e.clientAddress);
    ints[at + EV.port] = e.clientPort;
    ints[at + EV.transport] = this.#field(EV.transport, e.transport);
    ints[at + EV.groups] = this.#groups(e.groups);
    if (
      hint !== undefined &&
      (hint.packer !== this || hint.table !== this.#table ||
        hint.answer !== e.answer || hint.qname !== e.qname)
    ) {
      hint.qnameIndex = this.#field(EV.qname, e.qname);
      hint.answerIndex = this.#field(EV.answer, e.answer);
      hint.packer = this;
      hint.table = this.#table;
      hint.qname = e.qname;
      hint.answer = e.answer;
    }
    ints[at + EV.qname] = hint?.qnameIndex ?? this.#field(EV.qname, e.qname);
    ints[at + EV.qtype] = e.qtype;
    ints[at + EV.qclass] = e.qclass;
    ints[at + EV.rcode] = e.rcode;
    ints[at + EV.status] = this.#field(EV.status, e.status);
    ints[at + EV.stage] = this.#field(EV.stage, e.stage);
    ints[at + EV.upstream] = this.#optional(EV.upstream, e.upstream);
    ints[at + EV.list] = this.#optional(EV.list, e.list);
    ints[at + EV.rule] = this.#optional(EV.rule, e.rule);
    ints[at + EV.flags] = (e.dnssecOk ? FLAG_DO : 0) |
      (e.authenticData ? FLAG_AD : 0);
    ints[at + EV.answer] = hint?.answerIndex ??
      this.#field(EV.answer, e.answer);
    ints[at + EV.size] = e.responseSize;
    ints[at + EV.durationUs] = Math.min(INT32_MAX, e.durationUs);
    // Counted last: an event that threw half-way (a malformed one) is not
    // taken with stale values from an earlier batch in its slots.
    this.#count++;
  }

  /**
   * The events added so far, in arrays of their own (safe to transfer),
   * with the strings the table gained meanwhile; the packer starts empty
   * again. The arrays are exactly `count` events long, but may be views
   * on larger buffers (a recycled pair, or room for the next batches).
   */
  take(): PostedQueryEvents {
    const { times, ints } = this.#batchArrays(this.#count);
    times.set(this.#times.subarray(0, this.#count));
    ints.set(this.#ints.subarray(0, this.#count * EVENT_INTS));
    const batch: PostedQueryEvents = {
      count: this.#count,
      table: this.#table,
      stringBase: this.#index.size - this.#newStrings.length,
      strings: this.#newStrings,
      times,
      ints,
    };
    this.#newStrings = [];
    this.#count = 0;
    if (this.#restartAtTake || this.#index.size >= this.#maxTableStrings) {
      this.#startTable();
    }
    return batch;
  }

  /**
   * Takes back the arrays of a batch taken earlier, which their reader no
   * longer needs (the caller gives them up), for a later take() to fill.
   * Only the MAX_RECYCLED largest pairs are kept; a pair that cannot be a
   * batch's arrays (one buffer for both, a shared or empty one) is left to
   * the garbage collector.
   */
  recycle(times: Float64Array, ints: Int32Array): void {
    const pair = recycledPair(times, ints);
    if (pair === undefined) return;
    const pool = this.#recycled;
    pool.push(pair);
    pool.sort((a, b) => b.capacity - a.capacity);
    if (pool.length > MAX_RECYCLED) pool.pop();
  }

  /** Arrays for a batch of `count`: the smallest returned pair that fits, or new. */
  #batchArrays(count: number): { times: Float64Array; ints: Int32Array } {
    const pool = this.#recycled;
    // An empty batch (only drops to report) needs no pair.
    const at = count === 0
      ? -1
      : pool.findLastIndex((pair) => pair.capacity >= count);
    const pair = at === -1 ? newPair(count) : pool.splice(at, 1)[0]!;
    return {
      times: new Float64Array(pair.times, 0, count),
      ints: new Int32Array(pair.ints, 0, count * EVENT_INTS),
    };
  }

  /**
   * Makes the next batch start a new table (its receiver missed a batch):
   * at once when no event is waiting, else right after the next take().
   */
  restartTable(): void {
    if (this.#count === 0) this.#startTable();
    else this.#restartAtTake = true;
  }

  #startTable(): void {
    this.#table++;
    this.#index = new Map();
    this.#newStrings = [];
    this.#restartAtTake = false;
    this.#recentText.length = 0;
    this.#recentGroups = undefined;
  }

  /** The table index of `text` as the value of `field`. */
  #field(field: number, text: string): number {
    if (text === this.#recentText[field]) return this.#recentIndex[field]!;
    const index = this.#intern(text);
    this.#recentText[field] = text;
    this.#recentIndex[field] = index;
    return index;
  }

  #groups(groups: readonly string[]): number {
    if (groups === this.#recentGroups) return this.#recentIndex[EV.groups]!;
    // Group keys hold no commas ("namespace/name"), so one string will do.
    const index = this.#field(
      EV.groups,
      groups.length === 0 ? "" : groups.join(","),
    );
    // Only a frozen array is sure to hold the same groups next time.
    this.#recentGroups = Object.isFrozen(groups) ? groups : undefined;
    return index;
  }

  #intern(text: string): number {
    let index = this.#index.get(text);
    if (index === undefined) {
      index = this.#index.size;
      this.#newStrings.push(text);
      this.#index.set(text, index);
    }
    return index;
  }

  #optional(field: number, text: string | undefined): number {
    return text === undefined ? -1 : this.#field(field, text);
  }

  #grow(): void {
    const times = new Float64Array(this.#times.length * 2);
    times.set(this.#times);
    const ints = new Int32Array(this.#ints.length * 2);
    ints.set(this.#ints);
    this.#times = times;
    this.#ints = ints;
  }
}

/**
 * Buffers for `count` events and a quarter more: batches vary in size, and
 * a pair that holds only this one would not fit a later, larger one.
 */
function newPair(count: number): RecycledPair {
  const capacity = count + (count >> 2);
  return {
    times: new ArrayBuffer(capacity * Float64Array.BYTES_PER_ELEMENT),
    ints: new ArrayBuffer(capacity * EVENT_INTS * Int32Array.BYTES_PER_ELEMENT),
    capacity,
  };
}

/** The buffers of `times` and `ints` as a pair to fill, if they can be one. */
function recycledPair(
  times: Float64Array,
  ints: Int32Array,
): RecycledPair | undefined {
  const t = times.buffer;
  const i = ints.buffer;
  if (!(t instanceof ArrayBuffer && i instanceof ArrayBuffer) || t === i) {
    return undefined;
  }
  const capacity = Math.min(
    Math.floor(t.byteLength / Float64Array.BYTES_PER_ELEMENT),
    Math.floor(i.byteLength / (EVENT_INTS * Int32Array.BYTES_PER_ELEMENT)),
  );
  return capacity > 0 ? { times: t, ints: i, capacity } : undefined;
}

/** `events` as one complete batch (a table of its own). */
export function packQueryEvents(
  events: readonly QueryEvent[],
): PostedQueryEvents {
  const packer = new QueryEventPacker(events.length);
  for (const e of events) packer.add(e);
  return packer.take();
}

/** True when `value` has the shape of a PackedQueryEvents. */
export function isPackedQueryEvents(
  value: unknown,
): value is PackedQueryEvents {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<PackedQueryEvents>;
  return Number.isSafeInteger(v.count) && v.count! >= 0 &&
    Array.isArray(v.strings) &&
    v.times instanceof Float64Array && v.times.length === v.count &&
    v.ints instanceof Int32Array && v.ints.length === v.count! * EVENT_INTS &&
    (v.release === undefined || typeof v.release === "function");
}

/** True when `value` has the shape of a PostedQueryEvents. */
export function isPostedQueryEvents(
  value: unknown,
): value is PostedQueryEvents {
  if (!isPackedQueryEvents(value)) return false;
  const v = value as Partial<PostedQueryEvents>;
  return Number.isSafeInteger(v.table) &&
    Number.isSafeInteger(v.stringBase) && v.stringBase! >= 0;
}

/** The string fields every event has. */
const REQUIRED_STRINGS = [
  EV.node,
  EV.client,
  EV.transport,
  EV.groups,
  EV.qname,
  EV.status,
  EV.stage,
  EV.answer,
];

/**
 * The events of a batch as objects (tests, tools); a batch of the wrong
 * shape gives none, an event with a string index out of range is skipped.
 */
export function unpackQueryEvents(batch: unknown): QueryEvent[] {
  if (!isPackedQueryEvents(batch)) return [];
  const { strings, times, ints } = batch;
  const events: QueryEvent[] = [];
  for (let i = 0; i < batch.count; i++) {
    const at = i * EVENT_INTS;
    const str = (field: number) => {
      const index = ints[at + field]!;
      return index === -1 ? undefined : strings[index];
    };
    if (REQUIRED_STRINGS.some((f) => typeof str(f) !== "string")) continue;
    const groups = str(EV.groups)!;
    const flags = ints[at + EV.flags]!;
    const event: QueryEvent = {
      time: times[i]!,
      node: str(EV.node)!,
      clientAddress: str(EV.client)!,
      clientPort: ints[at + EV.port]!,
      transport: str(EV.transport) as QueryEvent["transport"],
      groups: groups === "" ? [] : groups.split(","),
      qname: str(EV.qname)!,
      qtype: ints[at + EV.qtype]!,
      qclass: ints[at + EV.qclass]!,
      rcode: ints[at + EV.rcode]!,
      status: str(EV.status) as QueryEvent["status"],
      stage: str(EV.stage) as QueryEvent["stage"],
      dnssecOk: (flags & FLAG_DO) !== 0,
      authenticData: (flags & FLAG_AD) !== 0,
      answer: str(EV.answer)!,
      responseSize: ints[at + EV.size]!,
      durationUs: ints[at + EV.durationUs]!,
    };
    const upstream = str(EV.upstream);
    const list = str(EV.list);
    const rule = str(EV.rule);
    if (upstream !== undefined) event.upstream = upstream;
    if (list !== undefined) event.list = list;
    if (rule !== undefined) event.rule = rule;
    events.push(event);
  }
  return events;
}
