/**
 * Objects and helpers the Store conformance suite shares: valid objects of
 * the real kinds, and bounded reads from a watcher.
 */
import { API_VERSION, type KObject } from "../api/v1alpha1/meta.ts";
import type { Store, Watcher, WatchEvent } from "./store.ts";

/** Hints a driver may honour to make a test reach an edge sooner. */
export interface ConformanceHints {
  /** Keep only this many changes for watch resume. */
  feedLimit?: number;
  /** The store's clock (audit times). */
  now?: () => Date;
}

/** Opens a fresh, empty store. */
export type OpenStore = (hints?: ConformanceHints) => Promise<Store>;

/** Runs fn against a fresh store and closes it whatever happens. */
export async function withStore(
  open: OpenStore,
  fn: (store: Store) => Promise<void>,
  hints?: ConformanceHints,
): Promise<void> {
  const store = await open(hints);
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

export function zone(
  name: string,
  zoneName = `${name}.example.`,
  extra: Partial<KObject> = {},
): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "DNSZone",
    metadata: { name },
    spec: { zoneName, type: "primary" },
    ...extra,
  };
}

export function recordSet(
  namespace: string,
  name: string,
  target = "192.0.2.1",
): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "DNSRecordSet",
    metadata: { name, namespace },
    spec: {
      zoneRef: { name: "example" },
      endpoints: [{
        dnsName: `${name}.example.org`,
        recordType: "A",
        targets: [target],
      }],
    },
  };
}

export function clientGroup(
  namespace: string,
  name: string,
  labels?: Record<string, string>,
  cidr = "0.0.0.0/0",
): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "ClientGroup",
    metadata: labels ? { name, namespace, labels } : { name, namespace },
    spec: { clients: [{ cidr }] },
  };
}

/** A copy with metadata fields changed. */
export function withMeta(
  obj: KObject,
  meta: Partial<KObject["metadata"]>,
): KObject {
  const copy = structuredClone(obj);
  Object.assign(copy.metadata, meta);
  return copy;
}

/** Reads events one at a time, failing instead of hanging when none arrive. */
export class EventReader {
  #it: AsyncIterator<WatchEvent>;
  /** A read still waiting after quietFor gave up on it; the next read reuses it. */
  #pending: Promise<IteratorResult<WatchEvent>> | undefined;

  constructor(readonly watcher: Watcher) {
    this.#it = watcher[Symbol.asyncIterator]();
  }

  #read(): Promise<IteratorResult<WatchEvent>> {
    const p = this.#pending ?? this.#it.next();
    this.#pending = undefined;
    return p;
  }

  /** The next event, or undefined when the watch ended. Rejects after timeoutMs. */
  async next(timeoutMs = 3000): Promise<WatchEvent | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`No watch event within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    const read = this.#read();
    try {
      const r = await Promise.race([read, timeout]);
      return r.done ? undefined : r.value;
    } catch (err) {
      if (err instanceof Error && err.message.startsWith("No watch event")) {
        this.#pending = read;
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async take(n: number, timeoutMs = 3000): Promise<WatchEvent[]> {
    const events: WatchEvent[] = [];
    for (let i = 0; i < n; i++) {
      const e = await this.next(timeoutMs);
      if (e === undefined) {
        throw new Error(`Watch ended after ${i} of ${n} events`);
      }
      events.push(e);
    }
    return events;
  }

  /** True when nothing arrives within ms. */
  async quietFor(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = this.#read();
    const quiet = new Promise<"quiet">((resolve) => {
      timer = setTimeout(() => resolve("quiet"), ms);
    });
    const winner = await Promise.race([read, quiet]);
    clearTimeout(timer);
    if (winner !== "quiet") return false;
    this.#pending = read;
    return true;
  }

  close(): void {
    this.watcher.close();
  }
}

/** Short form of an event for comparisons: "Added DNSZone/a 3". */
export function describe(e: WatchEvent): string {
  const o = e.object;
  if (o === undefined) return `${e.type} ${e.resourceVersion}`;
  const ns = o.metadata.namespace ? `${o.metadata.namespace}/` : "";
  return `${e.type} ${o.kind}/${ns}${o.metadata.name}`;
}
