/**
 * EDNS(0) Padding (RFC 7830) of answers on encrypted transports: a client
 * that pads its query asks for a padded answer, and "responders MUST pad
 * DNS responses when the respective DNS query included the 'Padding'
 * option" (§3). The answer's length is rounded up to a multiple of 468
 * octets, the block length RFC 8467 §4.1 recommends for responses, so that
 * the size of an encrypted answer says little about the name asked.
 *
 * Works on the wire after the answer is made, so memo, cache and stage
 * answers are padded alike. An answer without an OPT record, with a record
 * after its OPT record (a TSIG signature, which covers the OPT record), or
 * with padding already is left as it is.
 */
import { HEADER_OCTETS } from "./query.ts";
import { skipName } from "./read_name.ts";
import { WireFormatError } from "./wire_format_error.ts";

/** RFC 8467 §4.1: responses padded to a multiple of this. */
export const RESPONSE_BLOCK_OCTETS = 468;

const OPT = 41;
const PADDING = 12;

/** Where a message's OPT record is, when its additional section has one. */
interface OptAt {
  /** Offset of its RDLENGTH field. */
  rdlength: number;
  /** Offset just after its RDATA. */
  end: number;
  /** Records after it. */
  after: number;
}

function u16(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}

function findOpt(message: Uint8Array): OptAt | undefined {
  if (message.length < HEADER_OCTETS) return undefined;
  const questions = u16(message, 4);
  const before = u16(message, 6) + u16(message, 8);
  const additional = u16(message, 10);
  try {
    let at = HEADER_OCTETS;
    for (let i = 0; i < questions; i++) at = skipName(message, at) + 4;
    for (let i = 0; i < before + additional; i++) {
      const fixed = skipName(message, at);
      if (fixed + 10 > message.length) return undefined;
      const end = fixed + 10 + u16(message, fixed + 8);
      if (end > message.length) return undefined;
      if (i >= before && u16(message, fixed) === OPT) {
        return { rdlength: fixed + 8, end, after: before + additional - i - 1 };
      }
      at = end;
    }
  } catch (error) {
    if (!(error instanceof WireFormatError)) throw error;
  }
  return undefined;
}

/** True when the OPT record's options (RFC 6891 §6.1.2) include `code`. */
function hasOption(message: Uint8Array, opt: OptAt, code: number): boolean {
  for (let at = opt.rdlength + 2; at + 4 <= opt.end;) {
    if (u16(message, at) === code) return true;
    at += 4 + u16(message, at + 2);
  }
  return false;
}

/** True when `query` carries the Padding option. */
export function asksForPadding(query: Uint8Array): boolean {
  const opt = findOpt(query);
  return opt !== undefined && hasOption(query, opt, PADDING);
}

/**
 * `answer` with a Padding option that makes it a multiple of
 * RESPONSE_BLOCK_OCTETS long (at most `maxOctets`), or `answer` itself
 * when it cannot be padded (see the file's comment).
 */
export function padAnswer(answer: Uint8Array, maxOctets = 65535): Uint8Array {
  const opt = findOpt(answer);
  if (opt === undefined || opt.after > 0 || opt.end !== answer.length) {
    return answer;
  }
  if (hasOption(answer, opt, PADDING)) return answer;
  const target = Math.ceil((answer.length + 4) / RESPONSE_BLOCK_OCTETS) *
    RESPONSE_BLOCK_OCTETS;
  if (target > maxOctets) return answer;
  const fill = target - answer.length - 4;
  const padded = new Uint8Array(target); // the padding octets are zero (§4)
  padded.set(answer);
  const rdlength = u16(answer, opt.rdlength) + 4 + fill;
  padded[opt.rdlength] = rdlength >> 8;
  padded[opt.rdlength + 1] = rdlength & 0xff;
  padded[answer.length] = PADDING >> 8;
  padded[answer.length + 1] = PADDING & 0xff;
  padded[answer.length + 2] = fill >> 8;
  padded[answer.length + 3] = fill & 0xff;
  return padded;
}
