/**
 * Fan-out of store changes to watchers. Each watcher owns a queue, so a slow
 * reader never delays a write; it ends on close(), on its AbortSignal, or when
 * the hub closes, and it drops anything at or below the resourceVersion it
 * has already delivered (so a change seen twice, by a write and by a poll,
 * reaches it once).
 */
import type { KObject } from "../api/v1alpha1/meta.ts";
import type { Watcher, WatchEvent } from "./store.ts";

/** Which changes one watcher wants. */
export interface WatchFilter {
  kind: string;
  /** Undefined: every namespace. */
  namespace?: string;
}

class QueueWatcher implements Watcher {
  #queue: WatchEvent[] = [];
  /**
   * Reads waiting for an event, oldest first. A list, not one slot: a reader
   * may call next() again while an earlier read is still pending (e.g. one
   * that lost a Promise.race against a timeout); with one slot the earlier
   * read was overwritten and never settled, not even on close().
   */
  #waiters: {
    resolve: (r: IteratorResult<WatchEvent>) => void;
    reject: (err: unknown) => void;
  }[] = [];
  #error: unknown;
  #closed = false;
  #signal: AbortSignal | undefined;
  #onAbort = () => this.close();

  constructor(
    readonly filter: WatchFilter,
    public lastResourceVersion: number,
    initial: WatchEvent[],
    private readonly onClose: (w: QueueWatcher) => void,
    signal?: AbortSignal,
  ) {
    this.#queue.push(...initial);
    if (signal?.aborted) this.close();
    else if (signal) {
      this.#signal = signal;
      signal.addEventListener("abort", this.#onAbort, { once: true });
    }
  }

  wants(kind: string, obj: KObject | undefined, rv: number): boolean {
    if (this.#closed || this.#error !== undefined) return false;
    if (kind !== this.filter.kind || rv <= this.lastResourceVersion) {
      return false;
    }
    return this.filter.namespace === undefined ||
      (obj?.metadata.namespace ?? "") === this.filter.namespace;
  }

  push(event: WatchEvent): void {
    this.lastResourceVersion = Number(event.resourceVersion);
    const waiter = this.#waiters.shift();
    if (waiter) waiter.resolve({ value: event, done: false });
    else this.#queue.push(event);
  }

  /** Ends the watch with an error (after the events already queued). */
  fail(err: unknown): void {
    if (this.#closed || this.#error !== undefined) return;
    this.#error = err;
    this.onClose(this);
    const waiter = this.#waiters.shift();
    if (waiter) {
      this.#error = undefined;
      waiter.reject(err);
      this.close(); // any later reads end normally
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue = []; // ending means ending: undelivered events are dropped
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.onClose(this);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w.resolve({ value: undefined, done: true });
  }

  #next(): Promise<IteratorResult<WatchEvent>> {
    const event = this.#queue.shift();
    if (event) return Promise.resolve({ value: event, done: false });
    if (this.#error !== undefined) {
      const err = this.#error;
      this.#error = undefined;
      this.close();
      return Promise.reject(err);
    }
    if (this.#closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.#waiters.push({ resolve, reject });
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return {
      next: () => this.#next(),
      return: () => {
        this.close();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

/** The watchers of one store. */
export class WatchHub {
  #watchers = new Set<QueueWatcher>();

  /**
   * A watcher that first yields `initial`, then every published change of its
   * kind (and namespace) above `fromResourceVersion`.
   */
  open(
    filter: WatchFilter,
    fromResourceVersion: number,
    initial: WatchEvent[],
    signal?: AbortSignal,
  ): Watcher {
    const w = new QueueWatcher(
      filter,
      fromResourceVersion,
      initial,
      (closed) => this.#watchers.delete(closed),
      signal,
    );
    if (!signal?.aborted) this.#watchers.add(w);
    return w;
  }

  /** A watcher whose first read rejects with `err` (e.g. ExpiredError). */
  failed(err: unknown): Watcher {
    const w = new QueueWatcher({ kind: "" }, 0, [], () => {});
    w.fail(err);
    return w;
  }

  /** Delivers one committed change to every interested watcher. */
  publish(kind: string, event: WatchEvent): void {
    const rv = Number(event.resourceVersion);
    for (const w of this.#watchers) {
      if (w.wants(kind, event.object, rv)) w.push(event);
    }
  }

  /** Ends every watcher with an error, e.g. when the feed moved past them. */
  failAll(err: unknown): void {
    for (const w of [...this.#watchers]) w.fail(err);
  }

  /** Ends every watcher normally. */
  close(): void {
    for (const w of [...this.#watchers]) w.close();
  }

  get size(): number {
    return this.#watchers.size;
  }
}
