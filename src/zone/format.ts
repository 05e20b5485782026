/**
 * RRsets back to presentation format (RFC 1035 §5.1), the way dig, NSD and
 * Knot print them: one line per record, `owner ttl class type rdata`. Used by
 * the content hash (a canonical text form), by tests (answers compared as
 * text) and by anything that shows records to people.
 */
import { RECORD_TYPES, typeCode } from "../dns/rdata_text.ts";
import type { SvcParam } from "../dns/rdata.ts";
import type { RecordData, RRSet } from "../dns/rrset.ts";
import { hexOf } from "../dns/hex.ts";

/** Mnemonics for codes that appear in answers but are not DNSRecordSet types. */
const EXTRA_TYPE_NAMES: Record<number, string> = {
  6: "SOA",
  43: "DS",
  48: "DNSKEY",
  255: "ANY",
};

const TYPE_NAMES = new Map<number, string>(
  RECORD_TYPES.map((name) => [typeCode(name)!, name]),
);

const CLASS_NAMES: Record<number, string> = { 1: "IN", 3: "CH" };

const SVC_KEY_NAMES = [
  "mandatory",
  "alpn",
  "no-default-alpn",
  "port",
  "ipv4hint",
  "ech",
  "ipv6hint",
  "dohpath",
];

/** The mnemonic of a type code, or `TYPEnnn` (RFC 3597 §5). */
export function typeName(code: number): string {
  return TYPE_NAMES.get(code) ?? EXTRA_TYPE_NAMES[code] ?? `TYPE${code}`;
}

/** One character-string, quoted, with `"` and `\` escaped and non-printables as `\DDD`. */
export function formatCharString(octets: Uint8Array): string {
  let out = '"';
  for (const octet of octets) {
    if (octet === 0x22 || octet === 0x5c) {
      out += "\\" + String.fromCharCode(octet);
    } else if (octet < 0x20 || octet > 0x7e) {
      out += "\\" + String(octet).padStart(3, "0");
    } else out += String.fromCharCode(octet);
  }
  return out + '"';
}

function hex(octets: Uint8Array): string {
  return hexOf(octets).toUpperCase();
}

function base64(octets: Uint8Array): string {
  return btoa(String.fromCharCode(...octets));
}

/** RFC 9460 value-list escaping: a comma inside an item is written `\,`. */
function alpnList(ids: Uint8Array[]): string {
  return ids.map((id) =>
    formatCharString(id).slice(1, -1).replace(/,/g, "\\\\,")
  )
    .join(",");
}

function svcKeyName(code: number): string {
  return SVC_KEY_NAMES[code] ?? `key${code}`;
}

function formatSvcParam(param: SvcParam): string {
  switch (param.key) {
    case "mandatory":
      return `mandatory=${param.keys.map(svcKeyName).join(",")}`;
    case "alpn":
      return `alpn="${alpnList(param.ids)}"`;
    case "no-default-alpn":
      return "no-default-alpn";
    case "port":
      return `port=${param.port}`;
    case "ipv4hint":
      return `ipv4hint=${param.addresses.join(",")}`;
    case "ech":
      return `ech=${base64(param.config)}`;
    case "ipv6hint":
      return `ipv6hint=${param.addresses.join(",")}`;
    case "dohpath":
      return `dohpath=${
        formatCharString(new TextEncoder().encode(param.template))
      }`;
    case "generic":
      return `${svcKeyName(param.code)}=${formatCharString(param.value)}`;
  }
}

/** The rdata of one record in presentation format. */
export function formatRdata(rdata: RecordData): string {
  switch (rdata.type) {
    case "A":
    case "AAAA":
      return rdata.address;
    case "CNAME":
    case "DNAME":
    case "NS":
    case "PTR":
      return rdata.target;
    case "MX":
      return `${rdata.preference} ${rdata.exchange}`;
    case "SRV":
      return `${rdata.priority} ${rdata.weight} ${rdata.port} ${rdata.target}`;
    case "NAPTR":
      return [
        rdata.order,
        rdata.preference,
        formatCharString(rdata.flags),
        formatCharString(rdata.service),
        formatCharString(rdata.regexp),
        rdata.replacement,
      ].join(" ");
    case "TLSA":
      return `${rdata.usage} ${rdata.selector} ${rdata.matchingType} ${
        hex(rdata.data)
      }`;
    case "SSHFP":
      return `${rdata.algorithm} ${rdata.fingerprintType} ${
        hex(rdata.fingerprint)
      }`;
    case "CAA":
      return `${rdata.flags} ${rdata.tag} ${formatCharString(rdata.value)}`;
    case "TXT":
      return rdata.strings.map(formatCharString).join(" ");
    case "SVCB":
    case "HTTPS":
      return [rdata.priority, rdata.target, ...rdata.params.map(formatSvcParam)]
        .join(" ");
    case "unknown":
      return `\\# ${rdata.data.length}${
        rdata.data.length > 0 ? " " + hex(rdata.data) : ""
      }`;
    case "SOA":
      return [
        rdata.mname,
        rdata.rname,
        rdata.serial,
        rdata.refresh,
        rdata.retry,
        rdata.expire,
        rdata.minimum,
      ].join(" ");
  }
}

/** Every record of an RRset as one presentation line each, in RRset order. */
export function formatRRSet(rrset: RRSet): string[] {
  const head = `${rrset.name} ${rrset.ttl} ${
    CLASS_NAMES[rrset.class ?? 1] ?? `CLASS${rrset.class}`
  } ${typeName(rrset.type)}`;
  return rrset.rdata.map((rdata) => `${head} ${formatRdata(rdata)}`);
}
