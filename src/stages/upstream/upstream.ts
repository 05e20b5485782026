/**
 * The upstream stage (seed §7.1 step 11): anything still unanswered is
 * forwarded to an upstream group, and the group's wire answer is made out
 * for the client (forwarded_answer.ts). Failures are SERVFAIL with an
 * Extended DNS Error.
 */
import {
  CLASS,
  EDE,
  EDNS_OPTION,
  extendedError,
  RCODE,
  WireFormatError,
} from "../../dns/wire/mod.ts";
import type { Logger } from "../../log/logger.ts";
import {
  answer,
  OUR_UDP_PAYLOAD_SIZE,
  overloaded,
  replyTo,
  type Request,
  type Response,
  type Stage,
  type Status,
} from "../../pipeline/mod.ts";
import type { UpstreamsSettings } from "../../pipeline/settings.ts";
import type { UpstreamRequest, UpstreamResult } from "../../upstream/types.ts";
import { askedQuestion, scrubbedAnswer } from "./answer_scrub.ts";
import { clientSubnetFor } from "./client_subnet.ts";
import { type ForwardedAnswer, forwardedAnswer } from "./forwarded_answer.ts";
import { ResolverHolder, type ResolverSource } from "./resolver_holder.ts";
import { isCacheableRoute } from "./cache_scope.ts";
import { type Route, routeQuery } from "./routing.ts";

/**
 * Extended DNS Error codes used here (RFC 8914 §4, IANA registry):
 * 22 "No Reachable Authority" when no server answered in time, 23 "Network
 * Error" when every server failed or sent an answer we cannot use.
 */
/**
 * Types that only have a meaning on one hop (RFC 6895 §3.1 meta-TYPEs: OPT,
 * TKEY, TSIG): a question for them is a client's error, not one to pass on.
 */
const META_TYPES: ReadonlySet<number> = new Set([41, 249, 250]);

export const EDE_NO_REACHABLE_AUTHORITY = EDE.NO_REACHABLE_AUTHORITY;
export const EDE_NETWORK_ERROR = EDE.NETWORK_ERROR;
export { extendedError };

export interface UpstreamStageOptions {
  /**
   * The resolver, or a factory the stage calls with the snapshot's
   * `upstreams` settings (again when they change; the old one is closed
   * once its queries have settled).
   */
  resolver: ResolverSource;
  logger: Logger;
}

/** The upstream stage, with a way to close the resolvers it built. */
export interface UpstreamStage extends Stage {
  /** Closes the resolvers built by the factory; a given Resolver is left open. */
  close(): Promise<void>;
}

/** Creates the upstream stage. */
export function createUpstreamStage(opts: UpstreamStageOptions): UpstreamStage {
  const holder = new ResolverHolder(opts.resolver, opts.logger);
  const failures = new FailureLog(opts.logger);

  async function forward(
    req: Request,
    upstreams: UpstreamsSettings,
    request: UpstreamRequest,
  ): Promise<Response> {
    const route = routeQuery(req, upstreams);
    const { group } = route;
    const held = holder.resolverFor(upstreams);
    held.pending++;
    let result: UpstreamResult;
    try {
      result = await held.resolver.resolve(group, request);
    } finally {
      holder.settled(held);
    }
    if (!result.ok) failures.note(group, result);
    return responseFor(req, route, result, request.clientSubnet);
  }

  return {
    name: "upstream",
    serve(req: Request) {
      const upstreams = req.snapshot?.settings?.upstreams;
      const question = req.query.question;
      // No settings (snapshots built without a configuration) or no
      // question: nothing to forward to, or nothing to forward.
      if (upstreams === undefined || question === undefined) {
        return answer(req, "upstream", "refused", RCODE.REFUSED);
      }
      // Answered here, not forwarded: an upstream's FORMERR or REFUSED to
      // them would count against the upstream and send every query of the
      // kind to every server of the group.
      if (META_TYPES.has(question.type)) {
        return answer(req, "upstream", "formerr", RCODE.FORMERR);
      }
      // RD=0 asks for our own data only (RFC 1034 §4.3.2): forwarded names
      // are not ours, and the cache skipped it (no cache snooping). Unbound
      // refuses these too.
      if (question.class !== CLASS.IN || !req.query.rd) return refused(req);
      // The listener waits on as many queries as it keeps: do not wait on
      // this one, so what needs no wait (the cache, the zones) is still
      // answered.
      if (req.client.overloaded) return overloaded(req, "upstream");
      const subnet = clientSubnetFor(req, upstreams.ecs);
      if (!subnet.ok) return answer(req, "upstream", "formerr", RCODE.FORMERR);
      const request: UpstreamRequest = {
        name: question.name,
        type: question.type,
        class: question.class,
        dnssecOk: req.query.edns?.dnssecOk ?? false,
        checkingDisabled: req.query.cd,
      };
      if (subnet.option !== undefined) request.clientSubnet = subnet.option;
      return forward(req, upstreams, request);
    },
    close: () => holder.close(),
  };
}

/** A group's failures are logged at most this often (with a count since). */
const FAILURE_LOG_EVERY_MS = 30_000;

/**
 * Why upstream groups fail, for the operator: clients get only SERVFAIL and
 * an EDE naming the group, so the server log says which server failed how
 * (a certificate, an HTTP 404, a timeout). One line per group at most every
 * FAILURE_LOG_EVERY_MS, so a dead upstream does not flood the log.
 */
class FailureLog {
  readonly #logger: Logger;
  readonly #last = new Map<string, { at: number; since: number }>();

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  note(group: string, result: Extract<UpstreamResult, { ok: false }>): void {
    const now = Date.now();
    const seen = this.#last.get(group);
    if (seen !== undefined && now - seen.at < FAILURE_LOG_EVERY_MS) {
      seen.since++;
      return;
    }
    this.#logger.warn(`upstream group "${group}" failed`, {
      reason: result.reason,
      detail: result.detail,
      ...(seen !== undefined && seen.since > 0 &&
        { moreSinceLastLine: seen.since }),
    });
    this.#last.set(group, { at: now, since: 0 });
  }
}

/** The largest DNS message (TCP's two-octet length prefix). */
const TCP_MAX_MESSAGE = 65535;

function responseFor(
  req: Request,
  route: Route,
  result: UpstreamResult,
  sentSubnet: Uint8Array | undefined,
): Response {
  const { group } = route;
  if (!result.ok) {
    const theirs = result.extendedErrors ?? [];
    const res = result.reason === "timeout"
      ? failure(
        req,
        "timeout_upstream",
        EDE_NO_REACHABLE_AUTHORITY,
        `upstream group "${group}" timed out`,
        theirs,
      )
      : failure(
        req,
        "servfail_upstream",
        EDE_NETWORK_ERROR,
        result.reason === "unknown_group"
          ? `no upstream group "${group}" is configured`
          : `upstream group "${group}" failed`,
        theirs,
      );
    // Who failed, for the query log and its per-upstream error counts.
    if (result.server !== undefined) res.upstream = result.server;
    return res;
  }
  let made: ForwardedAnswer;
  let message: Uint8Array;
  try {
    message = scrubbedAnswer(result.message, askedQuestion(req));
    made = forwardedAnswer(message, req, { sentSubnet });
  } catch (error) {
    if (!(error instanceof WireFormatError)) throw error;
    return {
      ...failure(
        req,
        "servfail_upstream",
        EDE_NETWORK_ERROR,
        `upstream group "${group}" sent an unusable answer`,
      ),
      upstream: result.server,
    };
  }
  const res: Response = {
    wire: made.wire,
    status: "forwarded",
    stage: "upstream",
    upstream: result.server,
    // Conditional forwarding is never cached (cache_scope.ts).
    cacheable: isCacheableRoute(route),
  };
  if (made.clientSubnet !== undefined) res.clientSubnet = made.clientSubnet;
  if (made.partial) {
    // A cut (TC=1, or additional records left out) is this client's size,
    // not the answer: the cache keeps the whole answer, for the client's
    // retry over TCP and for everyone else.
    res.wholeWire = forwardedAnswer(message, req, {
      sentSubnet,
      maxSize: TCP_MAX_MESSAGE,
    }).wire;
  }
  return res;
}

/** REFUSED, RA set: we do offer recursion, only not for this question. */
function refused(req: Request): Response {
  const message = replyTo(req, RCODE.REFUSED);
  message.ra = true;
  return { message, status: "refused", stage: "upstream" };
}

/** Bounds on the upstream's Extended DNS Errors passed on: the answer stays small. */
const MAX_PASSED_EDES = 3;
const MAX_PASSED_EDE_OCTETS = 256;

/**
 * SERVFAIL, RA set (we do offer recursion), with an Extended DNS Error, and
 * after it those the upstream sent with its own failure (RFC 8914 allows
 * several): a "DNSSEC Bogus" from a validating upstream says more than ours.
 */
function failure(
  req: Request,
  status: Status,
  infoCode: number,
  text: string,
  upstreamErrors: Uint8Array[] = [],
): Response {
  const message = replyTo(req, RCODE.SERVFAIL);
  message.ra = true;
  message.edns = {
    udpSize: OUR_UDP_PAYLOAD_SIZE,
    options: [
      { code: EDNS_OPTION.EDE, data: extendedError(infoCode, text) },
      ...upstreamErrors.filter((data) => data.length <= MAX_PASSED_EDE_OCTETS)
        .slice(0, MAX_PASSED_EDES)
        .map((data) => ({ code: EDNS_OPTION.EDE, data })),
    ],
  };
  return { message, status, stage: "upstream", cacheable: false };
}
