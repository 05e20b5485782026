/**
 * The answer a listener gives on its own to a query the pipeline did not
 * answer in time while the listener stops (or a TCP connection closes): a
 * SERVFAIL made from the query's header and question, so the client asks
 * again (another server, or this one once it is back) instead of waiting
 * out its own timeout.
 */
import { headerAndQuestion, optRecordOf } from "../dns/wire/truncated_reply.ts";

const SERVFAIL = 2;
/** RFC 8914 INFO-CODE 0, "Other Error". */
const EDE_OTHER = 0;
const EDE_TEXT = new TextEncoder().encode("server shutting down");

/**
 * QR set; opcode, RD and CD kept; RA set; AA, TC, AD clear; RCODE SERVFAIL;
 * header and question of the query; an OPT record (payload 1232, with an
 * Extended DNS Error saying why) when the query had one. Undefined for a
 * message that is itself a response or whose question cannot be read.
 */
export function stopAnswer(query: Uint8Array): Uint8Array | undefined {
  if (query.length < 12 || (query[2]! & 0x80) !== 0) return undefined;
  const head = headerAndQuestion(query);
  if (head === undefined) return undefined;
  const opt = optRecordOf(query) === undefined ? undefined : ourOpt();
  const reply = new Uint8Array(head.length + (opt?.length ?? 0));
  reply.set(head);
  if (opt !== undefined) {
    reply.set(opt, head.length);
    reply[11] = 1; // ARCOUNT
  }
  reply[2] = (reply[2]! & 0x79) | 0x80; // QR; opcode and RD kept
  reply[3] = 0x80 | (reply[3]! & 0x10) | SERVFAIL; // RA; CD kept
  return reply;
}

/** Root owner, OPT, payload 1232, version 0, no flags, one EDE option. */
function ourOpt(): Uint8Array {
  const option = 4 + 2 + EDE_TEXT.length;
  const opt = new Uint8Array(11 + option);
  opt.set([0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, option >> 8, option & 0xff]);
  const data = 2 + EDE_TEXT.length;
  opt.set([0, 15, data >> 8, data & 0xff, 0, EDE_OTHER], 11);
  opt.set(EDE_TEXT, 17);
  return opt;
}
