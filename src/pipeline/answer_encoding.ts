/**
 * Turning a stage's ResponseSpec into the bytes a client gets: the fields
 * every answer must copy from its query (ID, opcode, RD, CD, the question in
 * the client's case), the EDNS echo, and the size limit of the transport.
 */
import type { QueryInfo } from "../dns/wire/query.ts";
import { encodeResponse } from "../dns/wire/response.ts";
import type { ResponseSpec } from "../dns/wire/response.ts";
import type { Transport } from "./handler.ts";
import type { Request } from "./request.ts";

/**
 * The UDP payload size we advertise in our OPT record: the DNS Flag Day
 * 2020 value, small enough to avoid IP fragmentation on common paths.
 */
export const OUR_UDP_PAYLOAD_SIZE = 1232;

/** RFC 1035 §4.2.1: the UDP limit without EDNS. */
const CLASSIC_UDP_LIMIT = 512;
/**
 * The most we send over UDP whatever the client advertises: the size we
 * advertise ourselves (DNS Flag Day 2020), as NSD, Knot, BIND and Unbound
 * send by default. Larger UDP answers fragment, and fragments are both lost
 * and spoofable; the client gets TC=1 and asks again over TCP.
 */
const MAX_UDP_LIMIT = OUR_UDP_PAYLOAD_SIZE;
/** A TCP message's two-octet length prefix caps it (and DoH's, DoQ's). */
const TCP_LIMIT = 65535;

/**
 * The size limit for an answer to `query` over `transport`. Over UDP the
 * client's EDNS payload size is clamped: values below 512 mean 512 (RFC
 * 6891 §6.2.5), and see MAX_UDP_LIMIT for the upper bound.
 */
export function answerSizeLimit(
  query: Pick<QueryInfo, "edns"> & Partial<Pick<QueryInfo, "tsig">> | undefined,
  transport: Transport,
): number {
  // The answer to a signed query leaves room for its own TSIG record: the
  // query's has the same key and algorithm names and a MAC of the same
  // length (RFC 8945 §5.3).
  const tsig = query?.tsig === undefined
    ? 0
    : query.tsig.end - query.tsig.start;
  if (transport !== "udp") return TCP_LIMIT - tsig;
  const edns = query?.edns;
  if (edns === undefined) return CLASSIC_UDP_LIMIT - tsig;
  return Math.min(Math.max(edns.udpSize, CLASSIC_UDP_LIMIT), MAX_UDP_LIMIT) -
    tsig;
}

/**
 * Copies ID, opcode, RD, CD and the question (original case) from the query
 * into `spec`, and sets the OPT record: present exactly when the query had
 * one (RFC 6891 §7), with our payload size, the DO bit echoed (RFC 3225) and
 * the stage's options plus `req.answerOptions`. Returns a new spec.
 */
export function finalizeSpec(req: Request, spec: ResponseSpec): ResponseSpec {
  const { query } = req;
  const out: ResponseSpec = {
    ...spec,
    id: query.id,
    opcode: query.opcode,
    rd: query.rd,
    cd: query.cd,
  };
  if (query.question !== undefined) out.question = { ...query.question };
  else delete out.question;
  if (query.edns === undefined) {
    delete out.edns;
    return out;
  }
  const options = [...(spec.edns?.options ?? []), ...req.answerOptions];
  out.edns = {
    udpSize: OUR_UDP_PAYLOAD_SIZE,
    dnssecOk: query.edns.dnssecOk,
    options,
  };
  return out;
}

/** Finalises `spec` for `req` and encodes it within `req.maxSize`. */
export function encodeAnswer(req: Request, spec: ResponseSpec): Uint8Array {
  return encodeResponse(finalizeSpec(req, spec), req.maxSize);
}
