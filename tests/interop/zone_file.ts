/**
 * Renders a DNSZone and its DNSRecordSets to an RFC 1035 zone file that NSD
 * and Knot load, so the peers serve exactly what kudurru serves from the
 * same objects. Targets are presentation text in external-dns style: domain
 * names without a trailing dot are absolute, and TXT without quotes is one
 * literal string; both are rewritten here into strict zone-file syntax.
 */
import type { DNSZone } from "../../src/api/v1alpha1/dnszone.ts";
import type {
  DNSRecordSet,
  Endpoint,
} from "../../src/api/v1alpha1/dnsrecordset.ts";
import { parseRdata, type Rdata } from "../../src/dns/rdata_text.ts";
import { toFqdn } from "../../src/dns/name.ts";

/** The zone's SOA defaults, as the DNSZone schema applies them. */
const SOA_DEFAULTS = {
  refresh: 3600,
  retry: 900,
  expire: 1209600,
  minimum: 300,
};

/** Renders one zone: SOA, apex NS, then every endpoint of every record set. */
export function renderZoneFile(zone: DNSZone, sets: DNSRecordSet[]): string {
  const spec = zone.spec!;
  const origin = toFqdn(spec.zoneName);
  const ttl = spec.defaultTTL ?? 300;
  const soa = { ...SOA_DEFAULTS, ...spec.soa };
  const serial = zone.status?.serial ?? 1;
  const lines = [
    `$ORIGIN ${origin}`,
    `${origin} ${ttl} IN SOA ${soa.mname} ${soa.rname} ${serial} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minimum}`,
    ...(spec.nameservers ?? []).map((ns) => `${origin} ${ttl} IN NS ${ns}`),
  ];
  for (const set of sets) {
    if (set.spec?.zoneRef.name !== zone.metadata.name) continue;
    for (const endpoint of set.spec.endpoints) {
      lines.push(...renderEndpoint(endpoint, ttl));
    }
  }
  return lines.join("\n") + "\n";
}

function renderEndpoint(endpoint: Endpoint, defaultTTL: number): string[] {
  if (endpoint.kudurru?.disabled) return [];
  const owner = toFqdn(endpoint.dnsName);
  const ttl = endpoint.recordTTL ?? defaultTTL;
  return endpoint.targets.map((target) =>
    `${owner} ${ttl} IN ${endpoint.recordType} ${
      renderRdata(endpoint.recordType, target)
    }`
  );
}

/** One target in strict zone-file syntax. */
export function renderRdata(type: string, target: string): string {
  const rdata = parseRdata(type, target);
  return renderParsed(rdata, target);
}

function renderParsed(rdata: Rdata, original: string): string {
  switch (rdata.type) {
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
        quote(rdata.flags),
        quote(rdata.service),
        quote(rdata.regexp),
        rdata.replacement,
      ].join(" ");
    case "TXT":
      return rdata.strings.map(quote).join(" ");
    case "SVCB":
    case "HTTPS":
      return replaceField(original, 1, rdata.target);
    default:
      // A, AAAA, TLSA, SSHFP, CAA and TYPEnnn hold no domain names and are
      // already zone-file syntax.
      return original.trim();
  }
}

/**
 * Replaces the n-th whitespace-separated field. Only used for SVCB/HTTPS
 * whose first two fields (priority, target) never contain quotes.
 */
function replaceField(text: string, n: number, value: string): string {
  const fields = text.trim().split(/\s+/);
  fields[n] = value;
  return fields.join(" ");
}

/** A character-string in quotes; `"`, `\` and non-printable octets escaped. */
function quote(octets: Uint8Array): string {
  let out = '"';
  for (const b of octets) {
    if (b === 0x22 || b === 0x5c) out += "\\" + String.fromCharCode(b);
    else if (b < 0x20 || b > 0x7e) out += "\\" + String(b).padStart(3, "0");
    else out += String.fromCharCode(b);
  }
  return out + '"';
}
