/**
 * One attempt at one server: a fresh query (fresh ID) over the server's
 * transport, the answer checked against the question, a FORMERR or NOTIMP
 * to EDNS asked again without it, a TC=1 answer over UDP asked again over
 * TCP, and the RCODE judged. Never throws: every failure becomes an outcome
 * the group can score and report.
 */
import { RCODE } from "../dns/wire/constants.ts";
import { rcodeName } from "../dns/wire/rcode_name.ts";
import {
  checkAnswer,
  expectationOf,
  UnusableAnswerError,
} from "./answer_check.ts";
import { buildQuery, randomQueryId } from "./build_query.ts";
import { refusesEdns } from "./edns_support.ts";
import type { AttemptTarget, UpstreamEndpoint } from "./endpoint.ts";
import { ConnectionBusyError } from "./pipelined_connection.ts";
import type { UpstreamRequest } from "./types.ts";

/** How one attempt ended. */
export type AttemptOutcome =
  | {
    ok: true;
    message: Uint8Array;
    rttMs: number;
    /** The server refused EDNS and was asked again without it. */
    ednsFallback?: true;
  }
  | {
    ok: false;
    why: string;
    /**
     * The server answered with this failure RCODE (SERVFAIL, REFUSED, …):
     * it is reachable, the query failed there. Absent when no answer came.
     */
    rcode?: number;
    /**
     * The server answered with a message we cannot use (malformed, or about
     * another question on a stream): reachable, as with a failure RCODE.
     */
    malformed?: true;
    /** The Extended DNS Errors of a failure answer (SERVFAIL, …), if any. */
    extendedErrors?: Uint8Array[];
    /** Not sent: our connection was full (ConnectionBusyError), no fault of the server's. */
    busy?: true;
    /** The server refused EDNS and was asked again without it. */
    ednsFallback?: true;
  };

interface CheckedAnswer {
  message: Uint8Array;
  rcode: number;
  truncated: boolean;
  edns: boolean;
  extendedErrors: Uint8Array[];
}

/**
 * Asks `endpoint` the question of `request` until `signal` aborts. A good
 * answer is NOERROR or NXDOMAIN; SERVFAIL, REFUSED, FORMERR and the rest
 * are failures, so the group may try another server. `target` learns the
 * address asked.
 */
export async function askServer(
  endpoint: UpstreamEndpoint,
  request: UpstreamRequest,
  signal: AbortSignal,
  target: AttemptTarget = {},
): Promise<AttemptOutcome> {
  const started = performance.now();
  const fallback = { ednsFallback: false };
  try {
    const answer = await askWithFallbacks(
      endpoint,
      request,
      signal,
      target,
      fallback,
    );
    const flag = fallback.ednsFallback ? { ednsFallback: true as const } : {};
    if (answer.rcode !== RCODE.NOERROR && answer.rcode !== RCODE.NXDOMAIN) {
      const failure = {
        ok: false as const,
        why: `answered ${rcodeName(answer.rcode)}`,
        rcode: answer.rcode,
        ...flag,
      };
      return answer.extendedErrors.length === 0
        ? failure
        : { ...failure, extendedErrors: answer.extendedErrors };
    }
    return {
      ok: true,
      message: answer.message,
      rttMs: performance.now() - started,
      ...flag,
    };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const flag = fallback.ednsFallback ? { ednsFallback: true as const } : {};
    if (error instanceof ConnectionBusyError) {
      return { ok: false, why, busy: true };
    }
    if (error instanceof UnusableAnswerError) {
      return { ok: false, why, malformed: true, ...flag };
    }
    return { ok: false, why, ...flag };
  }
}

/**
 * The exchange with the two retries an answer may call for: without EDNS
 * when the server refused it (RFC 6891 §7; remembered for the endpoint once
 * the retry gets another answer), then over TCP when UDP truncated it.
 */
async function askWithFallbacks(
  endpoint: UpstreamEndpoint,
  request: UpstreamRequest,
  signal: AbortSignal,
  target: AttemptTarget,
  fallback: { ednsFallback: boolean },
): Promise<CheckedAnswer> {
  let edns = endpoint.edns.useEdns;
  const main = (query: Uint8Array) => endpoint.exchange(query, signal, target);
  let answer = await exchangeChecked(main, request, edns);
  if (edns && !answer.edns && refusesEdns(answer.rcode)) {
    edns = false;
    fallback.ednsFallback = true;
    answer = await exchangeChecked(main, request, edns);
    if (!refusesEdns(answer.rcode)) endpoint.edns.refused();
  }
  if (answer.truncated && endpoint.server.scheme === "udp") {
    answer = await exchangeChecked(
      (query) => endpoint.exchangeOverTcp(query, signal, target),
      request,
      edns,
    );
  }
  return answer;
}

async function exchangeChecked(
  exchange: (query: Uint8Array) => Promise<Uint8Array>,
  request: UpstreamRequest,
  edns: boolean,
): Promise<CheckedAnswer> {
  const query = buildQuery(request, randomQueryId(), { edns });
  const message = await exchange(query);
  const check = checkAnswer(expectationOf(query), message);
  if (!check.ok) throw new UnusableAnswerError(`unusable answer: ${check.why}`);
  return { message, ...check };
}
