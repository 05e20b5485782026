/**
 * The ingress stage (docs/design.md#stage-order): everything decided from the
 * message alone. Drops what must not be answered, answers malformed and
 * unsupported queries with the right error, answers questions about the server
 * itself, and asks for NSID on every answer when the client wants it.
 */
import {
  CLASS,
  EDNS_OPTION,
  OPCODE,
  RCODE,
  TYPE,
} from "../../dns/wire/constants.ts";
import { ednsOptionsProblem } from "../../dns/wire/edns_option_check.ts";
import { TSIG_ERROR, unsignedTsigError } from "../../dns/wire/tsig_error.ts";
import { WireFormatError } from "../../dns/wire/wire_format_error.ts";
import {
  checkMessage,
  signMessage,
  type TsigCheck,
  type TsigKey,
} from "../../dns/tsig/tsig.ts";
import { encodeAnswer } from "../../pipeline/answer_encoding.ts";
import type { Request } from "../../pipeline/request.ts";
import {
  answer,
  drop,
  replyTo,
  type Response,
} from "../../pipeline/response.ts";
import type { Next, Stage } from "../../pipeline/stage.ts";
import { chaosAnswer, HEALTH_NAME, healthAnswer } from "./identity_answers.ts";
import type { RateLimitCounters, RateLimiterOptions } from "./rate_limit.ts";
import { createRateLimitGate } from "./rate_limit_gate.ts";

const encoder = new TextEncoder();

/** The ingress stage, with the counters of its rate limiter. */
export interface IngressStage extends Stage {
  /** Rate-limit counts since the previous drain (see rate_limit.ts). */
  drainRateLimitCounters(): RateLimitCounters;
}

/**
 * Creates the ingress stage. Its rate limiter (one per stage instance, so
 * one per worker) follows the snapshot's `ratelimit` settings.
 */
export function createIngressStage(
  opts: { rateLimit?: RateLimiterOptions } = {},
): IngressStage {
  const gate = createRateLimitGate(opts.rateLimit);
  return {
    name: "ingress",
    serve(req: Request, next: Next) {
      return gate.limit(req) ?? rejection(req) ??
        (req.query.tsig === undefined
          ? afterTsig(req, next)
          : checkTsig(req, req.query.tsig, next));
    },
    drainRateLimitCounters: () => gate.drain(),
  };
}

/** The answer to a query we do not process any further, if it is one. */
function rejection(req: Request): Response | undefined {
  const { query } = req;
  // Without a header there is no ID to answer to; a message with QR=1 is a
  // response, and answering responses is how reflection loops start.
  if (req.malformed?.reason === "no_header" || query.qr) return drop("ingress");
  if (req.malformed !== undefined) {
    return answer(req, "ingress", "formerr", RCODE.FORMERR);
  }
  // RFC 6891 §6.1.3: BADVERS, with an OPT of the version we speak (0).
  if (query.edns !== undefined && query.edns.version > 0) {
    return answer(req, "ingress", "badvers", RCODE.BADVERS);
  }
  // A COOKIE of no valid length (RFC 7873 §5.2.2), a malformed client
  // subnet (RFC 7871 §7.1.1): FORMERR, as BIND answers.
  if (
    query.edns !== undefined &&
    ednsOptionsProblem(query.edns.options) !== undefined
  ) {
    return answer(req, "ingress", "formerr", RCODE.FORMERR);
  }
  return undefined;
}

/** What follows a query's TSIG check (or a query without one). */
function afterTsig(req: Request, next: Next): Promise<Response> | Response {
  requestNsid(req); // from here on every answer, ours included, carries NSID
  return opcodeRejection(req) ?? questionRejection(req) ?? route(req, next);
}

/**
 * A signed query (RFC 8945 §5.2): checked against the snapshot's keys. A
 * good signature marks the request (`req.tsig`: the answer is signed with
 * the same key, src/pipeline/query_handler.ts) and the query goes on;
 * otherwise NOTAUTH with the TSIG error.
 */
async function checkTsig(
  req: Request,
  tsig: { start: number; end: number },
  next: Next,
): Promise<Response> {
  const keys = req.snapshot?.tsigKeys ?? [];
  if (keys.length === 0) return tsigRejection(req, tsig, TSIG_ERROR.BADKEY);
  let check: TsigCheck;
  try {
    check = await checkMessage(
      req.bytes,
      (name) => keys.find((key) => key.name === name),
      { now: Math.floor(req.received / 1000) },
    );
  } catch (error) {
    if (!(error instanceof WireFormatError)) throw error;
    return answer(req, "ingress", "formerr", RCODE.FORMERR);
  }
  if (
    check.status === "error" && check.error === TSIG_ERROR.BADTIME &&
    check.key !== undefined
  ) {
    return await badTime(req, check.key, check.mac, check.timeSigned);
  }
  if (check.status !== "ok") {
    return tsigRejection(
      req,
      tsig,
      check.status === "error" ? check.error : TSIG_ERROR.BADKEY,
    );
  }
  // The key is one of `keys`: the lookup above returned it.
  req.tsig = { key: check.key as (typeof keys)[number], mac: check.mac };
  return afterTsig(req, next);
}

/**
 * RFC 8945 §5.2.3: a query signed with a known key and the right MAC but
 * a time outside the fudge gets NOTAUTH signed with that key, its TSIG
 * saying BADTIME with the query's Time Signed and our clock in Other Data,
 * so the client can tell how far apart the clocks are and trust it.
 */
async function badTime(
  req: Request,
  key: TsigKey,
  requestMac: Uint8Array,
  timeSigned: number,
): Promise<Response> {
  const now = Math.floor(req.received / 1000);
  const otherData = new Uint8Array(6);
  new DataView(otherData.buffer).setUint16(0, Math.floor(now / 2 ** 32));
  new DataView(otherData.buffer).setUint32(2, now >>> 0);
  const { message } = await signMessage(
    encodeAnswer(req, replyTo(req, RCODE.NOTAUTH)),
    key,
    { now: timeSigned, requestMac, error: TSIG_ERROR.BADTIME, otherData },
  );
  return { wire: message, status: "notauth", stage: "ingress" };
}

/**
 * RFC 8945 §5.2: a signed query whose key the server does not know
 * (BADKEY) or whose MAC is wrong (BADSIG) gets NOTAUTH with an unsigned
 * TSIG record carrying the error (§5.3.2). A TSIG record whose data is
 * malformed: FORMERR.
 */
function tsigRejection(
  req: Request,
  tsig: { start: number; end: number },
  error: number,
): Response {
  let last: Uint8Array;
  try {
    last = unsignedTsigError(req.bytes, tsig, error);
  } catch (error) {
    if (!(error instanceof WireFormatError)) throw error;
    return answer(req, "ingress", "formerr", RCODE.FORMERR);
  }
  const res = answer(req, "ingress", "notauth", RCODE.NOTAUTH);
  res.message!.last = last;
  return res;
}

function opcodeRejection(req: Request): Response | undefined {
  switch (req.query.opcode) {
    case OPCODE.QUERY:
    case OPCODE.NOTIFY: // for secondary zones, answered by authoritative
      return undefined;
    case OPCODE.UPDATE:
      // RFC 2136 §3: REFUSED until dynamic updates are implemented.
      return answer(req, "ingress", "refused", RCODE.REFUSED);
    default:
      // IQUERY (obsolete, RFC 3425), STATUS and unassigned opcodes.
      return answer(req, "ingress", "notimp", RCODE.NOTIMP);
  }
}

/**
 * Types no question may ask for: 0 is reserved, OPT and TSIG are
 * meta-types that belong to one hop's message (RFC 6895 §3.1). BIND
 * answers such a question FORMERR; NSD and Knot answer NODATA, which a
 * cache downstream would keep as if the type could exist.
 */
const UNASKABLE_TYPES: ReadonlySet<number> = new Set([0, TYPE.OPT, TYPE.TSIG]);

function questionRejection(req: Request): Response | undefined {
  const question = req.query.question;
  // A QUERY must ask exactly one question (more fail to parse already).
  if (question === undefined || UNASKABLE_TYPES.has(question.type)) {
    return answer(req, "ingress", "formerr", RCODE.FORMERR);
  }
  // AXFR goes over a connection only (RFC 5936 §4.2): TCP, TLS (RFC
  // 9103) or QUIC (RFC 9250 §4.2), never UDP or DoH's one message; the
  // authoritative stage answers it, and IXFR over either (RFC 1995 §2).
  if (question.type === TYPE.AXFR && req.client.streams === undefined) {
    return answer(req, "ingress", "notimp", RCODE.NOTIMP);
  }
  return undefined;
}

function route(req: Request, next: Next): Promise<Response> | Response {
  const question = req.query.question!;
  if (question.class === CLASS.CH) return chaosAnswer(req);
  // QCLASS ANY (RFC 1035 §3.2.5) matches IN, the one class we hold data in,
  // and is answered as IN, as Knot does. We hold nothing in HS or NONE:
  // REFUSED, as for a zone we do not serve.
  if (question.class !== CLASS.IN && question.class !== CLASS.ANY) {
    return answer(req, "ingress", "refused", RCODE.REFUSED);
  }
  if (req.qname === HEALTH_NAME) return healthAnswer(req);
  return next(req);
}

/** RFC 5001: when the query's OPT carries NSID, every answer carries our node name. */
function requestNsid(req: Request): void {
  const asked = req.query.edns?.options.some((o) =>
    o.code === EDNS_OPTION.NSID
  );
  if (asked) {
    req.answerOptions.push({
      code: EDNS_OPTION.NSID,
      data: encoder.encode(req.node.name),
    });
  }
}
