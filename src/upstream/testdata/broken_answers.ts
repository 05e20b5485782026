/**
 * Answers whose header and question are right but whose records a client
 * cannot parse, as the hostile upstream of the audit sent them: names in
 * record data pointing past the message or at themselves, an SOA short of
 * its numbers, an A of 5 octets, a record cut off.
 */
import { RCODE } from "../../dns/wire/constants.ts";
import type { QueryInfo } from "../../dns/wire/query.ts";
import { answer } from "./scripted_upstream.ts";

/** Record data, or a function of the offset where it will start. */
type Rdata = number[] | ((rdataAt: number) => number[]);

interface RawRecord {
  type: number;
  rdata: Rdata;
}

const OWNER_IS_QNAME = [0xc0, 0x0c];
const SOA_NUMBERS = [
  0,
  0,
  0,
  1,
  0,
  0,
  0,
  2,
  0,
  0,
  0,
  3,
  0,
  0,
  0,
  4,
  0,
  0,
  0,
  60,
];

/** `base` (a response without records) with these records appended. */
export function withRecords(
  base: Uint8Array,
  sections: { answer?: RawRecord[]; authority?: RawRecord[] },
): Uint8Array {
  const out = Array.from(base);
  const records = [...sections.answer ?? [], ...sections.authority ?? []];
  for (const { type, rdata } of records) {
    const rdataAt = out.length + OWNER_IS_QNAME.length + 10;
    const data = typeof rdata === "function" ? rdata(rdataAt) : rdata;
    out.push(...OWNER_IS_QNAME, type >> 8, type & 0xff, 0, 1, 0, 0, 0, 60);
    out.push(data.length >> 8, data.length & 0xff, ...data);
  }
  out[7] = sections.answer?.length ?? 0;
  out[9] = sections.authority?.length ?? 0;
  return Uint8Array.from(out);
}

/** One broken answer: what it is, and how to make it for a query. */
export interface BrokenAnswer {
  name: string;
  make: (query: QueryInfo) => Uint8Array;
}

/** The broken answers the audit's hostile upstream sent, by its names. */
export const BROKEN_ANSWERS: BrokenAnswer[] = [
  {
    name: "badmx: an MX exchange pointing past the message",
    make: (q) =>
      withRecords(answer(q), {
        answer: [{ type: 15, rdata: [0, 10, 0xff, 0xf0] }],
      }),
  },
  {
    name: "badns: an NS target in authority pointing at itself",
    make: (q) =>
      withRecords(answer(q), {
        answer: [{ type: 1, rdata: [192, 0, 2, 1] }],
        authority: [{
          type: 2,
          rdata: (at) => [0xc0 | (at >> 8), at & 0xff],
        }],
      }),
  },
  {
    name: "badsoa: an NXDOMAIN SOA whose MNAME points forward",
    make: (q) =>
      withRecords(answer(q, { rcode: RCODE.NXDOMAIN }), {
        authority: [{ type: 6, rdata: [0xf0, 0x00, 0, ...SOA_NUMBERS] }],
      }),
  },
  {
    name: "soashort: an SOA one octet short",
    make: (q) =>
      withRecords(answer(q, { rcode: RCODE.NXDOMAIN }), {
        authority: [{ type: 6, rdata: [0, 0, ...SOA_NUMBERS.slice(1)] }],
      }),
  },
  {
    name: "alen: an A of 5 octets",
    make: (q) =>
      withRecords(answer(q), {
        answer: [{ type: 1, rdata: [192, 0, 2, 1, 7] }],
      }),
  },
  {
    name: "trunc: the last record cut off",
    make: (q) => answer(q, { a: ["192.0.2.1"] }).slice(0, -2),
  },
];
