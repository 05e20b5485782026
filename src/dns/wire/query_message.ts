/**
 * Encodes a query: one question, our flags, an optional OPT record. The
 * response encoder writes the same layout; a query is that message with QR
 * cleared.
 */
import { OPCODE } from "./constants.ts";
import type { EdnsOption } from "./query.ts";
import { encodeResponse, type ResponseSpec } from "./response.ts";

/** What a query says. */
export interface QuerySpec {
  id: number;
  question: { name: string; type: number; class: number };
  rd: boolean;
  cd: boolean;
  /** The OPT record to send, if any. */
  edns?: { udpSize: number; dnssecOk: boolean; options: EdnsOption[] };
}

/**
 * The query message for `spec`.
 *
 * @throws {TypeError} when the question's name is not a valid domain name
 */
export function encodeQueryMessage(spec: QuerySpec): Uint8Array {
  const response: ResponseSpec = {
    id: spec.id,
    opcode: OPCODE.QUERY,
    rcode: 0,
    rd: spec.rd,
    cd: spec.cd,
    question: spec.question,
  };
  if (spec.edns !== undefined) response.edns = spec.edns;
  const message = encodeResponse(response, 65535);
  message[2] = message[2]! & 0x7f; // QR=0: a query, not a response
  return message;
}
