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
import { parseRdata } from "../../src/dns/rdata_text.ts";
import { formatRdata } from "../../src/zone/format.ts";
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

/**
 * One target in strict zone-file syntax: parsed, then written by the same
 * formatter the zone tests use, so names come out absolute and TXT quoted.
 */
export function renderRdata(type: string, target: string): string {
  return formatRdata(parseRdata(type, target));
}
