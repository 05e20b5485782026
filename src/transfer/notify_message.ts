/**
 * The NOTIFY message a primary sends its secondaries (RFC 1996), and the
 * reading of their replies.
 *
 * The request (§3.7, §4.7): opcode NOTIFY, AA=1, QR=0, one question (the
 * zone, SOA, IN) and the zone's current SOA in the answer section. §3.7
 * makes the answer "an unsecure hint" at the new data: a secondary whose
 * own SOA equals it may skip its refresh, one whose SOA differs asks its
 * primary. Knot sends the same as a primary, and uses the hint as a
 * secondary (tests/interop/notify_knot_test.ts).
 *
 * A reply is ours when it comes with our ID, QR=1, opcode NOTIFY and our
 * question (§3.6 matches on the ID, the QNAME and the source address and
 * port; the caller checks the last two). Anything else is a stray or
 * stale datagram and is ignored, as the upstream UDP client ignores them
 * (RFC 5452 §9.1). As there, an error reply with no question at all is
 * taken too: a server may leave the question out of FORMERR or REFUSED,
 * and it can only be a failure.
 */
import { canonicalName, toFqdn } from "../dns/name.ts";
import type { RRSet } from "../dns/rrset.ts";
import { CLASS, OPCODE, RCODE, TYPE } from "../dns/wire/constants.ts";
import { MAX_MESSAGE_OCTETS } from "../dns/wire/message_writer.ts";
import { HEADER_OCTETS, parseQuery } from "../dns/wire/query.ts";
import { readName, skipName } from "../dns/wire/read_name.ts";
import { encodeResponse } from "../dns/wire/response.ts";
import { TSIG_ERROR } from "../dns/wire/tsig_error.ts";
import { WireFormatError } from "../dns/wire/wire_format_error.ts";

/** What one NOTIFY says. */
export interface NotifySpec {
  /** A fresh random ID per attempt (RFC 5452 §9.2). */
  id: number;
  /** The zone's name, with or without the trailing dot. */
  zone: string;
  /** The zone's SOA RRset (type 6, one SOA record). */
  soa: RRSet;
}

/**
 * The serial of an SOA RRset, or why it cannot be notified: not type 6,
 * or not exactly one SOA record.
 */
export function soaSerial(soa: RRSet): number | string {
  if (soa.type !== TYPE.SOA) return `the RRset has type ${soa.type}, not SOA`;
  if (soa.rdata.length !== 1 || soa.rdata[0]!.type !== "SOA") {
    return "the SOA RRset must hold exactly one SOA record";
  }
  return soa.rdata[0]!.serial;
}

/**
 * The NOTIFY for `spec`, unsigned.
 *
 * @throws {TypeError} when the zone or a name in the SOA is not a valid
 *   domain name
 * @throws {RangeError} when a field does not fit its wire size
 */
export function encodeNotify(spec: NotifySpec): Uint8Array {
  const message = encodeResponse({
    id: spec.id,
    opcode: OPCODE.NOTIFY,
    rcode: RCODE.NOERROR,
    aa: true,
    question: { name: toFqdn(spec.zone), type: TYPE.SOA, class: CLASS.IN },
    answer: [spec.soa],
  }, MAX_MESSAGE_OCTETS);
  message[2] = message[2]! & 0x7f; // QR=0: a request, not a reply
  return message;
}

/** What a datagram that came back to a NOTIFY is. */
export type NotifyReply =
  /** Not a reply to this NOTIFY: ignore it and keep waiting. */
  | { kind: "stray"; why: string }
  /** Our reply, but broken past its question: a failed attempt. */
  | { kind: "malformed"; why: string }
  /**
   * Our reply. `tsigError` is the Error field of its TSIG record, when it
   * has one (BADSIG, BADKEY, BADTIME in an unsigned error reply, RFC 8945
   * §5.3.2).
   */
  | { kind: "reply"; rcode: number; signed: boolean; tsigError: number };

/** Reads `message` as the reply to the NOTIFY with `id` for `zone`. */
export function readNotifyReply(
  expected: { id: number; zone: string },
  message: Uint8Array,
): NotifyReply {
  if (message.length < HEADER_OCTETS) {
    return { kind: "stray", why: "shorter than a header" };
  }
  if ((message[2]! & 0x80) === 0) return { kind: "stray", why: "QR=0" };
  const id = (message[0]! << 8) | message[1]!;
  if (id !== expected.id) return { kind: "stray", why: `ID ${id}` };
  const opcode = (message[2]! >> 3) & 0xf;
  if (opcode !== OPCODE.NOTIFY) {
    return { kind: "stray", why: `opcode ${opcode}` };
  }
  const qdcount = (message[4]! << 8) | message[5]!;
  const headerRcode = message[3]! & 0xf;
  if (qdcount === 0 && headerRcode !== RCODE.NOERROR) {
    // Question-less error replies: see the module comment.
  } else if (qdcount !== 1) {
    return { kind: "stray", why: `${qdcount} questions` };
  } else {
    const mismatch = questionMismatch(expected.zone, message);
    if (mismatch !== undefined) return { kind: "stray", why: mismatch };
  }
  try {
    const info = parseQuery(message);
    const extended = (info.edns?.extendedRcode ?? 0) << 4;
    return {
      kind: "reply",
      rcode: extended | headerRcode,
      signed: info.tsig !== undefined,
      tsigError: info.tsig === undefined
        ? 0
        : tsigErrorField(message, info.tsig),
    };
  } catch (error) {
    if (error instanceof WireFormatError) {
      return { kind: "malformed", why: error.reason };
    }
    throw error;
  }
}

/** Why the question of `message` is not (zone, SOA, IN), if it is not. */
function questionMismatch(
  zone: string,
  message: Uint8Array,
): string | undefined {
  let name;
  try {
    name = readName(message, HEADER_OCTETS);
  } catch (error) {
    if (error instanceof WireFormatError) return `question: ${error.reason}`;
    throw error;
  }
  const at = name.end;
  if (at + 4 > message.length) return "question truncated";
  const type = (message[at]! << 8) | message[at + 1]!;
  const rrclass = (message[at + 2]! << 8) | message[at + 3]!;
  // readName spells each name one way, as canonicalName does: compare
  // those spellings, ASCII case aside (RFC 4343).
  const want = canonicalName(toFqdn(zone)).toLowerCase();
  if (
    type !== TYPE.SOA || rrclass !== CLASS.IN ||
    name.name.toLowerCase() !== want
  ) {
    return "question differs from the NOTIFY's";
  }
  return undefined;
}

/**
 * The Error field of the TSIG record at `tsig` (RFC 8945 §4.2: key name,
 * type, class, TTL, RDLENGTH; algorithm name, Time Signed, Fudge, MAC
 * Size, MAC, Original ID, Error, Other Len, Other Data).
 *
 * @throws {WireFormatError} when the record is cut short
 */
function tsigErrorField(
  message: Uint8Array,
  tsig: { start: number; end: number },
): number {
  const rdata = skipName(message, tsig.start) + 10;
  let at = skipName(message, rdata) + 8;
  if (at + 2 > tsig.end) throw new WireFormatError("TSIG record truncated");
  at += 2 + ((message[at]! << 8) | message[at + 1]!) + 2;
  if (at + 2 > tsig.end) throw new WireFormatError("TSIG record truncated");
  return (message[at]! << 8) | message[at + 1]!;
}

const TSIG_ERROR_NAMES = new Map<number, string>(
  Object.entries(TSIG_ERROR).map(([name, code]) => [code, name]),
);

/** "BADSIG", "BADKEY", "BADTIME", or "TSIG error N" for another code. */
export function tsigErrorName(code: number): string {
  return TSIG_ERROR_NAMES.get(code) ?? `TSIG error ${code}`;
}
