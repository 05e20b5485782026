/**
 * Per-server upstream counts for the metrics: attempts, failures (errors
 * and timeouts) and the RTT of good answers, by the server as configured
 * ("tls://1.1.1.1", never a resolved address). Plain numbers, drained about
 * once a second by the listener worker with its other counters.
 *
 * A resolver is rebuilt whenever the upstream settings change, so the
 * counts outlive it: by default every resolver of a worker counts into
 * `workerUpstreamCounters`, the one instance of this module in that
 * worker's isolate (each Worker loads its own copy of the module).
 */

/** Counts for one server since the previous drain. */
export interface UpstreamServerCounts {
  /** Attempts started (a TC=1 retry over TCP is part of its attempt). */
  queries: number;
  /** Attempts that failed: a network error, an unusable answer, a failure rcode. */
  errors: number;
  /** Of the errors, answers refused as malformed (records, names in RDATA, …). */
  malformed: number;
  /** Attempts still running when the group's timeout ended the resolve. */
  timeouts: number;
  /** Queries asked again without EDNS after the server refused it (FORMERR, NOTIMP). */
  ednsFallbacks: number;
  /** Good answers (NOERROR, NXDOMAIN) and the sum of their RTTs. */
  answers: number;
  rttSumMs: number;
}

/** Counts by server name; a null-prototype record (names are data). */
export type UpstreamCounts = Record<string, UpstreamServerCounts>;

/** Distinct servers one batch keeps; further ones count under "other". */
export const MAX_UPSTREAMS_PER_BATCH = 100;
/** The server label that stands for servers beyond the cap. */
export const OTHER_UPSTREAM = "other";

/** Counts attempts per server; see the module comment. */
export class UpstreamCounters {
  #counts: UpstreamCounts = Object.create(null);
  #servers = 0;

  /** An attempt at `server` started. */
  countQuery(server: string): void {
    this.#of(server).queries++;
  }

  /** `server` answered well after `rttMs`. */
  countAnswer(server: string, rttMs: number): void {
    const counts = this.#of(server);
    counts.answers++;
    if (Number.isFinite(rttMs) && rttMs >= 0) counts.rttSumMs += rttMs;
  }

  /** An attempt at `server` failed. */
  countError(server: string): void {
    this.#of(server).errors++;
  }

  /** An attempt at `server` failed on a malformed answer (counted as an error too). */
  countMalformed(server: string): void {
    this.#of(server).malformed++;
  }

  /** `server` refused EDNS and was asked again without it. */
  countEdnsFallback(server: string): void {
    this.#of(server).ednsFallbacks++;
  }

  /** An attempt at `server` was cut off by the group's timeout. */
  countTimeout(server: string): void {
    this.#of(server).timeouts++;
  }

  /** Returns the counts since the previous drain and starts again from zero. */
  drain(): UpstreamCounts {
    const out = this.#counts;
    this.#counts = Object.create(null);
    this.#servers = 0;
    return out;
  }

  #of(server: string): UpstreamServerCounts {
    let counts = this.#counts[server];
    if (counts !== undefined) return counts;
    if (this.#servers >= MAX_UPSTREAMS_PER_BATCH) {
      server = OTHER_UPSTREAM;
      counts = this.#counts[server];
      if (counts !== undefined) return counts;
    }
    this.#servers++;
    counts = {
      queries: 0,
      errors: 0,
      malformed: 0,
      timeouts: 0,
      ednsFallbacks: 0,
      answers: 0,
      rttSumMs: 0,
    };
    this.#counts[server] = counts;
    return counts;
  }
}

/** The counts of this worker's resolvers (see the module comment). */
export const workerUpstreamCounters: UpstreamCounters = new UpstreamCounters();
