/**
 * One attempt at one server: a fresh query (fresh ID) over the server's
 * transport, the answer checked against the question, a TC=1 answer over
 * UDP asked again over TCP, and the RCODE judged. Never throws: every
 * failure becomes an outcome the group can score and report.
 */
import { RCODE } from "../dns/wire/mod.ts";
import { checkAnswer, expectationOf } from "./answer_check.ts";
import { buildQuery, randomQueryId } from "./build_query.ts";
import type { AttemptTarget, UpstreamEndpoint } from "./endpoint.ts";
import { ConnectionBusyError } from "./pipelined_connection.ts";
import type { UpstreamRequest } from "./types.ts";

/** How one attempt ended. */
export type AttemptOutcome =
  | { ok: true; message: Uint8Array; rttMs: number }
  | {
    ok: false;
    why: string;
    /**
     * The server answered with this failure RCODE (SERVFAIL, REFUSED, …):
     * it is reachable, the query failed there. Absent when no answer came.
     */
    rcode?: number;
    /** The Extended DNS Errors of a failure answer (SERVFAIL, …), if any. */
    extendedErrors?: Uint8Array[];
    /** Not sent: our connection was full (ConnectionBusyError), no fault of the server's. */
    busy?: true;
  };

const RCODE_NAMES = new Map<number, string>(
  Object.entries(RCODE).map(([name, code]) => [code, name]),
);

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
  try {
    let answer = await exchangeChecked(
      (query) => endpoint.exchange(query, signal, target),
      request,
    );
    if (answer.truncated && endpoint.server.scheme === "udp") {
      answer = await exchangeChecked(
        (query) => endpoint.exchangeOverTcp(query, signal, target),
        request,
      );
    }
    if (answer.rcode !== RCODE.NOERROR && answer.rcode !== RCODE.NXDOMAIN) {
      const failure = {
        ok: false as const,
        why: `answered ${rcodeName(answer.rcode)}`,
        rcode: answer.rcode,
      };
      return answer.extendedErrors.length === 0
        ? failure
        : { ...failure, extendedErrors: answer.extendedErrors };
    }
    return {
      ok: true,
      message: answer.message,
      rttMs: performance.now() - started,
    };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return error instanceof ConnectionBusyError
      ? { ok: false, why, busy: true }
      : { ok: false, why };
  }
}

async function exchangeChecked(
  exchange: (query: Uint8Array) => Promise<Uint8Array>,
  request: UpstreamRequest,
): Promise<
  {
    message: Uint8Array;
    rcode: number;
    truncated: boolean;
    extendedErrors: Uint8Array[];
  }
> {
  const query = buildQuery(request, randomQueryId());
  const message = await exchange(query);
  const check = checkAnswer(expectationOf(query), message);
  if (!check.ok) throw new Error(`answer dropped: ${check.why}`);
  return { message, ...check };
}

function rcodeName(rcode: number): string {
  return RCODE_NAMES.get(rcode) ?? `RCODE${rcode}`;
}
