/**
 * Turns an upstream's wire answer into the answer for our client without
 * decoding its records (no dns-packet on the forwarded path:
 * docs/design.md#wire-fast-path). The records are copied byte for byte at their
 * original offsets, so the upstream's compression pointers stay valid; only the
 * header, the question's case and the OPT record are ours.
 */
import {
  clientSubnetEcho,
  sameClientSubnet,
} from "../../dns/wire/client_subnet.ts";
import { EDNS_OPTION, TYPE } from "../../dns/wire/constants.ts";
import { type EdnsOption, HEADER_OCTETS } from "../../dns/wire/query.ts";
import { skipName } from "../../dns/wire/read_name.ts";
import { WireFormatError } from "../../dns/wire/wire_format_error.ts";
import { OUR_UDP_PAYLOAD_SIZE } from "../../pipeline/answer_encoding.ts";
import type { Request } from "../../pipeline/request.ts";
import { EDNS_CLIENT_SUBNET } from "./client_subnet.ts";
import { readTtlOffsets } from "../../dns/wire/ttl_offsets.ts";
import { HEADER_FLAG } from "../../dns/wire/constants.ts";

/** Owner name excluded: type, class, TTL, RDLENGTH. */
const RR_FIXED_OCTETS = 10;

const { QR, OPCODE_MASK, TC, RD, RA, AD, CD, RCODE_MASK } = HEADER_FLAG;

/** What the upstream's answer looked like, as far as rewriting needs. */
interface UpstreamLayout {
  flags: number;
  ancount: number;
  nscount: number;
  questionEnd: number;
  /** End of the authority section. */
  recordsEnd: number;
  /** End of the additional records kept (those before the OPT record). */
  additionalEnd: number;
  additionalKept: number;
  /** The upper 8 bits of the extended RCODE from the OPT record. */
  extendedRcode: number;
  options: EdnsOption[];
}

/** The rewritten answer. */
export interface ForwardedAnswer {
  wire: Uint8Array;
  /** TC=1 with empty sections: the answer and authority did not fit. */
  truncated: boolean;
  /** Records were left out to fit this client (truncated, or additional cut). */
  partial: boolean;
  /**
   * Whenever an ECS option was sent: the upstream's option when it answers
   * for the subnet sent (its SCOPE as it set it), else the option sent
   * (SCOPE 0), whether or not this client gets it: the cache echoes it to
   * later askers with an option of their own.
   */
  clientSubnet?: Uint8Array;
}

export interface ForwardedAnswerOptions {
  /** The ECS option sent upstream with the query, if any. */
  sentSubnet?: Uint8Array | undefined;
  /** @default req.maxSize, what this client can take */
  maxSize?: number;
}

/**
 * The answer to `req` made from `upstream`:
 *
 * - header: client's ID, RD and CD; QR and RA set; AA cleared (we are not
 *   the authority for forwarded data); AD kept only when the client set DO
 *   or AD (RFC 6840 §5.8); opcode, TC and RCODE from the upstream;
 * - question: the client's octets, so the answer carries its case (0x20);
 * - answer, authority and additional records: copied as they are (the
 *   caller has scrubbed them, answer_scrub.ts), except the upstream's OPT
 *   and any record after it (a record after the OPT may point into octets
 *   that move; additional data is optional, RFC 2181 §9);
 * - OPT: present exactly when the query had one (RFC 6891 §7), with our
 *   payload size, the client's DO, the upstream's extended RCODE, the
 *   upstream's Extended DNS Errors (RFC 8914), `req.answerOptions` (NSID
 *   from ingress), and, when ECS was sent and the client sent an option,
 *   the client's option with the SCOPE the upstream answered
 *   (dns/wire/client_subnet.ts).
 *
 * Too big for `req.maxSize`: additional records go first (no TC, RFC 2181
 * §9); when answer and authority still do not fit, TC=1 with all three
 * sections empty (question and OPT kept).
 *
 * @throws {WireFormatError} when the upstream's answer is malformed, does
 *   not answer the client's question, or has an extended RCODE the client
 *   cannot receive (no EDNS)
 */
export function forwardedAnswer(
  upstream: Uint8Array,
  req: Request,
  opts: ForwardedAnswerOptions,
): ForwardedAnswer {
  const layout = readLayout(upstream, req);
  const clientSubnet = answeredSubnet(layout, opts.sentSubnet);
  const opt = ourOpt(req, layout, clientSubnetEcho(req.query, clientSubnet));
  const question = req.bytes.subarray(HEADER_OCTETS, req.query.questionEnd);
  const records = upstream.subarray(layout.questionEnd, layout.recordsEnd);
  const additional = upstream.subarray(layout.recordsEnd, layout.additionalEnd);
  const optCount = opt === undefined ? 0 : 1;
  const optLength = opt?.length ?? 0;
  const base = HEADER_OCTETS + question.length + optLength;
  let flags = headerFlags(layout.flags, req);
  let counts = [
    layout.ancount,
    layout.nscount,
    layout.additionalKept + optCount,
  ];
  let body = [question, records, additional];
  let truncated = false;
  const maxSize = opts.maxSize ?? req.maxSize;
  const partial = base + records.length + additional.length > maxSize;
  if (partial) {
    if (base + records.length <= maxSize) {
      counts = [layout.ancount, layout.nscount, optCount];
      body = [question, records];
    } else {
      truncated = true;
      flags |= TC;
      counts = [0, 0, optCount];
      body = [question];
    }
  }
  if (opt !== undefined) body.push(opt);
  const wire = assemble(req.query.id, flags, counts, body);
  zeroHighBitTtls(wire);
  return clientSubnet === undefined
    ? { wire, truncated, partial }
    : { wire, truncated, partial, clientSubnet };
}

/**
 * What the upstream answered about the subnet we sent (undefined when we
 * sent none): its option when it names that subnet, else the option sent,
 * SCOPE 0. No option means an answer for every subnet (RFC 7871 §7.3); one
 * about another subnet is no answer to our query and counts the same.
 */
function answeredSubnet(
  layout: UpstreamLayout,
  sent: Uint8Array | undefined,
): Uint8Array | undefined {
  if (sent === undefined) return undefined;
  const option = layout.options.find((o) => o.code === EDNS_CLIENT_SUBNET);
  return option !== undefined && sameClientSubnet(option.data, sent)
    ? option.data
    : sent;
}

function headerFlags(upstreamFlags: number, req: Request): number {
  const { query } = req;
  const keepAd = query.ad || query.edns?.dnssecOk === true;
  return QR | (upstreamFlags & (OPCODE_MASK | TC | RCODE_MASK)) |
    (query.rd ? RD : 0) | RA | (query.cd ? CD : 0) |
    (keepAd ? upstreamFlags & AD : 0);
}

/**
 * RFC 2181 §8: a TTL with the most significant bit set is to be treated as
 * zero. The cache reads it so; the answer passed on says so too, rather
 * than a TTL of decades a stub might believe.
 */
function zeroHighBitTtls(wire: Uint8Array): void {
  for (const at of readTtlOffsets(wire).offsets) {
    if ((wire[at]! & 0x80) !== 0) wire.fill(0, at, at + 4);
  }
}

function assemble(
  id: number,
  flags: number,
  counts: number[],
  body: Uint8Array[],
): Uint8Array {
  let length = HEADER_OCTETS;
  for (const part of body) length += part.length;
  const out = new Uint8Array(length);
  out[0] = id >> 8;
  out[1] = id & 0xff;
  out[2] = flags >> 8;
  out[3] = flags & 0xff;
  out[5] = 1; // QDCOUNT
  for (let i = 0; i < 3; i++) {
    out[6 + 2 * i] = counts[i]! >> 8;
    out[7 + 2 * i] = counts[i]! & 0xff;
  }
  let pos = HEADER_OCTETS;
  for (const part of body) {
    out.set(part, pos);
    pos += part.length;
  }
  return out;
}

function readLayout(bytes: Uint8Array, req: Request): UpstreamLayout {
  if (bytes.length < HEADER_OCTETS) {
    throw new WireFormatError("upstream answer shorter than 12 octets");
  }
  if (u16(bytes, 4) !== 1) {
    throw new WireFormatError("upstream answer does not carry one question");
  }
  const questionEnd = checkQuestion(bytes, req);
  const ancount = u16(bytes, 6);
  const nscount = u16(bytes, 8);
  let pos = questionEnd;
  for (let i = ancount + nscount; i > 0; i--) {
    pos = recordEnd(bytes, skipName(bytes, pos));
  }
  const layout: UpstreamLayout = {
    flags: u16(bytes, 2),
    ancount,
    nscount,
    questionEnd,
    recordsEnd: pos,
    additionalEnd: pos,
    additionalKept: 0,
    extendedRcode: 0,
    options: [],
  };
  for (let i = u16(bytes, 10); i > 0; i--) {
    const fixed = skipName(bytes, pos);
    const end = recordEnd(bytes, fixed);
    if (u16(bytes, fixed) === TYPE.OPT) {
      layout.extendedRcode = bytes[fixed + 4]!;
      layout.options = readOptions(bytes, fixed + RR_FIXED_OCTETS, end);
      break;
    }
    layout.additionalKept++;
    layout.additionalEnd = pos = end;
  }
  return layout;
}

/**
 * Checks the upstream's question against the client's (name in any case,
 * type, class) and returns where it ends. Equal names in wire form have
 * equal lengths, so the records after it keep their offsets when the
 * client's octets are put in its place.
 */
function checkQuestion(bytes: Uint8Array, req: Request): number {
  const query = req.bytes;
  const end = skipName(bytes, HEADER_OCTETS) + 4;
  if (end > bytes.length) {
    throw new WireFormatError("upstream answer's question truncated");
  }
  if (end !== req.query.questionEnd) {
    throw new WireFormatError("upstream answer is for another question");
  }
  for (let i = HEADER_OCTETS; i < end; i++) {
    const same = i < end - 4
      ? foldCase(bytes[i]!) === foldCase(query[i]!)
      : bytes[i] === query[i];
    if (!same) {
      throw new WireFormatError("upstream answer is for another question");
    }
  }
  return end;
}

function ourOpt(
  req: Request,
  layout: UpstreamLayout,
  echo: Uint8Array | undefined,
): Uint8Array | undefined {
  const edns = req.query.edns;
  if (edns === undefined) {
    if (layout.extendedRcode !== 0) {
      throw new WireFormatError(
        "upstream answer has an extended RCODE and the client has no EDNS",
      );
    }
    return undefined;
  }
  const options = layout.options.filter((o) => o.code === EDNS_OPTION.EDE)
    .concat(req.answerOptions);
  if (echo !== undefined) {
    options.push({ code: EDNS_CLIENT_SUBNET, data: echo });
  }
  let rdlength = 0;
  for (const o of options) rdlength += 4 + o.data.length;
  const out = new Uint8Array(1 + RR_FIXED_OCTETS + rdlength);
  // out[0] = 0: the root owner
  put16(out, 1, TYPE.OPT);
  put16(out, 3, OUR_UDP_PAYLOAD_SIZE);
  out[5] = layout.extendedRcode;
  out[6] = 0; // EDNS version
  out[7] = edns.dnssecOk ? 0x80 : 0;
  put16(out, 9, rdlength);
  let pos = 1 + RR_FIXED_OCTETS;
  for (const o of options) {
    put16(out, pos, o.code);
    put16(out, pos + 2, o.data.length);
    out.set(o.data, pos + 4);
    pos += 4 + o.data.length;
  }
  return out;
}

function readOptions(
  bytes: Uint8Array,
  pos: number,
  end: number,
): EdnsOption[] {
  const options: EdnsOption[] = [];
  while (pos < end) {
    if (pos + 4 > end || pos + 4 + u16(bytes, pos + 2) > end) {
      throw new WireFormatError("upstream answer's EDNS option truncated");
    }
    const length = u16(bytes, pos + 2);
    options.push({
      code: u16(bytes, pos),
      data: bytes.slice(pos + 4, pos + 4 + length),
    });
    pos += 4 + length;
  }
  return options;
}

function recordEnd(bytes: Uint8Array, fixed: number): number {
  if (fixed + RR_FIXED_OCTETS > bytes.length) {
    throw new WireFormatError("upstream answer's record truncated");
  }
  const end = fixed + RR_FIXED_OCTETS + u16(bytes, fixed + 8);
  if (end > bytes.length) {
    throw new WireFormatError("upstream answer's record data truncated");
  }
  return end;
}

function u16(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}

function put16(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value >> 8;
  bytes[at + 1] = value & 0xff;
}

function foldCase(octet: number): number {
  return octet >= 0x41 && octet <= 0x5a ? octet | 0x20 : octet;
}
