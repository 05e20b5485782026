/**
 * How good a server has been lately: a smoothed RTT (an exponential moving
 * average, as TCP's SRTT) plus a failure penalty that grows with each
 * failure, shrinks with each success and halves every 30 s on its own, so a
 * server that failed is avoided for a while and then tried again.
 */

/** Weight of a new RTT sample in the smoothed RTT. */
const RTT_SAMPLE_WEIGHT = 0.3;
/** Weight of a new outcome (1 failed, 0 answered) in the penalty. */
const OUTCOME_WEIGHT = 0.5;
/** The penalty halves every this many ms without new outcomes. */
const PENALTY_HALF_LIFE_MS = 30_000;
/** What a certain failure costs in score (ms): worse than any real RTT. */
const FAILURE_COST_MS = 2_000;
/**
 * A penalty from which a server counts as failing: one failure (0.5) keeps
 * it there ~15 s, two in a row (0.75) ~33 s, and one success ends it.
 */
const FAILING_PENALTY = 0.35;
/** The RTT assumed for a server never heard from: low, so it gets tried. */
export const UNKNOWN_RTT_MS = 50;

/** The scoring state of one upstream server. */
export class ServerScore {
  #srttMs: number | undefined;
  #penalty = 0;
  #penaltyAt = 0;
  readonly #now: () => number;

  /** @param now the clock for the penalty's decay (ms) */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The smoothed RTT in ms; undefined before the first answer. */
  get srttMs(): number | undefined {
    return this.#srttMs;
  }

  /** The failure penalty now, 0 (none) to 1 (failing every time). */
  get penalty(): number {
    const age = this.#now() - this.#penaltyAt;
    return this.#penalty * 0.5 ** (Math.max(age, 0) / PENALTY_HALF_LIFE_MS);
  }

  /** Whether it failed lately (strict and random ask it last, strategies.ts). */
  get failing(): boolean {
    return this.penalty >= FAILING_PENALTY;
  }

  /** The expected cost of asking this server (ms); lower is better. */
  score(): number {
    return (this.#srttMs ?? UNKNOWN_RTT_MS) + this.penalty * FAILURE_COST_MS;
  }

  /** A good answer after `rttMs`. */
  recordAnswer(rttMs: number): void {
    this.#sample(rttMs);
    this.#outcome(0);
  }

  /** An error, a timeout or a failure RCODE (SERVFAIL, REFUSED, …). */
  recordFailure(): void {
    this.#outcome(1);
  }

  /**
   * Another server answered first after `elapsedMs`: this one takes at least
   * that long, which raises its RTT if it looked faster; not a failure.
   */
  recordSlowerThan(elapsedMs: number): void {
    if (this.#srttMs === undefined || this.#srttMs < elapsedMs) {
      this.#sample(elapsedMs);
    }
  }

  #sample(rttMs: number): void {
    this.#srttMs = this.#srttMs === undefined
      ? rttMs
      : this.#srttMs + RTT_SAMPLE_WEIGHT * (rttMs - this.#srttMs);
  }

  #outcome(failed: 0 | 1): void {
    this.#penalty = this.penalty + OUTCOME_WEIGHT * (failed - this.penalty);
    this.#penaltyAt = this.#now();
  }
}
