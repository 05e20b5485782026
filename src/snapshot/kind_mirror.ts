/**
 * An in-memory mirror of every object of one kind, kept current from a Store
 * watch: the initial Added events up to the Bookmark fill it ("synced"), live
 * events keep it current, and when the watch fails or ends (ExpiredError, a
 * closed store, a dropped connection) it lists again and watches again with
 * backoff, logging once per outage. While re-listing, the previous contents
 * stay readable, so readers keep serving the last known state.
 */
import { formatKey, keyOf, type KObject } from "../api/v1alpha1/meta.ts";
import type { Logger } from "../log/logger.ts";
import { pause } from "../async/pause.ts";
import { sameContent } from "../store/apply_rules.ts";
import type { Store, Watcher } from "../store/store.ts";

/** One mirrored object and the version of its content. */
export interface MirroredObject<T extends KObject = KObject> {
  /** As the store sent it; shared, never to be modified. */
  readonly object: T;
  /**
   * The resourceVersion of the last change to anything but status (spec,
   * labels, annotations, finalizers, uid, deletion). Caches key on it so a
   * status-only write does not invalidate them.
   */
  readonly contentVersion: string;
}

/** What changed in a mirror. */
export type MirrorChange<T extends KObject = KObject> =
  | {
    type: "Added" | "Modified" | "Deleted";
    key: string;
    current: MirroredObject<T> | undefined;
    previous: MirroredObject<T> | undefined;
  }
  | { type: "Resynced" };

/** Retry timing after a watch failure. */
export interface Backoff {
  /** @default 200 */
  initialMs?: number;
  /** @default 10000 */
  maxMs?: number;
}

export interface KindMirrorOptions<T extends KObject> {
  store: Store;
  kind: string;
  logger: Logger;
  /** Called after the mirror has applied a change. */
  onChange: (change: MirrorChange<T>) => void;
  backoff?: Backoff;
}

function sameObjectContent(a: KObject, b: KObject): boolean {
  return a.metadata.uid === b.metadata.uid &&
    a.metadata.deletionTimestamp === b.metadata.deletionTimestamp &&
    sameContent(a, b);
}

/** Mirrors one kind; start() begins watching, stop() ends it. */
export class KindMirror<T extends KObject> {
  readonly synced: Promise<void>;
  #objects = new Map<string, MirroredObject<T>>();
  #isSynced = false;
  #markSynced!: () => void;
  #abort = new AbortController();
  #running: Promise<void> | undefined;
  #watcher: Watcher | undefined;
  #log: Logger;

  constructor(private readonly opts: KindMirrorOptions<T>) {
    this.synced = new Promise((resolve) => (this.#markSynced = resolve));
    this.#log = opts.logger.with({ kind: opts.kind });
  }

  /** True once the first list has been read completely. */
  get isSynced(): boolean {
    return this.#isSynced;
  }

  get(key: string): MirroredObject<T> | undefined {
    return this.#objects.get(key);
  }

  values(): IterableIterator<MirroredObject<T>> {
    return this.#objects.values();
  }

  get size(): number {
    return this.#objects.size;
  }

  start(): void {
    this.#running ??= this.#run();
  }

  /** Ends the watch; resolves when the loop has finished. */
  async stop(): Promise<void> {
    this.#abort.abort();
    this.#watcher?.close();
    await this.#running;
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    let failures = 0;
    while (!signal.aborted) {
      let reason: unknown;
      try {
        await this.#watchOnce(() => {
          if (failures > 0) {
            this.#log.info("Watching again", { failures });
          }
          failures = 0;
        });
        reason = new Error(`The watch of ${this.opts.kind} objects ended`);
      } catch (err) {
        reason = err;
      }
      if (signal.aborted) break;
      failures++;
      // One line per outage; the retries of the same outage go to debug.
      this.#log[failures === 1 ? "warn" : "debug"](
        `Cannot watch ${this.opts.kind} objects; listing again`,
        {
          error: reason,
          attempt: failures,
        },
      );
      await pause(this.#delay(failures), signal);
    }
  }

  #delay(failures: number): number {
    const initial = this.opts.backoff?.initialMs ?? 200;
    const max = this.opts.backoff?.maxMs ?? 10_000;
    const exp = Math.min(max, initial * 2 ** (failures - 1));
    return exp / 2 + Math.random() * exp / 2; // jitter: replicas do not retry in step
  }

  /** One list+watch; returns when the watch ends, throws when it fails. */
  async #watchOnce(onSynced: () => void): Promise<void> {
    const watcher = this.opts.store.watch(this.opts.kind, {
      signal: this.#abort.signal,
    });
    this.#watcher = watcher;
    let listing: Map<string, MirroredObject<T>> | undefined = new Map();
    try {
      for await (const event of watcher) {
        if (listing !== undefined) {
          if (event.type === "Bookmark") {
            this.#replaceAll(listing);
            listing = undefined;
            onSynced();
          } else if (event.object) {
            const obj = event.object as T;
            const key = formatKey(keyOf(obj));
            listing.set(key, this.#mirrored(obj, this.#objects.get(key)));
          }
          continue;
        }
        if (event.type === "Bookmark" || !event.object) continue;
        this.#apply(event.type, event.object as T);
      }
    } finally {
      watcher.close();
      this.#watcher = undefined;
    }
  }

  #mirrored(obj: T, previous: MirroredObject<T> | undefined) {
    const contentVersion = previous && sameObjectContent(previous.object, obj)
      ? previous.contentVersion
      : obj.metadata.resourceVersion ?? "";
    return { object: obj, contentVersion };
  }

  #replaceAll(listing: Map<string, MirroredObject<T>>): void {
    this.#objects = listing;
    if (!this.#isSynced) {
      this.#isSynced = true;
      this.#markSynced();
    }
    this.opts.onChange({ type: "Resynced" });
  }

  #apply(type: "Added" | "Modified" | "Deleted", obj: T): void {
    const key = formatKey(keyOf(obj));
    const previous = this.#objects.get(key);
    let current: MirroredObject<T> | undefined;
    if (type === "Deleted") {
      this.#objects.delete(key);
    } else {
      current = this.#mirrored(obj, previous);
      this.#objects.set(key, current);
    }
    this.opts.onChange({ type, key, current, previous });
  }
}
