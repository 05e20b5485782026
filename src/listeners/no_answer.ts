/**
 * What a DoH client gets when the pipeline sends nothing (a policy's drop,
 * a zone transfer, which one HTTP response cannot carry, a handler that
 * failed): a SERVFAIL made from the query's header and question.
 *
 * HTTP has no "no answer": a request left without a response holds the
 * client until its own timeout. A non-2xx status would say the server
 * failed, not the lookup: RFC 8484 §4.2.1 leaves it to HTTP semantics, and
 * browsers then count the resolver as broken and may fall back to
 * unencrypted DNS. A SERVFAIL is a DNS answer (RFC 8484 §4.2.1: any DNS
 * response code travels as 200), which a stub takes as "this lookup
 * failed here" and may retry elsewhere, as it would over TCP, where an
 * overloaded pipeline answers SERVFAIL too (src/pipeline/response.ts).
 *
 * Unlike stop_answer.ts, no Extended DNS Error says "server shutting down":
 * the server is not stopping, and the reason the pipeline had is not known
 * here.
 */
import { headerAndQuestion, optRecordOf } from "../dns/wire/truncated_reply.ts";

const SERVFAIL = 2;
/** RFC 6891: root owner, OPT, payload 1232, extended RCODE 0, version 0, no flags, no options. */
const OUR_OPT = new Uint8Array([0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0]);

/**
 * QR and RA set; opcode, RD and CD kept; AA, TC, AD clear; RCODE
 * SERVFAIL; the query's header and question; an OPT record when the query
 * had one (RFC 6891 §7). Undefined for a message that is itself a response
 * or whose question cannot be read: that was no query.
 */
export function noAnswerServfail(query: Uint8Array): Uint8Array | undefined {
  if (query.length < 12 || (query[2]! & 0x80) !== 0) return undefined;
  const head = headerAndQuestion(query);
  if (head === undefined) return undefined;
  const withOpt = optRecordOf(query) !== undefined;
  const reply = new Uint8Array(head.length + (withOpt ? OUR_OPT.length : 0));
  reply.set(head);
  if (withOpt) {
    reply.set(OUR_OPT, head.length);
    reply[11] = 1; // ARCOUNT
  }
  reply[2] = (reply[2]! & 0x79) | 0x80; // QR; opcode and RD kept
  reply[3] = 0x80 | (reply[3]! & 0x10) | SERVFAIL; // RA; CD kept
  return reply;
}
