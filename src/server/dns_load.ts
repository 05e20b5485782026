/**
 * How many DNS queries the listeners handled lately, from the counters
 * each listener Worker posts about once a second (`counters` messages):
 * whether DNS is quiet enough that the API may use the main thread's
 * spare time (`listeners.api.cpuPercent` protects DNS when it needs the
 * CPU, not when it does not; docs/performance.md, "HTTP API").
 */

/** Below this rate DNS is quiet: a few percent of one CPU at most. */
export const QUIET_QUERIES_PER_SECOND = 1000;
/** The window the rate is taken over, in ms (a few counter posts). */
const WINDOW_MS = 3000;

export class DnsLoad {
  readonly #now: () => number;
  /** Queries counted, by the second they were counted in. */
  readonly #bySecond = new Map<number, number>();

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Adds `queries` handled (a Worker's count since its last post). */
  record(queries: number): void {
    if (queries <= 0) return;
    const second = Math.floor(this.#now() / 1000);
    this.#bySecond.set(second, (this.#bySecond.get(second) ?? 0) + queries);
    this.#forget(second);
  }

  /** Whether fewer than QUIET_QUERIES_PER_SECOND came over the window. */
  quiet(): boolean {
    const second = Math.floor(this.#now() / 1000);
    this.#forget(second);
    let total = 0;
    for (const count of this.#bySecond.values()) total += count;
    return total < QUIET_QUERIES_PER_SECOND * (WINDOW_MS / 1000);
  }

  #forget(second: number): void {
    const oldest = second - WINDOW_MS / 1000;
    for (const s of this.#bySecond.keys()) {
      if (s <= oldest) this.#bySecond.delete(s);
    }
  }
}
