/**
 * Normalises DNS responses so answers from different servers compare as
 * sets: every record one presentation-format line, owner names lowercased,
 * sections sorted (record order inside an RRset carries no meaning), OPT
 * left out of the additional section and reported as a flag instead.
 */
import type {
  DecodedRecord,
  DecodedResponse,
} from "../../src/testing/dns_client.ts";
import { typeCode } from "../../src/dns/rdata_text.ts";
import { hexOf } from "../../src/dns/hex.ts";

/** A response reduced to what servers must agree on. */
export interface NormalizedResponse {
  rcode: string;
  flags: { aa: boolean; tc: boolean; rd: boolean; ra: boolean };
  /** The echoed question, case kept: servers must not change qname case. */
  question: string[];
  /** True when the response carries an OPT record. */
  edns: boolean;
  answer: string[];
  authority: string[];
  additional: string[];
}

/** Knobs for answers that legitimately differ between servers. */
export interface NormalizeOptions {
  /** Write SOA serials as `*` (kudurru stamps its own serial). */
  maskSoaSerial?: boolean;
}

/** Reduces a decoded response to its comparable form. */
export function normalizeResponse(
  response: DecodedResponse,
  opts: NormalizeOptions = {},
): NormalizedResponse {
  const lines = (records: DecodedRecord[]) =>
    records.filter((r) => r.type !== "OPT").map((r) => formatRecord(r, opts))
      .sort(compareLines);
  return {
    rcode: response.rcode,
    flags: {
      aa: response.flag_aa,
      tc: response.flag_tc,
      rd: response.flag_rd,
      ra: response.flag_ra,
    },
    question: response.questions.map((q) =>
      `${absolute(q.name)} ${q.class} ${typeName(q.type)}`
    ),
    edns: response.additionals.some((r) => r.type === "OPT"),
    answer: lines(response.answers),
    authority: lines(response.authorities),
    additional: lines(response.additionals),
  };
}

/**
 * A readable diff of two normalised responses, one line per difference,
 * or "" when they agree.
 */
export function diffResponses(
  a: NormalizedResponse,
  b: NormalizedResponse,
  labels: [string, string] = ["a", "b"],
): string {
  const out: string[] = [];
  const scalar = (what: string, x: unknown, y: unknown) => {
    if (JSON.stringify(x) !== JSON.stringify(y)) {
      out.push(
        `${what}: ${labels[0]} ${JSON.stringify(x)}, ${labels[1]} ${
          JSON.stringify(y)
        }`,
      );
    }
  };
  scalar("rcode", a.rcode, b.rcode);
  scalar("flags", a.flags, b.flags);
  scalar("question", a.question, b.question);
  scalar("edns", a.edns, b.edns);
  for (const section of ["answer", "authority", "additional"] as const) {
    const onlyA = a[section].filter((l) => !b[section].includes(l));
    const onlyB = b[section].filter((l) => !a[section].includes(l));
    for (const line of onlyA) {
      out.push(`${section}: only ${labels[0]}: ${line}`);
    }
    for (const line of onlyB) {
      out.push(`${section}: only ${labels[1]}: ${line}`);
    }
  }
  return out.join("\n");
}

/** One record as a zone-file line, owner lowercased. */
export function formatRecord(
  record: DecodedRecord,
  opts: NormalizeOptions = {},
): string {
  const type = typeName(record.type);
  const owner = absolute(record.name).toLowerCase();
  const rdata = formatRdata(type, record.data, opts);
  return `${owner} ${record.ttl} ${record.class} ${type} ${rdata}`;
}

function compareLines(x: string, y: string): number {
  const key = (l: string) => {
    const [owner, , , type, ...rest] = l.split(" ");
    return `${owner} ${type} ${rest.join(" ")}`;
  };
  return key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0;
}

/** dns-packet writes unknown types as UNKNOWN_<code>; use our mnemonics. */
function typeName(type: string): string {
  const m = /^UNKNOWN_(\d+)$/.exec(type);
  if (m === null) return type;
  const code = Number(m[1]);
  for (const name of ["SVCB", "HTTPS"]) {
    if (typeCode(name) === code) return name;
  }
  return `TYPE${code}`;
}

function absolute(name: string): string {
  return name === "" || name === "." ? "." : `${name.replace(/\.$/, "")}.`;
}

function hex(bytes: Uint8Array): string {
  return hexOf(bytes).toUpperCase();
}

/** A character-string in quotes; non-printable octets as \DDD. */
function quoted(bytes: Uint8Array | string): string {
  const octets = typeof bytes === "string"
    ? new TextEncoder().encode(bytes)
    : bytes;
  let out = '"';
  for (const b of octets) {
    if (b === 0x22 || b === 0x5c) out += `\\${String.fromCharCode(b)}`;
    else if (b < 0x20 || b > 0x7e) out += `\\${String(b).padStart(3, "0")}`;
    else out += String.fromCharCode(b);
  }
  return `${out}"`;
}

// deno-lint-ignore no-explicit-any -- dns-packet's rdata shapes are untyped
function formatRdata(type: string, data: any, opts: NormalizeOptions): string {
  if (data instanceof Uint8Array) return `\\# ${data.length} ${hex(data)}`;
  switch (type) {
    case "A":
    case "AAAA":
      return String(data);
    case "NS":
    case "CNAME":
    case "DNAME":
    case "PTR":
      return absolute(data);
    case "MX":
      return `${data.preference} ${absolute(data.exchange)}`;
    case "SOA":
      return [
        absolute(data.mname),
        absolute(data.rname),
        opts.maskSoaSerial ? "*" : data.serial,
        data.refresh,
        data.retry,
        data.expire,
        data.minimum,
      ].join(" ");
    case "TXT":
      return (Array.isArray(data) ? data : [data]).map(quoted).join(" ");
    case "SRV":
      return `${data.priority} ${data.weight} ${data.port} ${
        absolute(data.target)
      }`;
    case "CAA":
      return `${data.flags} ${data.tag} ${quoted(data.value)}`;
    case "NAPTR":
      return `${data.order} ${data.preference} ${quoted(data.flags)} ${
        quoted(data.services)
      } ${quoted(data.regexp)} ${absolute(data.replacement)}`;
    case "TLSA":
      return `${data.usage} ${data.selector} ${data.matchingType} ${
        hex(data.certificate)
      }`;
    case "SSHFP":
      return `${data.algorithm} ${data.hash} ${
        String(data.fingerprint).toUpperCase()
      }`;
    case "DS":
      return `${data.keyTag} ${data.algorithm} ${data.digestType} ${
        hex(data.digest)
      }`;
    default:
      return JSON.stringify(data);
  }
}
