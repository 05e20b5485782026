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
 * A penalty from which a server counts as failing: one timeout or error
 * (0.5) keeps it there ~15 s, two in a row (0.75) ~33 s, and one answer
 * ends it.
 */
const FAILING_PENALTY = 0.35;
/** The RTT assumed for a server never heard from: low, so it gets tried. */
export const UNKNOWN_RTT_MS = 50;

/** A share of failures, 0 to 1, that fades with time. */
class FadingPenalty {
  #value = 0;
  #at = 0;
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  get value(): number {
    const age = this.#now() - this.#at;
    return this.#value * 0.5 ** (Math.max(age, 0) / PENALTY_HALF_LIFE_MS);
  }

  record(failed: 0 | 1): void {
    this.#value = this.value + OUTCOME_WEIGHT * (failed - this.value);
    this.#at = this.#now();
  }
}

/** The scoring state of one upstream server. */
export class ServerScore {
  #srttMs: number | undefined;
  /** Every failure: what the score costs. */
  readonly #failures: FadingPenalty;
  /**
   * Only silence and errors, not failure answers: what `failing` is read
   * from. A SERVFAIL or REFUSED may be about one name (a DNSSEC-bogus
   * zone, an internal domain); taken as a sign of a bad server, it sent
   * every name to the next server in `strict` for ~15 s, where an internal
   * name gets the public fallback's NXDOMAIN.
   */
  readonly #unreachable: FadingPenalty;

  /** @param now the clock for the penalty's decay (ms) */
  constructor(now: () => number = Date.now) {
    this.#failures = new FadingPenalty(now);
    this.#unreachable = new FadingPenalty(now);
  }

  /** The smoothed RTT in ms; undefined before the first answer. */
  get srttMs(): number | undefined {
    return this.#srttMs;
  }

  /** The failure penalty now, 0 (none) to 1 (failing every time). */
  get penalty(): number {
    return this.#failures.value;
  }

  /**
   * Whether it was silent or unreachable lately (strict and random ask it
   * last, strategies.ts); failure answers do not count.
   */
  get failing(): boolean {
    return this.#unreachable.value >= FAILING_PENALTY;
  }

  /** The expected cost of asking this server (ms); lower is better. */
  score(): number {
    return (this.#srttMs ?? UNKNOWN_RTT_MS) + this.penalty * FAILURE_COST_MS;
  }

  /** A good answer after `rttMs`. */
  recordAnswer(rttMs: number): void {
    this.#sample(rttMs);
    this.#failures.record(0);
    this.#unreachable.record(0);
  }

  /** An error or a timeout: no answer came. */
  recordFailure(): void {
    this.#failures.record(1);
    this.#unreachable.record(1);
  }

  /**
   * A failure RCODE (SERVFAIL, REFUSED, …): it costs the score (a server
   * refusing everything sinks in parallel_best and rtt_weighted), but the
   * server answered, so it is not failing.
   */
  recordFailureAnswer(): void {
    this.#failures.record(1);
    this.#unreachable.record(0);
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
}
