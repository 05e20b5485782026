/**
 * The records a DNSZone object itself declares at its apex: the SOA (from
 * spec.soa, with defaults) and the NS RRset (from spec.nameservers).
 */
import type { DNSZone } from "../api/v1alpha1/dnszone.ts";
import { normalizeName, toFqdn } from "../dns/name.ts";
import type { RRSet, SoaRdata } from "../dns/rrset.ts";

/** RR type codes this folder needs by number. */
import { TYPE } from "../dns/wire/constants.ts";

/** RR type codes, shared with the wire codec. */
export { TYPE };

/** Schema defaults of DNSZone spec.soa (src/api/v1alpha1/dnszone.ts). */
const SOA_DEFAULTS = {
  refresh: 3600,
  retry: 900,
  expire: 1209600,
  minimum: 300,
};

/** The zone's name as a lowercase FQDN. */
export function zoneNameOf(zone: DNSZone): string {
  return normalizeName(zone.spec?.zoneName ?? "");
}

function relativeToZone(label: string, zoneName: string): string {
  return zoneName === "." ? `${label}.` : `${label}.${zoneName}`;
}

/** The apex NS targets from spec.nameservers, absolute, duplicates dropped. */
export function apexNameservers(zone: DNSZone): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const ns of zone.spec?.nameservers ?? []) {
    const fqdn = toFqdn(ns);
    const key = normalizeName(fqdn);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(fqdn);
  }
  return out;
}

/**
 * The SOA RRset. Absent fields take the schema defaults; mname defaults to
 * the first nameserver (else `ns1.<zone>`), rname to `hostmaster.<zone>`.
 * The TTL is spec.defaultTTL: the DNSZone has no separate SOA TTL field.
 */
export function soaRRSet(zone: DNSZone, serial: number): RRSet {
  const name = zoneNameOf(zone);
  const soa = zone.spec?.soa;
  const rdata: SoaRdata = {
    type: "SOA",
    mname: toFqdn(
      soa?.mname ?? apexNameservers(zone)[0] ?? relativeToZone("ns1", name),
    ),
    rname: toFqdn(soa?.rname ?? relativeToZone("hostmaster", name)),
    serial,
    refresh: soa?.refresh ?? SOA_DEFAULTS.refresh,
    retry: soa?.retry ?? SOA_DEFAULTS.retry,
    expire: soa?.expire ?? SOA_DEFAULTS.expire,
    minimum: soa?.minimum ?? SOA_DEFAULTS.minimum,
  };
  return { name, type: TYPE.SOA, ttl: defaultTTLOf(zone), rdata: [rdata] };
}

/** The apex NS RRset from spec.nameservers, or undefined when there are none. */
export function apexNsRRSet(zone: DNSZone): RRSet | undefined {
  const targets = apexNameservers(zone);
  if (targets.length === 0) return undefined;
  return {
    name: zoneNameOf(zone),
    type: TYPE.NS,
    ttl: defaultTTLOf(zone),
    rdata: targets.map((target) => ({ type: "NS", target })),
  };
}

/** spec.defaultTTL, with the schema default when the object skipped validation. */
export function defaultTTLOf(zone: DNSZone): number {
  return zone.spec?.defaultTTL ?? 300;
}
