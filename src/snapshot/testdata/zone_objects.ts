/**
 * Objects, a fake clock and a polling wait for the snapshot builder and zone
 * controller tests.
 */
import type { Endpoint } from "../../api/v1alpha1/dnsrecordset.ts";
import { API_VERSION, type KObject } from "../../api/v1alpha1/meta.ts";
import type { Store, Watcher, WatchOptions } from "../../store/store.ts";

/** A primary DNSZone object `name` serving `zoneName`. */
export function primaryZone(name: string, zoneName: string): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "DNSZone",
    metadata: { name },
    spec: {
      zoneName,
      type: "primary",
      soa: { mname: `ns1.${zoneName}`, rname: `hostmaster.${zoneName}` },
      nameservers: [`ns1.${zoneName}`],
    },
  };
}

/** A forward DNSZone object. */
export function forwardZone(
  name: string,
  zoneName: string,
  upstreamGroup: string,
): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "DNSZone",
    metadata: { name },
    spec: { zoneName, type: "forward", forward: { upstreamGroup } },
  };
}

/** A DNSRecordSet `namespace/name` in zone object `zoneRef`. */
export function recordSet(
  namespace: string,
  name: string,
  zoneRef: string,
  endpoints: Endpoint[],
  labels?: Record<string, string>,
): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "DNSRecordSet",
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
    spec: { zoneRef: { name: zoneRef }, endpoints },
  };
}

/** An A endpoint. */
export function a(dnsName: string, ...targets: string[]): Endpoint {
  return { dnsName, recordType: "A", targets };
}

/** A clock tests move by hand. */
export function fakeClock(startUnixSeconds: number) {
  let ms = startUnixSeconds * 1000;
  return {
    now: () => new Date(ms),
    advance(seconds: number) {
      ms += seconds * 1000;
    },
  };
}

/** Polls `check` until it returns something other than undefined/false. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 3000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Deno.test options for tests that run watch loops. Deno 2.9 has no
 * suite-wide test timeout and leaves the sanitizers off by default, so a
 * loop one test leaks (a retry timer) keeps the event loop alive, and an
 * await that never settles in a later test then waits forever instead of
 * failing with "Promise resolution is still pending". The timeout turns any
 * such hang (even a hot loop) into a failure of the test that hung; the
 * sanitizers fail the test that leaked the loop.
 */
export const LOOP_TEST: Omit<Deno.TestDefinition, "fn" | "name"> = {
  timeout: 60_000,
  sanitizeOps: true,
  sanitizeResources: true,
};

/**
 * `promise`, or a rejection naming `what` once `ms` of real time have passed.
 * For the waits no polling deadline covers (a stop, a first sync): a stop
 * that cannot finish then fails its test with a message saying what hung,
 * instead of keeping the test (and the suite) running forever.
 */
export async function finishWithin<T>(
  what: string,
  promise: Promise<T>,
  ms = 10_000,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not finish within ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves after `ms` of real time. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A Store whose watches the test can break: closeWatches() ends every open
 * watch (as a dropped connection would), failNextWatches(n, err) makes the
 * next n watches fail on their first read (as an expired resourceVersion would).
 */
export function breakableStore(store: Store) {
  const open = new Set<Watcher>();
  let failing = 0;
  let failure: unknown;
  let watches = 0;
  const wrapped: Store = {
    ...store,
    watch(kind: string, opts?: WatchOptions): Watcher {
      watches++;
      if (failing > 0) {
        failing--;
        const err = failure;
        return {
          close() {},
          [Symbol.asyncIterator]: () => ({
            next: () => Promise.reject(err),
          }),
        };
      }
      const w = store.watch(kind, opts);
      open.add(w);
      return {
        close() {
          open.delete(w);
          w.close();
        },
        [Symbol.asyncIterator]: () => w[Symbol.asyncIterator](),
      };
    },
  };
  return {
    store: wrapped,
    closeWatches() {
      for (const w of [...open]) w.close();
      open.clear();
    },
    failNextWatches(n: number, err: unknown) {
      failing = n;
      failure = err;
    },
    get watches() {
      return watches;
    },
  };
}
