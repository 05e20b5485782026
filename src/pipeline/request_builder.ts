/**
 * Builds the Request for one received message. Parsing never throws here:
 * a malformed message becomes a Request marked `malformed`, and the ingress
 * stage decides between FORMERR and silence, so even garbage passes the log
 * stage and is counted.
 */
import {
  HEADER_OCTETS,
  headerOnlyQuery,
  parseQuery,
  type QueryInfo,
} from "../dns/wire/query.ts";
import { WireFormatError } from "../dns/wire/wire_format_error.ts";
import { answerSizeLimit } from "./answer_encoding.ts";
import type { ClientInfo } from "./handler.ts";
import type { MalformedReason, NodeIdentity, Request } from "./request.ts";
import type { Snapshot } from "./snapshot.ts";

/** Everything a Request needs besides the message. */
export interface RequestContext {
  client: ClientInfo;
  snapshot: Snapshot | undefined;
  node: NodeIdentity;
  received: number;
  /** @default false */
  lameduck?: boolean;
  /** See Request.explain. @default false */
  explain?: boolean;
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
    lameduck: ctx.lameduck ?? false,
    // Always present: requests keep one shape (hidden class) on the hot path.
    explain: ctx.explain ?? false,
    qname: query.question?.name.toLowerCase() ?? "",
    maxSize: answerSizeLimit(query, ctx.client.transport),
    groups: [],
    answerOptions: [],
    elapsedMs: -1,
  };
  return malformed === undefined ? req : { ...req, malformed };
}
