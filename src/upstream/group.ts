/**
 * An upstream group: its servers, its strategy and its timeout, the longest
 * a client waits for its answer (see {@linkcode attemptBudgetMs}). The strategy's plan starts `parallel` servers
 * at once; the next one in the plan starts when one fails, or when the
 * newest has been silent for a hedge delay (the timeout shared among the
 * plan's slots), without abandoning the slow one: the first good answer
 * wins and every other attempt is aborted.
 */
import { askServer, type AttemptOutcome } from "./ask_server.ts";
import { QueryTimeoutError } from "./pipelined_connection.ts";
import type { AttemptTarget, UpstreamEndpoint } from "./endpoint.ts";
import { planAttempts, type StrategyName } from "./strategies.ts";
import type { UpstreamRequest, UpstreamResult } from "./types.ts";
import type { UpstreamCounters } from "./upstream_counters.ts";

/** Settings of one {@linkcode UpstreamGroup}. */
export interface UpstreamGroupOptions {
  name: string;
  strategy: StrategyName;
  /** The longest a client waits for its answer (ms). */
  timeoutMs: number;
  endpoints: UpstreamEndpoint[];
  /** Uniform in [0, 1) for random and rtt_weighted. @default Math.random */
  random?: () => number;
  /** Where attempts, failures and RTTs are counted, per server. @default not counted */
  counters?: UpstreamCounters;
}

/** Most of the timeout kept for answering (ms). */
const ANSWER_RESERVE_MAX_MS = 100;

/**
 * How long the servers get within a group's timeout (ms): all of it but a
 * twentieth, at most {@linkcode ANSWER_RESERVE_MAX_MS} (1,900 ms of 2 s).
 * The rest is for the answer. Timers fire a few milliseconds late, and the
 * queries of a burst are each read a little after they were sent, behind
 * the misses read before them (~0.2 ms each): a SERVFAIL made at the full
 * timeout reached clients 2-4 ms after it, the last of a burst of 280 misses
 * 74 ms after it (bench/resolver/failure_latency.ts). With the reserve the
 * client has its answer within the timeout (within 2 s with the default).
 */
export function attemptBudgetMs(timeoutMs: number): number {
  return timeoutMs - Math.min(ANSWER_RESERVE_MAX_MS, timeoutMs / 20);
}

interface Attempt {
  endpoint: UpstreamEndpoint;
  /** The address asked, once known (a server named by host name has several). */
  target: AttemptTarget;
  control: AbortController;
  started: number;
  /** Launch order within the query: 0, 1, … */
  position: number;
  settled: boolean;
  done: Promise<void>;
}

/** Why attempts still running were stopped. */
type Ending = "answered" | "timeout" | "cancelled" | "failed";

/** How one attempt still running ended: as the query, or overtaken. */
type AttemptEnding = Ending | "overtaken";

/** Forwards questions to the servers of one group. */
export class UpstreamGroup {
  readonly name: string;
  readonly #opts: UpstreamGroupOptions;
  /** Attempts still running, answered or not (their sockets still open). */
  readonly #running = new Set<Promise<void>>();

  constructor(opts: UpstreamGroupOptions) {
    this.name = opts.name;
    this.#opts = opts;
  }

  /** The endpoints of the group, in configuration order. */
  get endpoints(): readonly UpstreamEndpoint[] {
    return this.#opts.endpoints;
  }

  /** Resolves once every attempt started so far has ended and closed its socket. */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running);
  }

  /**
   * The first good answer within the timeout, or why there is none. Settles
   * as soon as that is known: the client's answer does not wait for the
   * attempts given up on to close their sockets ({@linkcode settled} does).
   */
  resolve(request: UpstreamRequest): Promise<UpstreamResult> {
    if (request.signal?.aborted) {
      return Promise.resolve({
        ok: false,
        reason: "error",
        detail: "cancelled",
      });
    }
    const { endpoints, strategy, random, counters } = this.#opts;
    const budgetMs = attemptBudgetMs(this.#opts.timeoutMs);
    const plan = planAttempts(
      strategy,
      endpoints.map((e) => e.score.score()),
      random,
      endpoints.map((e) => e.score.failing),
    );
    // A group of one UDP server asks it again when it stays silent for half
    // the time: a lost datagram must not cost the whole timeout (RFC 1035
    // §4.2.1). Streams (TCP, DoT, DoH) do not lose a query that way.
    if (endpoints.length === 1 && endpoints[0]!.server.scheme === "udp") {
      plan.order.push(0);
    }
    const slots = plan.order.length - plan.parallel + 1;
    const hedgeMs = budgetMs / slots;
    const attempts: Attempt[] = [];
    const failures: string[] = [];
    let next = 0;
    let finished = false;
    let hedgeTimer: ReturnType<typeof setTimeout> | undefined;
    const { promise, resolve } = Promise.withResolvers<UpstreamResult>();

    const finish = (
      result: UpstreamResult,
      ending: Ending,
      winner?: Attempt,
    ) => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      clearTimeout(hedgeTimer);
      request.signal?.removeEventListener("abort", onCancel);
      for (const attempt of attempts) {
        if (attempt.settled) continue;
        // Launched before a hedged attempt that answered: silent for its
        // whole slot, which scores as a failure (a dead server asked first
        // would otherwise only look slow, and stay first).
        const overtaken = winner !== undefined &&
          winner.position >= plan.parallel &&
          attempt.position < winner.position;
        stopAttempt(attempt, overtaken ? "overtaken" : ending, counters);
      }
      resolve(result);
    };

    /** Servers that failed this query: never asked again within it. */
    const failed = new Set<number>();
    /** The last failure answer's Extended DNS Errors, passed on with ours. */
    let extendedErrors: Uint8Array[] | undefined;
    const withErrors = (
      result: Extract<UpstreamResult, { ok: false }>,
    ): UpstreamResult =>
      extendedErrors === undefined ? result : { ...result, extendedErrors };

    const launch = (): boolean => {
      while (failed.has(plan.order[next]!)) next++;
      const index = plan.order[next];
      if (index === undefined) return false;
      next++;
      const endpoint = endpoints[index]!;
      counters?.countQuery(endpoint.server.raw);
      const control = new AbortController();
      const attempt: Attempt = {
        endpoint,
        target: {},
        control,
        started: performance.now(),
        position: attempts.length,
        settled: false,
        done: Promise.resolve(),
      };
      attempt.done = askServer(
        endpoint,
        request,
        control.signal,
        attempt.target,
      ).then(
        (outcome) => {
          attempt.settled = true;
          if (outcome.ednsFallback) {
            counters?.countEdnsFallback(endpoint.server.raw);
          }
          if (finished) return;
          if (outcome.ok) {
            endpoint.score.recordAnswer(outcome.rttMs);
            counters?.countAnswer(endpoint.server.raw, outcome.rttMs);
            finish(
              {
                ok: true,
                message: outcome.message,
                server: endpoint.server.raw,
                rttMs: outcome.rttMs,
              },
              "answered",
              attempt,
            );
            return;
          }
          failed.add(index);
          recordFailedOutcome(attempt, outcome, counters);
          failures.push(`${endpoint.server.raw}: ${outcome.why}`);
          if (outcome.extendedErrors) extendedErrors = outcome.extendedErrors;
          const running = attempts.some((a) => !a.settled);
          if (!launch() && !running) {
            finish(
              withErrors({
                ok: false,
                reason: "error",
                detail: failures.join("; "),
                server: endpoint.server.raw,
              }),
              "failed",
            );
          }
        },
      );
      attempts.push(attempt);
      this.#running.add(attempt.done);
      attempt.done.finally(() => this.#running.delete(attempt.done));
      armHedge();
      return true;
    };

    const armHedge = () => {
      clearTimeout(hedgeTimer);
      if (next >= plan.order.length) return;
      hedgeTimer = setTimeout(launch, hedgeMs);
    };

    const onCancel = () =>
      finish({ ok: false, reason: "error", detail: "cancelled" }, "cancelled");
    request.signal?.addEventListener("abort", onCancel, { once: true });
    const deadline = setTimeout(() => {
      const silent = [
        ...new Set(
          attempts.filter((a) => !a.settled).map((a) => a.endpoint.server.raw),
        ),
      ];
      const detail = [
        `no answer within ${Math.round(budgetMs)} ms from ${silent.join(", ")}`,
        ...failures,
      ].join("; ");
      const server = silent[0];
      finish(
        withErrors(
          server === undefined
            ? { ok: false, reason: "timeout", detail }
            : { ok: false, reason: "timeout", detail, server },
        ),
        "timeout",
      );
    }, budgetMs);

    for (let i = 0; i < plan.parallel; i++) launch();
    if (attempts.length === 0) {
      finish({ ok: false, reason: "error", detail: "no servers" }, "failed");
    }
    return promise;
  }
}

/**
 * Scores (and counts) the server of an attempt that failed. A failure
 * answer (SERVFAIL, REFUSED, …, or a malformed answer) fails over this
 * query only: the server and its address answer, so neither is held
 * against it for other names. A full connection of ours is no sign of a
 * bad server at all.
 */
function recordFailedOutcome(
  attempt: Attempt,
  outcome: Extract<AttemptOutcome, { ok: false }>,
  counters: UpstreamCounters | undefined,
): void {
  if (outcome.busy) return;
  const { endpoint } = attempt;
  if (outcome.rcode === undefined && !outcome.malformed) {
    endpoint.score.recordFailure();
    endpoint.failed(attempt.target.address);
  } else {
    endpoint.score.recordFailureAnswer();
  }
  counters?.countError(endpoint.server.raw);
  if (outcome.malformed) counters?.countMalformed(endpoint.server.raw);
}

/** Aborts an attempt still running and scores (and counts) its server by why. */
function stopAttempt(
  attempt: Attempt,
  ending: AttemptEnding,
  counters: UpstreamCounters | undefined,
): void {
  attempt.control.abort(
    ending === "timeout"
      ? new QueryTimeoutError("stopped: timeout")
      : new Error(`stopped: ${ending}`),
  );
  const { score } = attempt.endpoint;
  if (ending === "timeout" || ending === "overtaken") {
    score.recordFailure();
    attempt.endpoint.failed(attempt.target.address);
    counters?.countTimeout(attempt.endpoint.server.raw);
  }
  if (ending === "answered") {
    score.recordSlowerThan(performance.now() - attempt.started);
  }
}
