/**
 * Resolution failures remembered per question (RFC 9520 §3.2): once the
 * upstream group failed a question (SERVFAIL, or no answer in time) and no
 * stale answer covers it, the same question is answered with that failure
 * for a while instead of going upstream again. Clients retrying a name
 * whose servers are down get SERVFAIL at once rather than after another
 * group timeout, and the upstreams are not asked again and again. The
 * time starts at 1 s (the RFC's minimum) and doubles while the question
 * keeps failing, up to 30 s (the RFC allows 5 min; an upstream that comes
 * back should be seen soon); an answer that is not a failure ends it.
 */
import type { Outcome } from "./waiter_response.ts";
import { questionNameOf } from "../../pipeline/cache_key.ts";
import {
  flushedNamesOf,
  type FlushOptions,
} from "../../pipeline/flushed_names.ts";

export const FAILURE_FIRST_MS = 1_000;
export const FAILURE_MAX_MS = 30_000;
/** Questions remembered; past this the oldest goes. */
export const MAX_FAILURES = 10_000;

interface Failure {
  outcome: Outcome;
  /** Epoch ms until which the failure is answered. */
  until: number;
  /** How long it was remembered this time: the next failure doubles it. */
  forMs: number;
}

export class FailureCache {
  readonly #failures = new Map<string, Failure>();

  /** The failure to answer `key` with at `now`, if one is remembered. */
  get(key: string, now: number): Outcome | undefined {
    const failure = this.#failures.get(key);
    if (failure === undefined || now >= failure.until) return undefined;
    return failure.outcome;
  }

  /** Remembers a failure of `key`, longer if it failed the last time too. */
  failed(key: string, outcome: Outcome, now: number): void {
    const last = this.#failures.get(key);
    // Failing again soon after the last failure ran out: longer.
    const again = last !== undefined && now - last.until < FAILURE_MAX_MS;
    const forMs = again
      ? Math.min(FAILURE_MAX_MS, last.forMs * 2)
      : FAILURE_FIRST_MS;
    this.#failures.delete(key);
    if (this.#failures.size >= MAX_FAILURES) {
      this.#failures.delete(this.#failures.keys().next().value!);
    }
    this.#failures.set(key, { outcome, until: now + forMs, forMs });
  }

  /** `key` was answered: its failures are forgotten. */
  answered(key: string): void {
    this.#failures.delete(key);
  }

  /**
   * A cache flush: forgets the failures of the questions it covers, every
   * one without a name. Those of other names stay: their upstreams have not
   * answered since.
   */
  forget(name?: string, opts?: FlushOptions): void {
    const flushed = flushedNamesOf(name, opts);
    if (flushed === undefined) return this.#failures.clear();
    for (const key of this.#failures.keys()) {
      if (flushed.covers(questionNameOf(key))) this.#failures.delete(key);
    }
  }

  get size(): number {
    return this.#failures.size;
  }
}
