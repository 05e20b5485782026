/**
 * What the query log shows of an answer: its rcode, AD bit and a short text
 * of the answer section ("A 192.0.2.1, CNAME www.example.", at most 256
 * characters), read straight from the encoded message that was sent. The
 * walk is bounded by the message and never throws: octets that do not parse
 * end the summary early.
 */
import { PackHint } from "../../pipeline/query_event_pack.ts";
import { formatCharString } from "../../zone/format.ts";
import { ipv4Text, ipv6Text } from "../../dns/wire/address_text.ts";
import { TYPE, typeName } from "../../dns/wire/constants.ts";
import { readName, skipName } from "../../dns/wire/read_name.ts";

/** Longest summary kept. */
export const MAX_SUMMARY = 256;
const HEADER_OCTETS = 12;
/** Type, class, TTL and RDLENGTH after an owner name. */
const RR_FIXED_OCTETS = 10;
/** Records summarised at most; the rest are counted ("+3 more"). */
const MAX_RECORDS = 8;

export interface AnswerSummary {
  /** RCODE from the header (extended bits of OPT are not added). */
  rcode: number;
  authenticData: boolean;
  /** "" when the answer section is empty. */
  text: string;
  /**
   * For the query log's packer, on the summary of a stored answer's copies
   * (summarizeCopy): they all share it.
   */
  hint?: PackHint;
}

/** The summary of `message`, an encoded DNS response. */
export function summarizeAnswer(message: Uint8Array): AnswerSummary {
  if (message.length < HEADER_OCTETS) {
    return { rcode: -1, authenticData: false, text: "" };
  }
  const rcode = message[3]! & 0x0f;
  const authenticData = (message[3]! & 0x20) !== 0;
  const ancount = (message[6]! << 8) | message[7]!;
  if (ancount === 0) return { rcode, authenticData, text: "" };
  return { rcode, authenticData, text: answerText(message, ancount) };
}

/** A summary and the header fields it was made under. */
interface RememberedSummary {
  header: number;
  summary: AnswerSummary;
}

/** Per stored answer (Response.wireSource), the summary of its last copy. */
const bySource = new WeakMap<object, RememberedSummary>();

/**
 * The summary of `message`, a copy of the stored answer `source` (or of
 * nothing: then it is summarised afresh). Copies of one stored answer have
 * the same answer section, so the summary is made once and reused while
 * the header fields it reads (RCODE, AD, ANCOUNT: a truncated copy has no
 * answers) are the same.
 */
export function summarizeCopy(
  message: Uint8Array,
  source: object | undefined,
): AnswerSummary {
  if (source === undefined || message.length < HEADER_OCTETS) {
    return summarizeAnswer(message);
  }
  const header = ((message[3]! & 0x2f) << 16) | (message[6]! << 8) |
    message[7]!;
  const remembered = bySource.get(source);
  if (remembered !== undefined && remembered.header === header) {
    return remembered.summary;
  }
  const summary = summarizeAnswer(message);
  summary.hint = new PackHint();
  bySource.set(source, { header, summary });
  return summary;
}

function answerText(message: Uint8Array, ancount: number): string {
  const parts: string[] = [];
  try {
    const qdcount = (message[4]! << 8) | message[5]!;
    let pos = HEADER_OCTETS;
    // skipName checks a name without rendering it: no string per owner.
    for (let i = 0; i < qdcount; i++) pos = skipName(message, pos) + 4;
    for (let i = 0; i < ancount && i < MAX_RECORDS; i++) {
      pos = skipName(message, pos);
      if (pos + RR_FIXED_OCTETS > message.length) break;
      const type = (message[pos]! << 8) | message[pos + 1]!;
      const rdlength = (message[pos + 8]! << 8) | message[pos + 9]!;
      const rdata = pos + RR_FIXED_OCTETS;
      pos = rdata + rdlength;
      if (pos > message.length) break;
      parts.push(recordText(message, type, rdata, rdlength));
    }
  } catch {
    // A name that does not parse: summarise what came before it.
  }
  if (ancount > parts.length && parts.length > 0) {
    parts.push(`+${ancount - parts.length} more`);
  }
  const text = parts.join(", ");
  return text.length > MAX_SUMMARY
    ? text.slice(0, MAX_SUMMARY - 1) + "…"
    : text;
}

function recordText(
  message: Uint8Array,
  type: number,
  rdata: number,
  rdlength: number,
): string {
  const name = typeName(type);
  if (type === TYPE.A && rdlength === 4) {
    return `A ${ipv4Text(message, rdata)}`;
  }
  if (type === TYPE.AAAA && rdlength === 16) {
    return `AAAA ${ipv6Text(message, rdata)}`;
  }
  if (type === TYPE.CNAME || type === TYPE.PTR || type === TYPE.NS) {
    // Lowercase: a target compressed into a 0x20-mixed question name would
    // otherwise differ from query to query (and from its first copy).
    return `${name} ${readName(message, rdata).name.toLowerCase()}`;
  }
  if (type === TYPE.MX && rdlength > 2) {
    const preference = (message[rdata]! << 8) | message[rdata + 1]!;
    return `MX ${preference} ${
      readName(message, rdata + 2).name.toLowerCase()
    }`;
  }
  if ((type === TYPE.TXT) && rdlength > 0) {
    return `TXT ${firstString(message, rdata, rdlength)}`;
  }
  return name;
}

/** Longest part of a TXT record's first string kept in a summary. */
const MAX_TXT_OCTETS = 40;

/**
 * A TXT record's first character-string, quoted as a zone file has it
 * (zone/format.ts), cut at MAX_TXT_OCTETS; "…" when more follows.
 */
function firstString(
  message: Uint8Array,
  rdata: number,
  rdlength: number,
): string {
  const length = Math.min(message[rdata]!, rdlength - 1);
  const kept = Math.min(length, MAX_TXT_OCTETS);
  const more = length > kept || 1 + length < rdlength;
  const text = formatCharString(
    message.subarray(rdata + 1, rdata + 1 + kept),
  );
  return more ? `${text}…` : text;
}
