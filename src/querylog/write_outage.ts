/**
 * What the query-log writer says while it cannot write: a full disk fails
 * every batch and every reopen for as long as it stays full, and a line per
 * failure (one a second while traffic flows) would bury everything else in
 * the log. So an outage gets one line when it begins, the first drop of
 * events one more, then a summary at most once a minute (the gap doubling up
 * to an hour while it lasts), and one line when writing works again.
 */
import type { Fields, Logger } from "../log/logger.ts";
import { HOUR_MS, MINUTE_MS } from "./settings.ts";

/** The writer's running totals, read to say what an outage has cost so far. */
export interface OutageTotals {
  failedBatches: number;
  failedOpens: number;
  dropped: number;
}

/** One run of failures, from the first failure to the next success. */
export class WriteOutage {
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #totals: () => OutageTotals;
  #since: number | undefined;
  /** Totals when writing last worked: an outage's cost is what came since. */
  #atLastSuccess: OutageTotals = {
    failedBatches: 0,
    failedOpens: 0,
    dropped: 0,
  };
  #lastError = "";
  #nextSummaryAt = 0;
  #summaryEveryMs = MINUTE_MS;
  #dropLogged = false;

  constructor(logger: Logger, now: () => number, totals: () => OutageTotals) {
    this.#logger = logger;
    this.#now = now;
    this.#totals = totals;
  }

  /** True from a failure until the next success. */
  get active(): boolean {
    return this.#since !== undefined;
  }

  /**
   * A write or an open failed. The failure that begins an outage is logged
   * as `message` at `level`; later ones only feed the summary.
   */
  failed(
    level: "warn" | "error",
    message: string,
    error: unknown,
    fields: Fields = {},
  ): void {
    this.#lastError = errorText(error);
    if (this.#since === undefined) {
      this.#begin();
      this.#logger[level](message, { ...fields, error });
      return;
    }
    this.#summarizeIfDue();
  }

  /**
   * Events were given up on: the first time in an outage gets an ERROR line
   * of its own (losing data is worth one), the rest go into the summary.
   */
  dropped(events: number, error: unknown): void {
    this.#lastError = errorText(error);
    if (this.#since === undefined) this.#begin();
    if (this.#dropLogged) return this.#summarizeIfDue();
    this.#dropLogged = true;
    this.#logger.error(
      "Dropped a query-log batch that failed repeatedly; further drops are summed up once a minute",
      { events, error },
    );
  }

  /**
   * Writing (or opening) worked: ends an outage, with what it cost. Called
   * on every success, so that an outage counts only what came after the
   * last one.
   */
  succeeded(): void {
    if (this.#since !== undefined) {
      this.#logger.info("The query log works again", this.#cost());
      this.#since = undefined;
      this.#dropLogged = false;
    }
    this.#atLastSuccess = this.#totals();
  }

  /** What the outage has cost so far (for the summary and the last line). */
  #cost(): Fields {
    const since = this.#since ?? this.#now();
    const totals = this.#totals();
    return {
      since: new Date(since).toISOString(),
      seconds: Math.round((this.#now() - since) / 1000),
      failedBatches: totals.failedBatches - this.#atLastSuccess.failedBatches,
      failedOpens: totals.failedOpens - this.#atLastSuccess.failedOpens,
      droppedEvents: totals.dropped - this.#atLastSuccess.dropped,
    };
  }

  #begin(): void {
    const now = this.#now();
    this.#since = now;
    this.#summaryEveryMs = MINUTE_MS;
    this.#nextSummaryAt = now + MINUTE_MS;
  }

  #summarizeIfDue(): void {
    const now = this.#now();
    if (now < this.#nextSummaryAt) return;
    this.#logger.warn("The query log still cannot be written", {
      ...this.#cost(),
      lastError: this.#lastError,
    });
    this.#summaryEveryMs = Math.min(this.#summaryEveryMs * 2, HOUR_MS);
    this.#nextSummaryAt = now + this.#summaryEveryMs;
  }
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
