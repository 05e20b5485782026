/**
 * Builds the Request for one received message. Parsing never throws here:
 * a malformed message becomes a Request marked `malformed`, and the ingress
 * stage decides between FORMERR and silence, so even garbage passes the log
 * stage and is counted.
 */
import {
  parseQuery,
  type QueryInfo,
  WireFormatError,
} from "../dns/wire/mod.ts";
import { answerSizeLimit } from "./answer_encoding.ts";
import type { ClientInfo } from "./handler.ts";
import type { MalformedReason, NodeIdentity, Request } from "./request.ts";
import type { Snapshot } from "./snapshot.ts";

const HEADER_OCTETS = 12;

/** The header fields of `bytes`, with no question and no EDNS (zeros without a header). */
export function headerOnlyQuery(bytes: Uint8Array): QueryInfo {
  const word = (at: number) =>
    bytes.length >= HEADER_OCTETS ? (bytes[at]! << 8) | bytes[at + 1]! : 0;
  const flags = word(2);
  return {
    id: word(0),
    opcode: (flags >> 11) & 0xf,
    flags,
    qr: (flags & 0x8000) !== 0,
    rd: (flags & 0x0100) !== 0,
    cd: (flags & 0x0010) !== 0,
    ad: (flags & 0x0020) !== 0,
    qdcount: word(4),
    ancount: word(6),
    nscount: word(8),
    arcount: word(10),
    question: undefined,
    questionEnd: Math.min(bytes.length, HEADER_OCTETS),
    edns: undefined,
    end: Math.min(bytes.length, HEADER_OCTETS),
  };
}

/** Everything a Request needs besides the message. */
export interface RequestContext {
  client: ClientInfo;
  snapshot: Snapshot | undefined;
  node: NodeIdentity;
  received: number;
}

/**
 * Parses `bytes` into a Request.
 *
 * @throws only what parseQuery throws besides WireFormatError (a bug)
 */
export function buildRequest(bytes: Uint8Array, ctx: RequestContext): Request {
  let query: QueryInfo;
  let malformed: { reason: MalformedReason; message: string } | undefined;
  try {
    query = parseQuery(bytes);
  } catch (error) {
    if (!(error instanceof WireFormatError)) throw error;
    query = headerOnlyQuery(bytes);
    const reason = bytes.length < HEADER_OCTETS ? "no_header" : "bad_message";
    malformed = { reason, message: error.reason };
  }
  const req: Request = {
    bytes,
    query,
    client: ctx.client,
    received: ctx.received,
    snapshot: ctx.snapshot,
    node: ctx.node,
    qname: query.question?.name.toLowerCase() ?? "",
    maxSize: answerSizeLimit(query, ctx.client.transport),
    groups: [],
    answerOptions: [],
  };
  return malformed === undefined ? req : { ...req, malformed };
}
