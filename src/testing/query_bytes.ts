/**
 * Test tools: queries built with dns-packet's encoder and answers decoded
 * with its decoder, so our own wire code is checked against an independent
 * implementation. Records come back in presentation format.
 */
import { Buffer } from "node:buffer";
import dnsPacket from "dns-packet";

/** What a test query says besides its question. */
export interface QueryOptions {
  /** @default 4660 */
  id?: number;
  /** @default true */
  rd?: boolean;
  cd?: boolean;
  /** Set to make it a response. */
  qr?: boolean;
  /** @default 0 (QUERY) */
  opcode?: number;
  /** @default "IN" */
  qclass?: string;
  /** Adds an OPT record. */
  edns?: {
    udpSize?: number;
    version?: number;
    do?: boolean;
    options?: { code: number; data: Uint8Array }[];
  };
}

/** Encodes a query for `question`, written `"www.example.org. A"`. */
export function encodeQuery(
  question: string,
  opts: QueryOptions = {},
): Uint8Array {
  const [name, type] = question.trim().split(/\s+/) as [string, string];
  const flags = (opts.rd ?? true ? 0x0100 : 0) | (opts.cd ? 0x0010 : 0) |
    ((opts.opcode ?? 0) << 11);
  // deno-lint-ignore no-explicit-any
  const additionals: any[] = [];
  if (opts.edns !== undefined) {
    additionals.push({
      type: "OPT",
      name: ".",
      udpPayloadSize: opts.edns.udpSize ?? 1232,
      ednsVersion: opts.edns.version ?? 0,
      flags: opts.edns.do ? 0x8000 : 0,
      options: (opts.edns.options ?? []).map((o) => ({
        code: o.code,
        data: Buffer.from(o.data),
      })),
    });
  }
  const packet = dnsPacket.encode({
    type: opts.qr ? "response" : "query",
    id: opts.id ?? 4660,
    flags,
    questions: [{
      // deno-lint-ignore no-explicit-any
      type: type as any,
      name: name.replace(/\.$/, ""),
      // deno-lint-ignore no-explicit-any
      class: (opts.qclass ?? "IN") as any,
    }],
    additionals,
  });
  return new Uint8Array(packet);
}

/** A decoded answer, sections as presentation lines. */
export interface DecodedAnswer {
  id: number;
  /** Mnemonic, extended codes included (BADVERS). */
  rcode: string;
  opcode: string;
  qr: boolean;
  aa: boolean;
  tc: boolean;
  rd: boolean;
  cd: boolean;
  /** `"name. TYPE CLASS"` */
  question: string[];
  answer: string[];
  authority: string[];
  /** Without the OPT record, which is in `opt`. */
  additional: string[];
  opt?: {
    udpSize: number;
    version: number;
    do: boolean;
    options: { code: number; data: Uint8Array }[];
  };
}

const EXTENDED_RCODES: Record<number, string> = { 16: "BADVERS" };

/** Decodes an answer with dns-packet. */
export function decodeAnswer(bytes: Uint8Array): DecodedAnswer {
  // deno-lint-ignore no-explicit-any
  const p = dnsPacket.decode(Buffer.from(bytes)) as any;
  // deno-lint-ignore no-explicit-any
  const additionals = (p.additionals ?? []) as any[];
  const opt = additionals.find((r) => r.type === "OPT");
  const low = bytes[3]! & 0x0f;
  const rcode = opt === undefined ? low : (opt.extendedRcode << 4) | low;
  const decoded: DecodedAnswer = {
    id: p.id ?? 0,
    rcode: EXTENDED_RCODES[rcode] ?? String(p.rcode),
    opcode: String(p.opcode),
    qr: (bytes[2]! & 0x80) !== 0,
    aa: p.flag_aa ?? false,
    tc: p.flag_tc ?? false,
    rd: p.flag_rd ?? false,
    cd: p.flag_cd ?? false,
    question: (p.questions ?? []).map((
      q: { name: string; type: string; class: string },
    ) => `${fqdn(q.name)} ${q.type} ${q.class}`),
    // deno-lint-ignore no-explicit-any
    answer: (p.answers ?? []).map((r: any) => recordText(r)),
    // deno-lint-ignore no-explicit-any
    authority: (p.authorities ?? []).map((r: any) => recordText(r)),
    additional: additionals.filter((r) => r.type !== "OPT").map(recordText),
  };
  if (opt !== undefined) {
    decoded.opt = {
      udpSize: opt.udpPayloadSize,
      version: opt.ednsVersion,
      do: opt.flag_do,
      // deno-lint-ignore no-explicit-any
      options: (opt.options ?? []).map((o: any) => ({
        code: o.code,
        data: new Uint8Array(o.data),
      })),
    };
  }
  return decoded;
}

function fqdn(name: string): string {
  return name === "" || name === "." ? "." : `${name}.`;
}

// deno-lint-ignore no-explicit-any
function recordText(r: any): string {
  return `${fqdn(r.name)} ${r.ttl} ${r.class} ${r.type} ${rdataText(r)}`;
}

// deno-lint-ignore no-explicit-any
function rdataText(r: any): string {
  const d = r.data;
  switch (r.type) {
    case "NS":
    case "CNAME":
    case "PTR":
    case "DNAME":
      return fqdn(d);
    case "MX":
      return `${d.preference} ${fqdn(d.exchange)}`;
    case "SOA":
      return `${fqdn(d.mname)} ${
        fqdn(d.rname)
      } ${d.serial} ${d.refresh} ${d.retry} ${d.expire} ${d.minimum}`;
    case "TXT":
      // deno-lint-ignore no-explicit-any
      return d.map((s: any) => JSON.stringify(new TextDecoder().decode(s)))
        .join(" ");
    default:
      return String(d);
  }
}
