/**
 * The upstream stage (docs/design.md#stage-order): anything still unanswered is
 * forwarded to an upstream group, and the group's wire answer is made out
 * for the client (forwarded_answer.ts). Failures are SERVFAIL with an
 * Extended DNS Error.
 */
import { CLASS, EDNS_OPTION, RCODE } from "../../dns/wire/constants.ts";
import { EDE, extendedError } from "../../dns/wire/extended_error.ts";
import { WireFormatError } from "../../dns/wire/wire_format_error.ts";
import type { Logger } from "../../log/logger.ts";
import { OUR_UDP_PAYLOAD_SIZE } from "../../pipeline/answer_encoding.ts";
import type {
  ContinueChain,
  ContinuedAnswer,
} from "../../pipeline/chain_continuation.ts";
import type { Request } from "../../pipeline/request.ts";
import {
  answer,
  overloaded,
  replyTo,
  type Response,
} from "../../pipeline/response.ts";
import type { Stage } from "../../pipeline/stage.ts";
import type { Status } from "../../pipeline/status.ts";
import type { UpstreamsSettings } from "../../pipeline/settings.ts";
import type { UpstreamRequest, UpstreamResult } from "../../upstream/types.ts";
import { askedQuestion, scrubAnswer } from "./answer_scrub.ts";
import { danglingChain, joinedChain } from "./chain_join.ts";
import { clientSubnetFor } from "./client_subnet.ts";
import { type ForwardedAnswer, forwardedAnswer } from "./forwarded_answer.ts";
import { ResolverHolder, type ResolverSource } from "./resolver_holder.ts";
import { isCacheableRoute } from "./cache_scope.ts";
import { type Route, routeQuery, speaksFor } from "./routing.ts";

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
  /**
   * How a chain that leads to a name the upstream may not speak for is
   * continued (chain_continuation.ts). Without it such a chain is answered
   * as it stands, cut before that name.
   */
  continueChain?: ContinueChain;
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
    if (!result.ok) {
      failures.note(group, result);
      return failedResponse(req, route, result);
    }
    let made: Made;
    try {
      made = scrubAnswer(
        result.message,
        askedQuestion(req),
        (name) => speaksFor(req, upstreams, route, name),
      );
    } catch (error) {
      if (!(error instanceof WireFormatError)) throw error;
      return unusable(req, route, result.server);
    }
    if (made.continueAt !== undefined) {
      // The upstream's word ends before a name it may not speak for: the
      // rest comes from that name's own route.
      const continued = await opts.continueChain?.(req, made.continueAt);
      try {
        made = continuedChain(made.message, made.continueAt, continued);
      } catch (error) {
        if (!(error instanceof WireFormatError)) throw error;
        return unusable(req, route, result.server);
      }
    }
    return answerResponse(
      req,
      route,
      result.server,
      made,
      request.clientSubnet,
    );
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
      // Explained, not answered: where it would go, and nothing is sent.
      if (req.explain) return explained(req, routeQuery(req, upstreams));
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
    this.#logger.warn(`Upstream group "${group}" failed`, {
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

/** A scrubbed upstream message, and how its chain was continued. */
interface Made {
  message: Uint8Array;
  /** Set when the chain stops before a name the upstream may not speak for. */
  continueAt?: string;
  /** The answer of the name's own route, when it was asked. */
  continued?: ContinuedAnswer;
}

/**
 * `message` (cut before a name the upstream may not speak for) with the
 * answer for that name joined on, or as it stands when there is none.
 */
function continuedChain(
  message: Uint8Array,
  continueAt: string,
  continued: ContinuedAnswer | undefined,
): Made {
  if (continued === undefined) {
    return { message: danglingChain(message), continueAt };
  }
  if (continued.wire === null) return { message, continueAt, continued };
  return {
    message: joinedChain(message, continued.wire),
    continueAt,
    continued,
  };
}

function failedResponse(
  req: Request,
  route: Route,
  result: Extract<UpstreamResult, { ok: false }>,
): Response {
  const { group } = route;
  const theirs = result.extendedErrors ?? [];
  if (result.reason === "busy") {
    return failure(req, "overloaded_upstream", EDE.OTHER, result.detail);
  }
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

function unusable(req: Request, route: Route, server: string): Response {
  return {
    ...failure(
      req,
      "servfail_upstream",
      EDE_NETWORK_ERROR,
      `upstream group "${route.group}" sent an unusable answer`,
    ),
    upstream: server,
  };
}

/**
 * Why a continued answer is what it is: the continuation's own status
 * when it blocked or failed (a blocked target is a blocked answer),
 * "forwarded" when it answered.
 */
const ANSWERED: ReadonlySet<Status> = new Set([
  "forwarded",
  "cached",
  "cached_stale",
  "authoritative",
  "local_record",
]);

function answerResponse(
  req: Request,
  route: Route,
  server: string,
  made: Made,
  sentSubnet: Uint8Array | undefined,
): Response {
  const continued = made.continued?.response;
  if (made.continued !== undefined && made.continued.wire === null) {
    // The target's route sent nothing (an overloaded listener's drop).
    return {
      ...failure(
        req,
        "servfail",
        EDE_NETWORK_ERROR,
        `no answer for ${made.continueAt}, where the chain continues`,
      ),
      upstream: server,
    };
  }
  let forwarded: ForwardedAnswer;
  try {
    forwarded = forwardedAnswer(made.message, req, { sentSubnet });
  } catch (error) {
    if (!(error instanceof WireFormatError)) throw error;
    return unusable(req, route, server);
  }
  const res: Response = {
    wire: forwarded.wire,
    status: "forwarded",
    stage: "upstream",
    upstream: server,
    // Conditional forwarding is never cached (cache_scope.ts); nor is a
    // chain joined from two sources, which only the client's own question
    // ties together (the target's part is cached under its own name).
    cacheable: isCacheableRoute(route) && made.continueAt === undefined,
  };
  if (continued !== undefined && !ANSWERED.has(continued.status)) {
    res.status = continued.status;
    res.stage = continued.stage;
    if (continued.list !== undefined) res.list = continued.list;
    if (continued.rule !== undefined) res.rule = continued.rule;
  }
  if (forwarded.clientSubnet !== undefined) {
    res.clientSubnet = forwarded.clientSubnet;
  }
  if (forwarded.partial) {
    // A cut (TC=1, or additional records left out) is this client's size,
    // not the answer: the cache keeps the whole answer, for the client's
    // retry over TCP and for everyone else.
    res.wholeWire = forwardedAnswer(made.message, req, {
      sentSubnet,
      maxSize: TCP_MAX_MESSAGE,
    }).wire;
  }
  return res;
}

/** The answer to an explained query: empty, with the route it would take. */
function explained(req: Request, route: Route): Response {
  const message = replyTo(req, RCODE.NOERROR);
  message.ra = true;
  return {
    message,
    status: "forwarded",
    stage: "upstream",
    cacheable: false,
    route: {
      group: route.group,
      rule: route.rule,
      ...(route.suffix !== undefined && { suffix: route.suffix }),
    },
  };
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
