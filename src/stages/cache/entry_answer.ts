/**
 * Writing a stored answer out for one client: the hot path of a cache hit.
 * One allocation and one copy, then a few octets: ID, flags, the question's
 * case, the TTLs, and the client's own OPT record.
 */
import { clientSubnetEcho } from "../../dns/wire/client_subnet.ts";
import { EDNS_OPTION, TYPE } from "../../dns/wire/constants.ts";
import { EDE } from "../../dns/wire/extended_error.ts";
import { patchQuestionCase } from "../../dns/wire/question_case.ts";
import { decrementTtls, patchTtls } from "../../dns/wire/ttl_offsets.ts";
import { OUR_UDP_PAYLOAD_SIZE } from "../../pipeline/answer_encoding.ts";
import type { Request } from "../../pipeline/request.ts";
import type { StoredAnswer } from "./cache_entry.ts";
import { shortLivedBytes } from "../../dns/wire/short_lived_bytes.ts";

/** OPT owner (root), type, class, TTL and RDLENGTH. */
const OPT_FIXED_OCTETS = 11;
/** An Extended DNS Error option with an INFO-CODE and no text (RFC 8914 §2). */
const EDE_OPTION_OCTETS = 6;
/** RFC 8914 §4.4: "Stale Answer". */
export const EDE_STALE_ANSWER = EDE.STALE_ANSWER;

/**
 * `stored` made out for `req`, TTLs counted down by `age` seconds. Undefined
 * when the stored question is not `req`'s (a key collision that cannot
 * happen with equal names, checked anyway: it costs nothing extra).
 */
export function writeCachedAnswer(
  stored: StoredAnswer,
  req: Request,
  age: number,
): Uint8Array | undefined {
  return writeAnswer(stored, req, age, false);
}

/**
 * `stored` made out for `req` as a stale answer (RFC 8767): every TTL is
 * `ttl` and, when the client speaks EDNS, EDE 3 "Stale Answer" is attached.
 */
export function writeStaleAnswer(
  stored: StoredAnswer,
  req: Request,
  ttl: number,
): Uint8Array | undefined {
  return writeAnswer(stored, req, ttl, true);
}

function writeAnswer(
  stored: StoredAnswer,
  req: Request,
  ttl: number,
  stale: boolean,
): Uint8Array | undefined {
  const { query } = req;
  const wire = stored.wire;
  const subnet = clientSubnetEcho(query, stored.clientSubnet);
  const optOctets = query.edns === undefined
    ? 0
    : optLength(req, stale, subnet);
  const room = req.maxSize - optOctets;
  let body = wire.length;
  let ttlCount = stored.offsets.length;
  let truncated = false;
  if (body > room) {
    // Too big for the client's limit. The additional section goes first,
    // without TC (RFC 2181 §9; compression pointers only point back, so
    // the tail can go). If answer and authority still do not fit: header,
    // question and OPT with TC=1, and the client retries over TCP. The
    // upstream stage cuts a first answer the same way.
    const { additional } = stored;
    truncated = additional.start > room;
    body = truncated ? query.questionEnd : additional.start;
    ttlCount = truncated ? 0 : additional.ttlsBefore;
    if (body > wire.length) return undefined;
  }
  // Made out for this query only: never kept.
  const out = shortLivedBytes(body + optOctets);
  out.set(body === wire.length ? wire : wire.subarray(0, body));
  if (!patchQuestionCase(out, req.bytes, query.questionEnd - 4)) {
    return undefined;
  }
  out[0] = query.id >>> 8;
  out[1] = query.id;
  // Cached data is not authoritative (AA cleared); RD and CD are the
  // client's; AD only for a client that asked for DNSSEC (RFC 6840 §5.8).
  const adAllowed = query.ad || query.edns?.dnssecOk === true;
  out[2] = (out[2]! & 0xfa) | (truncated ? 0x02 : 0) | (query.rd ? 0x01 : 0);
  out[3] = (out[3]! & (adAllowed ? 0xef : 0xcf)) | (query.cd ? 0x10 : 0);
  if (truncated) out.fill(0, 6, 10);
  let arcount = body === wire.length ? (out[10]! << 8) | out[11]! : 0;
  if (ttlCount > 0) {
    const offsets = ttlCount === stored.offsets.length
      ? stored.offsets
      : stored.offsets.subarray(0, ttlCount);
    if (stale) patchTtls(out, offsets, ttl);
    else decrementTtls(out, offsets, stored.ttls, ttl);
  }
  if (optOctets > 0) {
    writeOpt(out, body, req, stale, subnet);
    arcount++;
  }
  out[10] = arcount >>> 8;
  out[11] = arcount;
  return out;
}

/** True when `answer` (made by writeCachedAnswer or writeStaleAnswer) was cut to TC=1. */
export function isTruncated(answer: Uint8Array): boolean {
  return (answer[2]! & 0x02) !== 0;
}

function optLength(
  req: Request,
  stale: boolean,
  subnet: Uint8Array | undefined,
): number {
  let octets = OPT_FIXED_OCTETS + (stale ? EDE_OPTION_OCTETS : 0);
  for (const option of req.answerOptions) octets += 4 + option.data.length;
  if (subnet !== undefined) octets += 4 + subnet.length;
  return octets;
}

/**
 * Our OPT record (RFC 6891): payload size, DO echoed, the request's options,
 * the client's subnet as the upstream answered it, and EDE 3 when stale.
 */
function writeOpt(
  out: Uint8Array,
  at: number,
  req: Request,
  stale: boolean,
  subnet: Uint8Array | undefined,
): void {
  out[at] = 0; // root owner
  at = writeU16(out, at + 1, TYPE.OPT);
  at = writeU16(out, at, OUR_UDP_PAYLOAD_SIZE);
  out[at] = 0; // extended RCODE: cached answers are NOERROR or NXDOMAIN
  out[at + 1] = 0; // version
  out[at + 2] = req.query.edns?.dnssecOk ? 0x80 : 0;
  out[at + 3] = 0;
  at = writeU16(out, at + 4, out.length - at - 6);
  for (const option of req.answerOptions) {
    at = writeU16(out, at, option.code);
    at = writeU16(out, at, option.data.length);
    out.set(option.data, at);
    at += option.data.length;
  }
  if (subnet !== undefined) {
    at = writeU16(out, at, EDNS_OPTION.CLIENT_SUBNET);
    at = writeU16(out, at, subnet.length);
    out.set(subnet, at);
    at += subnet.length;
  }
  if (stale) {
    at = writeU16(out, at, EDNS_OPTION.EDE);
    at = writeU16(out, at, 2);
    writeU16(out, at, EDE_STALE_ANSWER);
  }
}

function writeU16(out: Uint8Array, at: number, value: number): number {
  out[at] = value >>> 8;
  out[at + 1] = value;
  return at + 2;
}
