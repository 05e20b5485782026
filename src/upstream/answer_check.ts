/**
 * Checks that a message from upstream answers the query we sent (RFC 5452
 * §9.1): a response (QR=1), opcode QUERY, the same ID and the same question
 * (name compared ASCII case-insensitively, type, class), or no question at
 * all in an answer that can only be a failure (an error RCODE). Anything
 * else is dropped: a spoofed or stale datagram must not become an answer.
 * An answer that matches but is malformed (RDATA included) is the server's
 * failure: it ends the attempt, over UDP too, rather than being waited past.
 */
import { EDNS_OPTION, OPCODE, RCODE } from "../dns/wire/constants.ts";
import { HEADER_OCTETS, parseQuery, type Question } from "../dns/wire/query.ts";
import { checkRecordData } from "../dns/wire/rdata_check.ts";
import { readName } from "../dns/wire/read_name.ts";
import { WireFormatError } from "../dns/wire/wire_format_error.ts";

/** What an answer must match: the ID and question of the query sent. */
export interface ExpectedAnswer {
  id: number;
  question: Question;
}

/** The verdict on one message. */
export type AnswerCheck =
  | {
    ok: true;
    /** The full RCODE (extended bits from the OPT record included). */
    rcode: number;
    /** TC=1: the answer did not fit; retry over TCP. */
    truncated: boolean;
    /** The answer has an OPT record: the server speaks EDNS (RFC 6891). */
    edns: boolean;
    /** The data of its Extended DNS Error options (RFC 8914), if any. */
    extendedErrors: Uint8Array[];
  }
  | {
    ok: false;
    why: string;
    /**
     * The header and question match the query (see {@linkcode matchesQuery}):
     * this is the server's answer, unusable (malformed). False: it may be
     * spoofed or stale, and a UDP socket waits on for the real one.
     */
    matched: boolean;
  };

/**
 * The server answered the query, but with a message we cannot use: a
 * failure answer (the server is there), not silence.
 */
export class UnusableAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnusableAnswerError";
  }
}

/**
 * The ID and question of a query we built.
 *
 * @throws {Error} when `query` is not a parseable one-question message
 */
export function expectationOf(query: Uint8Array): ExpectedAnswer {
  const info = parseQuery(query);
  if (info.question === undefined) {
    throw new Error("Cannot send upstream query: it has no question");
  }
  return { id: info.id, question: info.question };
}

/**
 * Whether `answer` answers the query described by `expected`, and how. The
 * records must be sound too, names inside their data included
 * (`checkRecordData`): an answer a client cannot parse must not be cached
 * and served again.
 */
export function checkAnswer(
  expected: ExpectedAnswer,
  answer: Uint8Array,
): AnswerCheck {
  const mismatch = mismatchOf(expected, answer);
  if (mismatch !== undefined) {
    return { ok: false, why: mismatch, matched: false };
  }
  let info;
  try {
    info = parseQuery(answer);
    const records = info.ancount + info.nscount + info.arcount;
    checkRecordData(answer, info.questionEnd, records);
  } catch (error) {
    if (error instanceof WireFormatError) {
      return { ok: false, why: `malformed: ${error.reason}`, matched: true };
    }
    throw error;
  }
  const extended = info.edns === undefined ? 0 : info.edns.extendedRcode << 4;
  return {
    ok: true,
    rcode: extended | (info.flags & 0xf),
    truncated: (info.flags & 0x0200) !== 0,
    edns: info.edns !== undefined,
    // An option without its 2-octet INFO-CODE is no Extended DNS Error.
    extendedErrors: (info.edns?.options ?? [])
      .filter((o) => o.code === EDNS_OPTION.EDE && o.data.length >= 2)
      .map((o) => o.data),
  };
}

/**
 * Whether the header and question of `message` are those of an answer to
 * the query: QR=1, opcode QUERY, the same ID and the same question, or none
 * in an answer with a failure RCODE. Reads nothing after the question, so
 * a broken answer from the server is told from a stray datagram.
 */
export function matchesQuery(
  expected: ExpectedAnswer,
  message: Uint8Array,
): boolean {
  return mismatchOf(expected, message) === undefined;
}

/** Why the header or question of `message` do not match the query, if they do not. */
function mismatchOf(
  expected: ExpectedAnswer,
  message: Uint8Array,
): string | undefined {
  if (message.length < HEADER_OCTETS) {
    return "malformed: message shorter than 12 octets";
  }
  if ((message[2]! & 0x80) === 0) return "not a response (QR=0)";
  const id = (message[0]! << 8) | message[1]!;
  if (id !== expected.id) return `ID ${id} is not ${expected.id}`;
  const opcode = (message[2]! >> 3) & 0xf;
  if (opcode !== OPCODE.QUERY) return `opcode ${opcode} is not QUERY`;
  const qdcount = (message[4]! << 8) | message[5]!;
  if (qdcount === 0 && isFailureRcode(message[3]! & 0xf)) return undefined;
  if (qdcount !== 1) return "question differs from the query's";
  let question;
  try {
    question = readName(message, HEADER_OCTETS);
  } catch (error) {
    if (error instanceof WireFormatError) return `malformed: ${error.reason}`;
    throw error;
  }
  const at = question.end;
  if (at + 4 > message.length) return "malformed: question truncated";
  const want = expected.question;
  const same = want.type === ((message[at]! << 8) | message[at + 1]!) &&
    want.class === ((message[at + 2]! << 8) | message[at + 3]!) &&
    question.name.toLowerCase() === want.name.toLowerCase();
  return same ? undefined : "question differs from the query's";
}

/**
 * Servers may leave the question out of an error answer (FORMERR to a
 * query they cannot parse, REFUSED, SERVFAIL, NOTIMP: RFC 1035 does not
 * require it, and dnsdist accepts it the same way). Taken as the failure
 * it is, it moves the query on to the next server at once instead of
 * costing the timeout; it can be nothing but a failure, so a forger who
 * guesses the ID and port gains no more than an answer dropped would. The
 * header's RCODE decides: a question-less answer's OPT is not read for it.
 */
function isFailureRcode(rcode: number): boolean {
  return rcode !== RCODE.NOERROR && rcode !== RCODE.NXDOMAIN;
}
