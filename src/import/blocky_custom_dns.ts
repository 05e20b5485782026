/**
 * blocky's `customDNS` → primary DNSZones with their DNSRecordSets. blocky
 * answers a mapped name and every name below it (blocky's configuration.md,
 * "Subdomain Resolution"), so each mapped name becomes a zone of its own
 * holding the name and its wildcard `*.name`: kudurru then answers the
 * mapped names like blocky and forwards the rest of their parent domain as
 * before. `customDNS.zone` is a zone file, read by src/zone/zone_file_parse.ts.
 */
import { checkDomainName } from "../dns/name.ts";
import { isIpAddress } from "../dns/ip_text.ts";
import { formatRdata } from "../zone/format.ts";
import { parseZoneFile, type ZoneFileRecord } from "../zone/zone_file_parse.ts";
import {
  blockyDurationMs,
  type BlockyImport,
  isMap,
  show,
  type YamlMap,
} from "./blocky_context.ts";

/** blocky's default customTTL (blocky's configuration.md): one hour. */
const DEFAULT_TTL_S = 3600;

export function importCustomDns(imp: BlockyImport, doc: YamlMap): void {
  const section = doc.customDNS;
  if (!isMap(section)) return;
  let ttl = DEFAULT_TTL_S;
  if (section.customTTL !== undefined) {
    const ms = blockyDurationMs(section.customTTL);
    if (ms !== undefined && ms >= 0) {
      ttl = Math.floor(ms / 1000);
      imp.mapped(
        "customDNS.customTTL",
        show(section.customTTL),
        `record TTL ${ttl}s`,
      );
    } else {
      imp.skipped(
        "customDNS.customTTL",
        show(section.customTTL),
        "not a duration; 1h used",
      );
    }
  }
  const mapping = isMap(section.mapping) ? section.mapping : {};
  for (const [domain, value] of Object.entries(mapping)) {
    importMapping(imp, domain, String(value ?? ""), ttl);
  }
  if (typeof section.zone === "string") importZone(imp, section.zone);
  else if (section.zone !== undefined) {
    imp.skipped("customDNS.zone", show(section.zone), "not zone file text");
  }
  const reasons: Record<string, string> = {
    rewrite:
      "kudurru does not rewrite query names; map the rewritten names themselves",
    filterUnmappedTypes:
      "kudurru answers a name it holds with no records of other types (NODATA), it does not forward them",
  };
  if (
    section.filterUnmappedTypes !== false && "filterUnmappedTypes" in section
  ) {
    imp.mapped(
      "customDNS.filterUnmappedTypes",
      "true",
      "kudurru does the same: a mapped name has no records of other types (NODATA)",
    );
  }
  for (const key of Object.keys(section)) {
    if (["customTTL", "mapping", "zone"].includes(key)) continue;
    if (key === "filterUnmappedTypes" && section[key] !== false) continue;
    imp.skipped(
      `customDNS.${key}`,
      show(section[key]),
      reasons[key] ?? "unknown key",
    );
  }
}

/** One `mapping` entry → a zone for the name, its records and their wildcards. */
function importMapping(
  imp: BlockyImport,
  domain: string,
  value: string,
  ttl: number,
): void {
  const where = `customDNS.mapping.${domain}`;
  const fqdn = `${domain.trim().toLowerCase().replace(/\.$/, "")}.`;
  if (
    checkDomainName(fqdn, { requireTrailingDot: true }) !== null || fqdn === "."
  ) {
    imp.skipped(where, value, "not a domain name");
    return;
  }
  const targets = value.split(",").map((s) => s.trim()).filter((s) => s);
  const a = targets.filter((t) => isIpAddress(t) && !t.includes(":"));
  const aaaa = targets.filter((t) => isIpAddress(t) && t.includes(":"));
  const names = targets.filter((t) => !isIpAddress(t));
  const rrsets: [string, string[]][] = [];
  if (a.length > 0) rrsets.push(["A", a]);
  if (aaaa.length > 0) rrsets.push(["AAAA", aaaa]);
  if (names.length === 1 && targets.length === 1) {
    rrsets.push(["CNAME", [`${names[0]!.replace(/\.$/, "")}.`]]);
  } else if (names.length > 0) {
    imp.skipped(
      where,
      value,
      `${names.join(", ")}: a name target (CNAME) must stand alone`,
    );
    if (rrsets.length === 0) return;
  }
  if (rrsets.length === 0) {
    imp.skipped(where, value, "no address to answer with");
    return;
  }
  const name = imp.uniqueName("DNSZone", fqdn.slice(0, -1));
  imp.add("DNSZone", name, { zoneName: fqdn, type: "primary" }, false);
  const endpoints = rrsets.flatMap(([recordType, list]) =>
    [fqdn, `*.${fqdn}`].map((dnsName) => ({
      dnsName,
      recordType,
      targets: list,
      recordTTL: ttl,
    }))
  );
  imp.add("DNSRecordSet", imp.uniqueName("DNSRecordSet", name), {
    zoneRef: { name },
    endpoints,
  });
  imp.mapped(
    where,
    value,
    `DNSZone ${name} (primary) with ${
      rrsets.map(([t]) => t).join("/")
    } records for ${fqdn} and *.${fqdn} (blocky answers every subdomain)`,
  );
  imp.skipped(
    where,
    value,
    "the PTR records blocky derives from the addresses are not created; add a reverse zone if clients need them",
  );
}

/**
 * `customDNS.zone` → one primary zone: the SOA's owner, else the longest
 * domain every record lies in. Records outside it, and the SOA (kudurru
 * makes its own), are reported.
 */
function importZone(imp: BlockyImport, text: string): void {
  const where = "customDNS.zone";
  const parse = parseZoneFile(text, { origin: "." });
  for (const s of parse.skipped) {
    imp.skipped(`${where}:${s.line}`, s.text, s.reason);
  }
  if (parse.records.length === 0) {
    imp.skipped(where, show(text), "no record in the zone text");
    return;
  }
  const soa = parse.records.find((r) => r.type === "SOA");
  const zoneName = soa?.owner ??
    commonSuffix(parse.records.map((r) => r.owner));
  if (zoneName === ".") {
    imp.skipped(
      where,
      show(text),
      "its records share no domain to make a zone of",
    );
    return;
  }
  const name = imp.uniqueName("DNSZone", zoneName.slice(0, -1));
  imp.add("DNSZone", name, { zoneName, type: "primary" }, false);
  const groups = new Map<
    string,
    { r: ZoneFileRecord; targets: string[]; ttl?: number }
  >();
  for (const r of parse.records) {
    if (r.type === "SOA") {
      imp.skipped(
        `${where}:${r.line}`,
        r.text,
        "the SOA comes from the DNSZone (kudurru writes its own)",
      );
      continue;
    }
    if (r.owner !== zoneName && !r.owner.endsWith(`.${zoneName}`)) {
      imp.skipped(`${where}:${r.line}`, r.text, `outside the zone ${zoneName}`);
      continue;
    }
    const key = `${r.owner} ${r.type}`;
    const group = groups.get(key) ?? { r, targets: [] };
    group.targets.push(formatRdata(r.rdata));
    if (r.ttl !== undefined) group.ttl = Math.min(group.ttl ?? r.ttl, r.ttl);
    groups.set(key, group);
  }
  const endpoints = [...groups.values()].map((g) => ({
    dnsName: g.r.owner,
    recordType: g.r.type,
    targets: g.targets,
    ...(g.ttl !== undefined && { recordTTL: g.ttl }),
  }));
  if (endpoints.length > 0) {
    imp.add("DNSRecordSet", imp.uniqueName("DNSRecordSet", name), {
      zoneRef: { name },
      endpoints: endpoints.slice(0, 1000),
    });
  }
  imp.mapped(
    where,
    zoneName,
    `DNSZone ${name} (primary) with ${endpoints.length} record sets`,
  );
}

/** The longest domain (label-wise) every name lies in. */
function commonSuffix(names: string[]): string {
  const split = names.map((n) => n.split(".").filter((l) => l).reverse());
  const first = split[0]!;
  let n = 0;
  while (n < first.length && split.every((labels) => labels[n] === first[n])) {
    n++;
  }
  return n === 0 ? "." : `${first.slice(0, n).reverse().join(".")}.`;
}
