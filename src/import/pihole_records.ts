/**
 * Pi-hole's local DNS records as primary zones: `dns.hosts` (hosts-file
 * lines, "Local DNS Records" in the web interface), `dns.cnameRecords`
 * (`cname,target[,ttl]`), `dns.hostRecord` (dnsmasq's `host-record=`
 * value) and, from a v5 Teleporter, `custom.list` and the `cname=` lines
 * of `05-pihole-custom-cname.conf`. pihole-FTL hands these to its dnsmasq,
 * so they are read with the dnsmasq importer's record parsers and placed
 * by its zone rules (dnsmasq_zones.ts). IDNs become A-labels. With
 * `dns.domain.local` Pi-hole answers the local domain itself and never
 * forwards it, which a primary zone for it does too.
 */
import type { KObject } from "../api/v1alpha1/meta.ts";
import { normalizeName } from "../blocking/parse/names.ts";
import {
  hostsLine,
  type NameContext,
  type RecordEntry,
  recordsOf,
} from "./dnsmasq_records.ts";
import { ZoneBuilder } from "./dnsmasq_zones.ts";
import { type ImportContext, isMap } from "./import_context.ts";
import type { Toml } from "./pihole_toml.ts";

/** One line giving records, with where it came from. */
export interface RecordLine {
  where: string;
  kind: "hosts" | "cname" | "host-record";
  text: string;
}

/** The record lines of a `pihole.toml`. */
export function tomlRecordLines(doc: Toml): RecordLine[] {
  const dns = isMap(doc.dns) ? doc.dns : {};
  const lines: RecordLine[] = [];
  strings(dns.hosts).forEach((text, i) =>
    lines.push({ where: `dns.hosts[${i}]`, kind: "hosts", text })
  );
  strings(dns.cnameRecords).forEach((text, i) =>
    lines.push({ where: `dns.cnameRecords[${i}]`, kind: "cname", text })
  );
  if (typeof dns.hostRecord === "string" && dns.hostRecord.trim() !== "") {
    lines.push({
      where: "dns.hostRecord",
      kind: "host-record",
      text: dns.hostRecord,
    });
  }
  return lines;
}

/** `dns.domain` of a `pihole.toml`: the name, and whether it is local-only. */
export function localDomain(
  doc: Toml,
): { name: string; local: boolean } | undefined {
  const dns = isMap(doc.dns) ? doc.dns : {};
  const domain = isMap(dns.domain) ? dns.domain : {};
  const name = typeof domain.name === "string"
    ? normalizeName(domain.name.trim())
    : null;
  if (name === null || name === "") return undefined;
  return { name, local: domain.local === true };
}

/**
 * The zones and record sets of the lines. `domain` is the local domain
 * (added to bare names); `localZone` declares it a zone even when empty.
 */
export function mapRecords(
  ctx: ImportContext,
  lines: RecordLine[],
  domain: string | undefined,
  localZone: boolean,
): KObject[] {
  const names: NameContext = domain === undefined ? {} : { domain };
  const zones = new ZoneBuilder();
  const accepted: { line: RecordLine; entries: RecordEntry[] }[] = [];
  for (const line of lines) {
    const entries = parseLine(line, names);
    if (typeof entries === "string") {
      ctx.skipped(line.where, line.text, entries);
      continue;
    }
    if (entries.length === 0) continue;
    const conflict = zones.add(entries);
    if (conflict !== undefined) {
      ctx.skipped(line.where, line.text, conflict);
      continue;
    }
    accepted.push({ line, entries });
  }
  if (domain !== undefined && localZone) {
    zones.declare(domain, "dns.domain.local");
  }
  const built = zones.build(undefined);
  const zoneOf = zones.zoneOf();
  for (const { line, entries } of accepted) {
    const where = [
      ...new Set(entries.map((e) => {
        const apex = zoneOf.get(e.name)!;
        return `${e.type} ${e.name} in DNSZone ${
          built.zoneNames.get(apex)
        } (${apex}.)`;
      })),
    ];
    ctx.mapped(line.where, line.text, where.join("; "));
  }
  if (domain !== undefined && localZone) {
    ctx.mapped(
      "dns.domain",
      `local domain ${domain}`,
      `DNSZone ${
        built.zoneNames.get(domain)
      } (primary, ${domain}.): answered locally, never forwarded, as Pi-hole's dns.domain.local does`,
    );
  }
  return built.objects;
}

function parseLine(
  line: RecordLine,
  names: NameContext,
): RecordEntry[] | string {
  if (line.kind === "hosts") {
    const text = line.text.replace(/#.*/, "").trim();
    const [address = "", ...hosts] = text.split(/\s+/);
    const ascii = hosts.map(asciiName);
    const bad = ascii.findIndex((n) => n === undefined);
    if (bad >= 0) return `"${hosts[bad]}" is not a domain name`;
    return hostsLine([address, ...ascii].join(" "), names);
  }
  const fields = line.text.split(",").map((f) => f.trim());
  const ascii = fields.map((f) =>
    /^\d+$/.test(f) || f === "" || /^[0-9a-f:.]+$/i.test(f) ? f : asciiName(f)
  );
  const bad = ascii.findIndex((n) => n === undefined);
  if (bad >= 0) return `"${fields[bad]}" is not a domain name`;
  return recordsOf(
    line.kind === "cname" ? "cname" : "host-record",
    ascii as string[],
    names,
  );
}

/** A name as A-labels (IDNs in punycode), lowercase, no trailing dot. */
function asciiName(text: string): string | undefined {
  return normalizeName(text) ?? undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((v): v is string => typeof v === "string")
    : [];
}
