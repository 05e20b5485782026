/**
 * What a stage answers with: the message (to encode, or already encoded),
 * and why (Status, stage, and the list and rule of a block or an allow),
 * so the query log can explain every answer.
 */
import { RCODE } from "../dns/wire/constants.ts";
import type { ResponseSpec } from "../dns/wire/response.ts";
import type { RRSet } from "../dns/rrset.ts";
import type { AnswerStream } from "./handler.ts";
import type { Request } from "./request.ts";
import type { StageName } from "./stage.ts";
import type { Status } from "./status.ts";

/** Who produced an answer: a stage, or the chain itself (end of chain, a stage that threw). */
export type AnswerSource = StageName | "chain";

/** A stage's answer. Exactly one of `message`, `wire` or `drop` is set. */
export interface Response {
  /** The answer to encode; the handler copies ID, flags, question and EDNS in. */
  message?: ResponseSpec;
  /** An answer already encoded for this request (memo hits); sent as is. */
  wire?: Uint8Array;
  /**
   * For a `wire` copied from a stored answer (the answer memo, a cache
   * entry): that stored answer. Copies of one source differ only in ID,
   * question case, TTLs, flags and OPT, so the query log summarises the
   * answer section of a source once, not once per query.
   */
  wireSource?: object;
  /** Send nothing (UDP) / close the exchange (TCP). */
  drop?: boolean;
  /**
   * An answer of many messages (a zone transfer), handed to the client's
   * connection (`ClientInfo.streams`) instead of `message` or `wire`.
   */
  stream?: AnswerStream;
  status: Status;
  stage: AnswerSource;
  /** The upstream that answered (a configured name, never a raw address). */
  upstream?: string;
  /**
   * The BlockList and the rule that matched: of a block, or, on an answer
   * whose status is not a block (forwarded, cached), of what let it
   * through (an allow list, an `@@` exception; the query log's "allowed
   * by").
   */
  list?: string;
  rule?: string;
  /**
   * A forwarded answer's EDNS Client Subnet (RFC 7871), when one was sent:
   * the subnet sent, with the SCOPE the upstream answered (0 for none). The
   * cache keeps it and echoes it to later askers that sent an option.
   */
  clientSubnet?: Uint8Array;
  /**
   * When `wire` was cut to fit this client (TC=1, or additional records
   * left out): the whole answer, which is what the cache keeps.
   */
  wholeWire?: Uint8Array;
  /** Whether the cache may keep it (local and authoritative answers: never). */
  cacheable?: boolean;
  /** Keep out of the query log (the health check); counters still count it. */
  unlogged?: boolean;
  /**
   * An explained query (Request.explain) the upstream stage would forward:
   * the group, and the rule that picked it (forward zone, conditional,
   * policy or default) with its suffix.
   */
  route?: { group: string; rule: string; suffix?: string };
}

/** The sections of an answer, all optional. */
export interface AnswerSections {
  aa?: boolean;
  answer?: RRSet[];
  authority?: RRSet[];
  additional?: RRSet[];
  /** See ResponseSpec.requiredAdditional (a referral's in-domain glue). */
  requiredAdditional?: number;
}

/**
 * A message answering `req` with `rcode` (extended codes such as BADVERS
 * included). ID, opcode, RD, CD and the question come from the query; the
 * handler sets them again on the way out, so a stage cannot get them wrong.
 */
export function replyTo(
  req: Request,
  rcode: number,
  sections: AnswerSections = {},
): ResponseSpec {
  const { query } = req;
  const spec: ResponseSpec = {
    id: query.id,
    opcode: query.opcode,
    rcode,
    rd: query.rd,
    cd: query.cd,
  };
  if (query.question !== undefined) spec.question = { ...query.question };
  if (sections.aa !== undefined) spec.aa = sections.aa;
  if (sections.answer !== undefined) spec.answer = sections.answer;
  if (sections.authority !== undefined) spec.authority = sections.authority;
  if (sections.additional !== undefined) spec.additional = sections.additional;
  if (sections.requiredAdditional !== undefined) {
    spec.requiredAdditional = sections.requiredAdditional;
  }
  return spec;
}

/** A Response carrying `replyTo(req, rcode, sections)`. */
export function answer(
  req: Request,
  stage: AnswerSource,
  status: Status,
  rcode: number,
  sections: AnswerSections = {},
): Response {
  return { message: replyTo(req, rcode, sections), status, stage };
}

/** A Response that sends nothing. */
export function drop(stage: AnswerSource): Response {
  return { drop: true, status: "dropped", stage };
}

/**
 * The answer to a query an overloaded listener will not wait on
 * (`ClientInfo.overloaded`), kept out of the query log. Over UDP nothing:
 * the client asks again after its timeout. Over TCP SERVFAIL at once: a
 * client does not ask again on the connection, and would wait out its
 * whole timeout for an answer that never comes.
 */
export function overloaded(req: Request, stage: AnswerSource): Response {
  if (req.client.transport === "udp") {
    return { drop: true, status: "overloaded", stage, unlogged: true };
  }
  return {
    ...answer(req, stage, "overloaded", RCODE.SERVFAIL),
    unlogged: true,
  };
}
