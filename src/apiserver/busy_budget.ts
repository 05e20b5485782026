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
 *
 * What requests spent: the time while any of them runs, and the gaps
 * between them shorter than `lingerMs`, less what the server's other work
 * on the thread (`otherWorkMs`, the query-log writer's batches) took
 * meanwhile. A timer around each request's handlers alone saw a third of
 * it: parsing the request, writing the response and collecting its
 * garbage happen between handlers, and without them the API kept 10-12 %
 * of a CPU busy at a 5 % share. (The thread's own CPU clock would be more
 * exact, but Deno reads /proc/self only with --allow-all.) It is wall
 * time: time the thread was runnable but had no CPU counts too, so on a
 * CPU shared with the DNS Workers the API gets less than its share. And
 * so a request that waits for work off the main thread (a password hash in
 * a Worker, a list download) says so (offMainThread), or that wait would
 * count too.
 *
 * The share binds only while DNS is busy (`dnsQuiet`, from the listeners'
 * query counts): on a quiet server a long listing takes the spare time
 * rather than waiting for a share nothing else wants.
 */
import type { Context } from "hono";

export interface BusyBudgetOptions {
  /** Share of one CPU, in percent; 100 turns the limit off. */
  percent: number;
  /**
   * Credit a quiet API saves up, in ms: enough for a dashboard's page of
   * requests at once. @default 250
   */
  burstMs?: number;
  /** Requests waiting at most; more are refused. @default 64 */
  maxWaiting?: number;
  /**
   * Quiet between requests shorter than this counts as theirs: their
   * HTTP and garbage collection. @default 50
   */
  lingerMs?: number;
  /**
   * Time the main thread spent on work other than the API so far, in ms
   * (a running total). @default none
   */
  otherWorkMs?: () => number;
  /**
   * Whether DNS is quiet now: while it is, the API may use what the
   * thread has spare (the credit stays full), since the share exists to
   * keep the thread for DNS when DNS needs it. @default never
   */
  dnsQuiet?: () => boolean;
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
  readonly #linger: number;
  readonly #otherWork: () => number;
  readonly #dnsQuiet: () => boolean;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  #credit: number;
  #at: number;
  #waiting = 0;
  /** Requests and stream parts running now. */
  #running = 0;
  /** When the last of them ended. */
  #quietSince = -Infinity;
  /** The clock and otherWorkMs when the running work was last charged. */
  #chargedAt = 0;
  #otherAt = 0;

  constructor(opts: BusyBudgetOptions) {
    this.#rate = Math.min(100, Math.max(1, opts.percent)) / 100;
    this.#burst = opts.burstMs ?? 250;
    this.#maxWaiting = opts.maxWaiting ?? 64;
    this.#linger = opts.lingerMs ?? 50;
    this.#otherWork = opts.otherWorkMs ?? (() => 0);
    this.#dnsQuiet = opts.dnsQuiet ?? (() => false);
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
   * their connection. Each part then goes through run().
   */
  async wait(): Promise<void> {
    if (!this.limits) return;
    this.#refill();
    while (this.#credit < 0) {
      await this.#sleep(Math.max(1, this.#debtMs()));
      this.#refill();
    }
  }

  /**
   * Runs `work` (a request's handlers, or a part of a streamed body such
   * as a tail's batch or an export's page) and counts what it cost against
   * the share. Work that overlaps is counted once.
   */
  async run<T>(work: () => T | Promise<T>): Promise<T> {
    if (!this.limits) return await work();
    this.#enter();
    try {
      return await work();
    } finally {
      this.#leave();
    }
  }

  /**
   * Waits for `work` that is done off the main thread (in a Worker, over
   * the network) from within run(): the wait does not count, unless other
   * requests run meanwhile.
   */
  async away<T>(work: Promise<T>): Promise<T> {
    if (!this.limits || this.#running === 0) return await work;
    this.#leave();
    try {
      return await work;
    } finally {
      this.#enter();
    }
  }

  #enter(): void {
    if (this.#running++ > 0) return;
    // A short quiet was this API's (the last response going out, the
    // next request coming in); a long one was not.
    if (this.#now() - this.#quietSince < this.#linger) this.#charge();
    else this.#mark();
  }

  #leave(): void {
    this.#charge();
    if (--this.#running === 0) this.#quietSince = this.#now();
  }

  /** Counts the time since the last mark, less the server's other work. */
  #charge(): void {
    const at = this.#now();
    const other = this.#otherWork();
    this.spend((at - this.#chargedAt) - (other - this.#otherAt));
    this.#chargedAt = at;
    this.#otherAt = other;
  }

  #mark(): void {
    this.#chargedAt = this.#now();
    this.#otherAt = this.#otherWork();
  }

  /** Counts `ms` of busy time against the share. */
  spend(ms: number): void {
    // While DNS is quiet the API's time is not counted against the share.
    if (!this.limits || this.#dnsQuiet()) return;
    this.#refill();
    this.#credit -= Math.max(0, ms);
  }

  /** How long until the credit is back to zero, in ms. */
  #debtMs(): number {
    return this.#credit >= 0 ? 0 : -this.#credit / this.#rate;
  }

  #refill(): void {
    const now = this.#now();
    if (this.#dnsQuiet()) {
      this.#credit = this.#burst;
      this.#at = now;
      return;
    }
    this.#credit = Math.min(
      this.#burst,
      this.#credit + (now - this.#at) * this.#rate,
    );
    this.#at = now;
  }
}

/** Where the budget middleware (app.ts) puts the budget for offMainThread. */
export const BUSY_BUDGET = "kudurruBusyBudget";

/**
 * Awaits `work` done off the main thread (a password hash, a Worker's
 * answer, a download) without counting the wait against the request's
 * share (BusyBudget.away).
 */
export function offMainThread<T>(c: Context, work: Promise<T>): Promise<T> {
  const budget = c.get(BUSY_BUDGET as never) as BusyBudget | undefined;
  return budget ? budget.away(work) : work;
}
