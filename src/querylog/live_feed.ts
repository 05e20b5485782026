/**
 * The query log as it is written, for whoever follows it live (the API's
 * `GET /api/v1/querylog/tail`). The writer publishes each batch it queues,
 * after the `querylog` exclusions and privacy mode, so a follower sees what
 * the log keeps and nothing it does not; with no follower, publishing costs
 * one check per batch and nothing is decoded.
 *
 * Each follower has a filter and a bounded buffer. Publishing never waits
 * and never grows memory: a follower that reads too slowly loses its oldest
 * events and is told how many (`LiveBatch.dropped`). Events are numbered as
 * they are published (`seq`, rising from 1 in each process, with gaps where
 * events were excluded), so a follower can tell events apart; the numbers
 * are not the log's event ids (an event has none until its batch is
 * written).
 */
import ipaddr from "ipaddr.js";
import { isCidr, isIpAddress } from "../dns/ip_text.ts";
import type { QueryEvent } from "../pipeline/query_event.ts";
import {
  EV,
  EVENT_INTS,
  FLAG_AD,
  FLAG_DO,
  type PackedQueryEvents,
} from "../pipeline/query_event_pack.ts";
import { BLOCKED_STATUSES } from "./encode.ts";
import { type EventFilter, HIDDEN_CLIENT } from "./event_filter.ts";
import {
  clientSpellings,
  type EventFilters,
  FilterError,
} from "./search_filters.ts";
import { MAX_FUTURE_MS } from "./settings.ts";

/** An event as published: the event as the log stores it, and its number. */
export interface LiveEvent {
  /** Publication order in this process, from 1. */
  seq: number;
  event: QueryEvent;
}

/** What a follower reads at once. */
export interface LiveBatch {
  /** Oldest first. */
  events: LiveEvent[];
  /** Matching events lost since the last read (the buffer was full). */
  dropped: number;
}

/** Which events a follower wants. */
export type LiveFilter = (event: QueryEvent) => boolean;

export interface SubscribeOptions {
  /** @default every event */
  filter?: LiveFilter;
  /** Events held for the follower at most. @default DEFAULT_BUFFER_EVENTS */
  bufferSize?: number;
}

/** Events a follower's buffer holds by default (~0.3 MB). */
export const DEFAULT_BUFFER_EVENTS = 1000;
/** Followers at once, by default. */
export const DEFAULT_MAX_SUBSCRIBERS = 32;

/** subscribe() when the feed has as many followers as it takes. */
export class TooManySubscribersError extends Error {
  constructor(readonly max: number) {
    super(`The live query log has ${max} followers already`);
    this.name = "TooManySubscribersError";
  }
}

/** One follower's view of the feed. */
export interface LiveSubscription {
  /**
   * Waits until events (or a drop) are there, `timeoutMs` passes or
   * `signal` aborts, and takes what is buffered: possibly nothing.
   */
  next(timeoutMs: number, signal?: AbortSignal): Promise<LiveBatch>;
  /** Stops following; the buffer is let go. Idempotent. */
  close(): void;
}

export class LiveFeed {
  readonly #subscribers = new Set<Subscriber>();
  readonly #maxSubscribers: number;
  #seq = 0;

  constructor(opts: { maxSubscribers?: number } = {}) {
    this.#maxSubscribers = opts.maxSubscribers ?? DEFAULT_MAX_SUBSCRIBERS;
  }

  /** True while someone follows: only then is publishing worth decoding for. */
  get listening(): boolean {
    return this.#subscribers.size > 0;
  }

  /** Followers now. */
  get subscribers(): number {
    return this.#subscribers.size;
  }

  /**
   * Offers `events` (as the log stores them: excluded ones left out, the
   * privacy mode applied) to every follower. Never throws, never waits.
   */
  publish(events: readonly QueryEvent[]): void {
    if (this.#subscribers.size === 0) return;
    for (const event of events) {
      const live: LiveEvent = { seq: ++this.#seq, event };
      for (const subscriber of this.#subscribers) subscriber.offer(live);
    }
  }

  /**
   * Events [from, to) of a packed batch (a worker's, as the writer queues
   * it), as the log would store them under `filter` (its exclusions and
   * privacy mode; nothing under privacy "none", which stores no events).
   * Reads the batch's arrays now: call it before they are released. Does
   * nothing without followers. Never throws.
   */
  publishPacked(
    batch: PackedQueryEvents,
    from: number,
    to: number,
    filter: EventFilter,
    now = Infinity,
  ): void {
    if (this.#subscribers.size === 0 || filter.privacy === "none") return;
    try {
      const start = Math.max(0, from);
      const end = Math.min(to, batch.count);
      const seq = this.#seq;
      this.#seq += Math.max(0, end - start);
      // Newest first, and only as far back as a follower has room for: a
      // busy server publishes tens of thousands of events a second, a
      // follower keeps its buffer's worth, and decoding the rest was most
      // of what following cost. Past that the walk goes on only to count
      // what a filtered follower would have wanted.
      const subscribers = [...this.#subscribers];
      const taken: LiveEvent[][] = subscribers.map(() => []);
      const mustCount = subscribers.some((s) => s.filtered);
      let withRoom = subscribers.length;
      let i = end - 1;
      for (; i >= start && (withRoom > 0 || mustCount); i--) {
        const unpacked = unpackOne(batch, i);
        if (unpacked === undefined || filter.excludes(unpacked)) continue;
        const event = asStored(unpacked, filter, now);
        const live: LiveEvent = { seq: seq + 1 + i - start, event };
        for (let k = 0; k < subscribers.length; k++) {
          const subscriber = subscribers[k]!;
          if (!subscriber.accepts(event)) continue;
          const mine = taken[k]!;
          if (mine.length >= subscriber.capacity) subscriber.lost(1);
          else if (mine.push(live) === subscriber.capacity) withRoom--;
        }
      }
      // Every follower was full and none filters: the events the log
      // keeps before `i` are all lost to each of them.
      const unread = keptBetween(batch, start, i + 1, filter);
      subscribers.forEach((subscriber, k) => {
        if (unread > 0) subscriber.lost(unread);
        subscriber.keep(taken[k]!.reverse());
      });
    } catch {
      // Following is best effort: the log itself must not notice.
    }
  }

  /**
   * A new follower.
   * @throws {TooManySubscribersError} at the limit
   */
  subscribe(opts: SubscribeOptions = {}): LiveSubscription {
    if (this.#subscribers.size >= this.#maxSubscribers) {
      throw new TooManySubscribersError(this.#maxSubscribers);
    }
    const subscriber = new Subscriber(
      opts.filter,
      Math.max(1, Math.trunc(opts.bufferSize ?? DEFAULT_BUFFER_EVENTS)),
      (s) => this.#subscribers.delete(s),
    );
    this.#subscribers.add(subscriber);
    return subscriber;
  }
}

/** A follower: a ring buffer that drops its oldest events when full. */
class Subscriber implements LiveSubscription {
  readonly #filter: LiveFilter | undefined;
  readonly #ring: (LiveEvent | undefined)[];
  #head = 0;
  #size = 0;
  #dropped = 0;
  #wake: (() => void) | undefined;
  #closed = false;
  readonly #onClose: (s: Subscriber) => void;

  constructor(
    filter: LiveFilter | undefined,
    capacity: number,
    onClose: (s: Subscriber) => void,
  ) {
    this.#filter = filter;
    this.#ring = new Array(capacity);
    this.#onClose = onClose;
  }

  /** Events the buffer holds at most. */
  get capacity(): number {
    return this.#ring.length;
  }

  /** Whether the follower wants only some events. */
  get filtered(): boolean {
    return this.#filter !== undefined;
  }

  /** Whether the follower wants `event`. */
  accepts(event: QueryEvent): boolean {
    if (this.#filter === undefined) return true;
    try {
      return this.#filter(event);
    } catch {
      return false;
    }
  }

  /** Counts `count` wanted events that were never buffered. */
  lost(count: number): void {
    this.#dropped += count;
    if (count > 0) this.#wake?.();
  }

  /** Buffers `events` (oldest first) that the follower accepts. */
  keep(events: readonly LiveEvent[]): void {
    for (const live of events) this.#push(live);
  }

  offer(live: LiveEvent): void {
    if (this.accepts(live.event)) this.#push(live);
  }

  #push(live: LiveEvent): void {
    const capacity = this.#ring.length;
    if (this.#size === capacity) {
      // Full: the oldest goes.
      this.#ring[this.#head] = live;
      this.#head = (this.#head + 1) % capacity;
      this.#dropped++;
    } else {
      this.#ring[(this.#head + this.#size) % capacity] = live;
      this.#size++;
    }
    this.#wake?.();
  }

  async next(timeoutMs: number, signal?: AbortSignal): Promise<LiveBatch> {
    if (
      this.#size === 0 && this.#dropped === 0 && !this.#closed &&
      !signal?.aborted
    ) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          this.#wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, timeoutMs));
        signal?.addEventListener("abort", done, { once: true });
        this.#wake = done;
      });
    }
    return this.#take();
  }

  #take(): LiveBatch {
    const events: LiveEvent[] = [];
    const capacity = this.#ring.length;
    for (let i = 0; i < this.#size; i++) {
      const at = (this.#head + i) % capacity;
      events.push(this.#ring[at]!);
      this.#ring[at] = undefined;
    }
    const batch = { events, dropped: this.#dropped };
    this.#head = 0;
    this.#size = 0;
    this.#dropped = 0;
    return batch;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClose(this);
    this.#ring.fill(undefined);
    this.#size = 0;
    this.#wake?.();
  }
}

/**
 * How many of events [from, to) of a packed batch the log keeps (not
 * excluded), read from the packed fields without decoding the events.
 */
function keptBetween(
  batch: PackedQueryEvents,
  from: number,
  to: number,
  filter: EventFilter,
): number {
  if (to <= from) return 0;
  if (!filter.excludesNames && !filter.excludesClients) return to - from;
  const { strings, ints } = batch;
  const text = (at: number) => {
    const index = ints[at]!;
    return index === -1 ? "" : strings[index] ?? "";
  };
  let kept = 0;
  for (let i = from; i < to; i++) {
    const at = i * EVENT_INTS;
    if (filter.nameExcluded(text(at + EV.qname))) continue;
    if (filter.excludesClients) {
      const groups = text(at + EV.groups);
      const address = text(at + EV.client);
      if (
        filter.clientExcluded(address, groups === "" ? [] : groups.split(","))
      ) {
        continue;
      }
    }
    kept++;
  }
  return kept;
}

/** Event `i` of a packed batch; undefined when a string index is bad. */
function unpackOne(
  batch: PackedQueryEvents,
  i: number,
): QueryEvent | undefined {
  const { strings, times, ints } = batch;
  const at = i * EVENT_INTS;
  const str = (field: number) => {
    const index = ints[at + field]!;
    return index === -1 ? undefined : strings[index];
  };
  const time = times[i]!;
  const node = str(EV.node);
  const client = str(EV.client);
  const transport = str(EV.transport);
  const groups = str(EV.groups);
  const qname = str(EV.qname);
  const status = str(EV.status);
  const stage = str(EV.stage);
  const answer = str(EV.answer);
  if (
    !Number.isFinite(time) || typeof node !== "string" ||
    typeof client !== "string" || typeof transport !== "string" ||
    typeof groups !== "string" || typeof qname !== "string" ||
    typeof status !== "string" || typeof stage !== "string" ||
    typeof answer !== "string"
  ) {
    return undefined;
  }
  const flags = ints[at + EV.flags]!;
  const event: QueryEvent = {
    time,
    node,
    clientAddress: client,
    clientPort: ints[at + EV.port]!,
    transport: transport as QueryEvent["transport"],
    groups: groups === "" ? [] : groups.split(","),
    qname,
    qtype: ints[at + EV.qtype]!,
    qclass: ints[at + EV.qclass]!,
    rcode: ints[at + EV.rcode]!,
    status: status as QueryEvent["status"],
    stage: stage as QueryEvent["stage"],
    dnssecOk: (flags & FLAG_DO) !== 0,
    authenticData: (flags & FLAG_AD) !== 0,
    answer,
    responseSize: ints[at + EV.size]!,
    durationUs: ints[at + EV.durationUs]!,
  };
  const upstream = str(EV.upstream);
  const list = str(EV.list);
  const rule = str(EV.rule);
  // "" is as good as absent, as the encoder stores it.
  if (upstream) event.upstream = upstream;
  if (list) event.list = list;
  if (rule) event.rule = rule;
  return event;
}

/** `event` as the encoder stores it under `filter` (encode.ts). */
function asStored(
  event: QueryEvent,
  filter: EventFilter,
  now: number,
): QueryEvent {
  const groups = filter.groupsText(event.groups.join(","));
  const stored: QueryEvent = {
    ...event,
    time: Math.floor(event.time > now + MAX_FUTURE_MS ? now : event.time),
    clientAddress: filter.clientText(event.clientAddress),
    clientPort: filter.port(event.clientPort),
    groups: groups === "" ? [] : groups.split(","),
    qname: filter.qnameText(event.qname),
    answer: filter.answerText(event.answer),
    durationUs: Math.max(0, event.durationUs),
  };
  const rule = event.rule === undefined ? "" : filter.ruleText(event.rule);
  if (rule === "") delete stored.rule;
  else stored.rule = rule;
  return stored;
}

/** What a follower may filter on: a search's filters and the node. */
export interface LiveFilters extends EventFilters {
  /** The node that answered, exactly. */
  node?: string;
}

/**
 * The test of one event that a search with `filters` would apply
 * (search_filters.ts), on an event's texts instead of dictionary ids:
 * the client as an address in any of its spellings, a CIDR prefix or
 * "hidden"; the domain as a substring or, with "*." or ".", a domain and
 * everything below it; statuses ("blocked" is both blocked_* statuses);
 * question types and response codes; and the node.
 *
 * @throws {FilterError} for a client that is none of those
 */
export function liveFilter(filters: LiveFilters): LiveFilter | undefined {
  const tests: LiveFilter[] = [];
  if (filters.client !== undefined && filters.client.trim() !== "") {
    tests.push(clientTest(filters.client.trim()));
  }
  if (filters.domain !== undefined && filters.domain.trim() !== "") {
    tests.push(domainTest(filters.domain.trim().toLowerCase()));
  }
  if (filters.status !== undefined && filters.status.trim() !== "") {
    const wanted = new Set<string>();
    for (const word of filters.status.split(",").map((s) => s.trim())) {
      if (word === "blocked") BLOCKED_STATUSES.forEach((s) => wanted.add(s));
      else if (word !== "") wanted.add(word);
    }
    tests.push((e) => wanted.has(e.status));
  }
  if (filters.qtypes !== undefined) {
    const qtypes = new Set(filters.qtypes);
    tests.push((e) => qtypes.has(e.qtype));
  }
  if (filters.rcodes !== undefined) {
    const rcodes = new Set(filters.rcodes);
    tests.push((e) => rcodes.has(e.rcode));
  }
  if (filters.node !== undefined) {
    const node = filters.node;
    tests.push((e) => e.node === node);
  }
  if (filters.upstream !== undefined && filters.upstream.trim() !== "") {
    const wanted = new Set(
      filters.upstream.split(",").map((s) => s.trim()).filter(Boolean),
    );
    tests.push((e) => e.upstream !== undefined && wanted.has(e.upstream));
  }
  if (tests.length === 0) return undefined;
  return (e) => tests.every((test) => test(e));
}

function clientTest(client: string): LiveFilter {
  const spellings = new Set(clientSpellings(client));
  if (client === HIDDEN_CLIENT || isIpAddress(client)) {
    return (e) => spellings.has(e.clientAddress);
  }
  if (!isCidr(client)) {
    throw new FilterError(
      `--client takes an address or a CIDR prefix such as 192.0.2.0/24, not "${client}"`,
    );
  }
  let [range, bits] = ipaddr.parseCIDR(client);
  if (range.kind() === "ipv6" && (range as ipaddr.IPv6).isIPv4MappedAddress()) {
    range = (range as ipaddr.IPv6).toIPv4Address();
    bits = Math.max(0, bits - 96);
  }
  const memo = new Map<string, boolean>();
  return (e) => {
    let hit = memo.get(e.clientAddress);
    if (hit === undefined) {
      hit = ipaddr.isValid(e.clientAddress) && (() => {
        const addr = ipaddr.process(e.clientAddress);
        return addr.kind() === range.kind() && addr.match(range, bits);
      })();
      if (memo.size >= 10_000) memo.clear();
      memo.set(e.clientAddress, hit);
    }
    return hit;
  };
}

function domainTest(domain: string): LiveFilter {
  const suffix = /^\*?\./.exec(domain);
  if (!suffix) return (e) => e.qname.toLowerCase().includes(domain);
  const base = domain.slice(suffix[0].length).replace(/\.?$/, ".");
  return (e) => {
    const name = e.qname.toLowerCase();
    if (name === base) return true;
    if (!name.endsWith("." + base)) return false;
    // The dot before the suffix must end a label (not be escaped: `a\.x.`).
    let backslashes = 0;
    for (
      let i = name.length - base.length - 2;
      i >= 0 && name[i] === "\\";
      i--
    ) {
      backslashes++;
    }
    return backslashes % 2 === 0;
  };
}
