/**
 * How much of the main thread the API may keep busy (`listeners.api.
 * cpuPercent`). The API runs on the main thread beside the query-log writer,
 * and on a host with few CPUs its work comes out of the DNS listeners'
 * share: a script hammering the API halved DNS throughput on one CPU
 * (docs/performance.md, "HTTP API"). DNS comes first: the time requests
 * spend is counted, and once they have spent more than their share (with
 * a burst allowance, so a dashboard never notices), further requests wait
 * until the share has caught up. Waiting is bounded: past `maxWaiting`
 * requests the answer is 503 at once.
 *
 * A token bucket of milliseconds: it fills at `percent`/100 ms per ms, up
 * to `burstMs`; each request takes what it spent. A request may drive the
 * bucket below zero (its cost is known only at its end); the next ones wait
 * until it is back to zero.
 */

export interface BusyBudgetOptions {
  /** Share of one CPU, in percent; 100 turns the limit off. */
  percent: number;
  /** Credit a quiet API saves up, in ms. @default 1000 */
  burstMs?: number;
  /** Requests waiting at most; more are refused. @default 64 */
  maxWaiting?: number;
  /** @default performance.now */
  now?: () => number;
  /** @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
}

/** The outcome of asking to start a request. */
export type Admission = { ok: true } | { ok: false; retryAfterSeconds: number };

export class BusyBudget {
  readonly #rate: number;
  readonly #burst: number;
  readonly #maxWaiting: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  #credit: number;
  #at: number;
  #waiting = 0;

  constructor(opts: BusyBudgetOptions) {
    this.#rate = Math.min(100, Math.max(1, opts.percent)) / 100;
    this.#burst = opts.burstMs ?? 1000;
    this.#maxWaiting = opts.maxWaiting ?? 64;
    this.#now = opts.now ?? (() => performance.now());
    this.#sleep = opts.sleep ??
      ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#credit = this.#burst;
    this.#at = this.#now();
  }

  /** Whether the budget limits anything (below 100 %). */
  get limits(): boolean {
    return this.#rate < 1;
  }

  /** Waits until a request may start, or says to come back later. */
  async admit(): Promise<Admission> {
    if (!this.limits) return { ok: true };
    this.#refill();
    if (this.#credit >= 0) return { ok: true };
    if (this.#waiting >= this.#maxWaiting) {
      return {
        ok: false,
        retryAfterSeconds: Math.max(1, Math.ceil(this.#debtMs() / 1000)),
      };
    }
    this.#waiting++;
    try {
      // Others may wait too: each looks again when it wakes.
      while (this.#credit < 0) {
        await this.#sleep(Math.max(1, this.#debtMs()));
        this.#refill();
      }
      return { ok: true };
    } finally {
      this.#waiting--;
    }
  }

  /**
   * Waits until the share allows more work, never refusing: for the parts
   * of a streamed body (a tail's events, an export's pages), which are
   * sent after their request's own time was counted and already hold
   * their connection. Each part's time then goes to spend().
   */
  async wait(): Promise<void> {
    if (!this.limits) return;
    this.#refill();
    while (this.#credit < 0) {
      await this.#sleep(Math.max(1, this.#debtMs()));
      this.#refill();
    }
  }

  /** Counts `ms` of a request's busy time against the share. */
  spend(ms: number): void {
    if (!this.limits) return;
    this.#refill();
    this.#credit -= Math.max(0, ms);
  }

  /** How long until the credit is back to zero, in ms. */
  #debtMs(): number {
    return this.#credit >= 0 ? 0 : -this.#credit / this.#rate;
  }

  #refill(): void {
    const now = this.#now();
    this.#credit = Math.min(
      this.#burst,
      this.#credit + (now - this.#at) * this.#rate,
    );
    this.#at = now;
  }
}
