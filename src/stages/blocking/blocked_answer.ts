/**
 * The answer to a blocked query, always for the question the client asked
 * (also when the block came from a CNAME target or an address in the
 * upstream's answer):
 *
 * - zeroIP: A 0.0.0.0 / AAAA ::, other types NODATA;
 * - customIP: A the IPv4 and AAAA the IPv6 addresses, NODATA when there are
 *   none of that family and for other types;
 * - nxdomain: NXDOMAIN; refused: REFUSED.
 *
 * NODATA and NXDOMAIN carry a synthesised SOA in the authority section whose
 * MINIMUM and TTL are the block TTL, so resolvers cache the negative answer
 * as long as a positive blocked answer (RFC 2308 §5). RA is set, as on every
 * recursive answer, and a client that sent EDNS gets an Extended DNS Error
 * (RFC 8914) saying why.
 */
import { EDNS_OPTION, RCODE, TYPE } from "../../dns/wire/constants.ts";
import { extendedError } from "../../dns/wire/extended_error.ts";
import { parseIpv4Text, parseIpv6Text } from "../../dns/rdata_text_fields.ts";
import { OUR_UDP_PAYLOAD_SIZE } from "../../pipeline/answer_encoding.ts";
import type { BlockResponse } from "../../blocking/blocking_snapshot.ts";
import type { Request } from "../../pipeline/request.ts";
import {
  type AnswerSections,
  replyTo,
  type Response,
} from "../../pipeline/response.ts";
import type { RRSet } from "../../dns/rrset.ts";
import type { BlockReason } from "./block_reason.ts";

/**
 * The synthesised SOA's MNAME and RNAME. `localhost.` names no real primary;
 * the RNAME sits under `invalid.` (RFC 6761 §6.4), so it can never reach a
 * real mailbox, and says what happened to anyone reading a packet capture.
 */
export const BLOCKED_SOA_MNAME = "localhost.";
export const BLOCKED_SOA_RNAME = "blocked.kudurru.invalid.";
/** Refresh, retry and expire of the synthesised SOA: never used (no zone transfers), RFC 1912 values. */
const SOA_TIMERS = { refresh: 3600, retry: 600, expire: 86400 } as const;

/** The block TTL when a decision carries none usable (seed: blockTTL 10 m). */
export const DEFAULT_BLOCK_TTL = 600;
/** RFC 2181 §8: TTLs are at most 2^31 - 1. */
const MAX_TTL = 0x7fffffff;

/** How one block is answered and explained. */
export interface BlockDescription {
  /** The answer mode and custom addresses. */
  mode: BlockResponse["mode"];
  customIPs: readonly string[];
  /** Seconds. */
  ttl: number;
  /** The BlockList's display name, or the allowOnly policy's key. */
  list: string;
  rule: string;
  /** The Extended DNS Error (block_reason.ts). */
  reason: BlockReason;
}

/** The blocked answer to `req` (which has a question of class IN). */
export function blockedAnswer(req: Request, block: BlockDescription): Response {
  const question = req.query.question!;
  const ttl = usableTtl(block.ttl);
  let rcode: number = RCODE.NOERROR;
  let answer: RRSet[] | undefined;
  switch (block.mode) {
    case "nxdomain":
      rcode = RCODE.NXDOMAIN;
      break;
    case "refused":
      rcode = RCODE.REFUSED;
      break;
    case "customIP":
      answer = addressAnswer(question, ttl, addressRdata(block.customIPs));
      break;
    default: // zeroIP, and any mode this version does not know
      answer = addressAnswer(question, ttl, ZERO_RDATA);
  }
  const sections: AnswerSections = {};
  if (answer !== undefined) sections.answer = answer;
  else if (rcode !== RCODE.REFUSED) {
    sections.authority = [negativeSoa(question.name, ttl)];
  }
  const message = replyTo(req, rcode, sections);
  message.ra = true;
  if (req.query.edns !== undefined) {
    message.edns = {
      udpSize: OUR_UDP_PAYLOAD_SIZE,
      options: [{
        code: EDNS_OPTION.EDE,
        data: extendedError(block.reason.infoCode, block.reason.text),
      }],
    };
  }
  return {
    message,
    status: "blocked_list",
    stage: "blocking",
    list: block.list,
    rule: block.rule,
    cacheable: false,
  };
}

/** The A and AAAA record data of a list of addresses. */
interface AddressRdata {
  v4: RRSet["rdata"];
  v6: RRSet["rdata"];
}

const ZERO_RDATA: AddressRdata = {
  v4: [{ type: "A", address: "0.0.0.0" }],
  v6: [{ type: "AAAA", address: "::" }],
};

/**
 * Validated record data per customIPs array: the arrays live in the
 * snapshot, so each is checked once, not on every blocked query.
 */
const customRdata = new WeakMap<readonly string[], AddressRdata>();

function addressRdata(addresses: readonly string[]): AddressRdata {
  if (!Array.isArray(addresses)) return { v4: [], v6: [] };
  let known = customRdata.get(addresses);
  if (known === undefined) {
    known = { v4: [], v6: [] };
    for (const entry of addresses) {
      // Invalid entries are left out: the encoder would throw on them.
      const text = String(entry);
      const v6 = text.includes(":");
      const address = v6 ? parseIpv6Text(text) : parseIpv4Text(text);
      if (address === null) continue;
      if (v6) known.v6.push({ type: "AAAA", address });
      else known.v4.push({ type: "A", address });
    }
    customRdata.set(addresses, known);
  }
  return known;
}

/** The A or AAAA RRset of `addresses` for the question, or undefined (NODATA). */
function addressAnswer(
  question: { name: string; type: number },
  ttl: number,
  addresses: AddressRdata,
): RRSet[] | undefined {
  const { type } = question;
  const rdata = type === TYPE.A
    ? addresses.v4
    : type === TYPE.AAAA
    ? addresses.v6
    : undefined;
  if (rdata === undefined || rdata.length === 0) return undefined;
  // The owner is the question as the client wrote it: the encoder then
  // points it at the question instead of writing the name again. The rdata
  // array is shared between answers; nothing downstream modifies it.
  return [{ name: question.name, type, ttl, rdata }];
}

/** SOA for the negative answer; owner = the queried name, MINIMUM = the block TTL. */
function negativeSoa(owner: string, ttl: number): RRSet {
  return {
    name: owner,
    type: TYPE.SOA,
    ttl,
    rdata: [{
      type: "SOA",
      mname: BLOCKED_SOA_MNAME,
      rname: BLOCKED_SOA_RNAME,
      serial: 1,
      ...SOA_TIMERS,
      minimum: ttl,
    }],
  };
}

function usableTtl(ttl: number): number {
  if (!Number.isFinite(ttl) || ttl < 0) return DEFAULT_BLOCK_TTL;
  return Math.min(Math.floor(ttl), MAX_TTL);
}
