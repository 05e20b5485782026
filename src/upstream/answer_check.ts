/**
 * Checks that a message from upstream answers the query we sent (RFC 5452
 * §9.1): a response (QR=1), opcode QUERY, the same ID and the same question
 * (name compared ASCII case-insensitively, type, class), or no question at
 * all in an answer that can only be a failure (an error RCODE). Anything
 * else is dropped: a spoofed or stale datagram must not become an answer.
 */
import {
  EDNS_OPTION,
  OPCODE,
  parseQuery,
  type Question,
  RCODE,
  WireFormatError,
} from "../dns/wire/mod.ts";

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
    /** The data of its Extended DNS Error options (RFC 8914), if any. */
    extendedErrors: Uint8Array[];
  }
  | { ok: false; why: string };

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

/** Whether `answer` answers the query described by `expected`, and how. */
export function checkAnswer(
  expected: ExpectedAnswer,
  answer: Uint8Array,
): AnswerCheck {
  let info;
  try {
    info = parseQuery(answer);
  } catch (error) {
    if (error instanceof WireFormatError) {
      return { ok: false, why: `malformed: ${error.reason}` };
    }
    throw error;
  }
  if (!info.qr) return { ok: false, why: "not a response (QR=0)" };
  if (info.id !== expected.id) {
    return { ok: false, why: `ID ${info.id} is not ${expected.id}` };
  }
  if (info.opcode !== OPCODE.QUERY) {
    return { ok: false, why: `opcode ${info.opcode} is not QUERY` };
  }
  const extended = info.edns === undefined ? 0 : info.edns.extendedRcode << 4;
  const rcode = extended | (info.flags & 0xf);
  const q = info.question;
  const want = expected.question;
  const sameQuestion = q !== undefined && q.type === want.type &&
    q.class === want.class && q.name.toLowerCase() === want.name.toLowerCase();
  if (!sameQuestion && !(q === undefined && isFailureRcode(rcode))) {
    return { ok: false, why: "question differs from the query's" };
  }
  return {
    ok: true,
    rcode,
    truncated: (info.flags & 0x0200) !== 0,
    // An option without its 2-octet INFO-CODE is no Extended DNS Error.
    extendedErrors: (info.edns?.options ?? [])
      .filter((o) => o.code === EDNS_OPTION.EDE && o.data.length >= 2)
      .map((o) => o.data),
  };
}

/**
 * Servers may leave the question out of an error answer (FORMERR to a
 * query they cannot parse, REFUSED, SERVFAIL, NOTIMP: RFC 1035 does not
 * require it, and dnsdist accepts it the same way). Taken as the failure
 * it is, it moves the query on to the next server at once instead of
 * costing the timeout; it can be nothing but a failure, so a forger who
 * guesses the ID and port gains no more than an answer dropped would.
 */
function isFailureRcode(rcode: number): boolean {
  return rcode !== RCODE.NOERROR && rcode !== RCODE.NXDOMAIN;
}
