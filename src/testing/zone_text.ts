/**
 * The one way tests write zones: presentation-format lines, and answers
 * turned back into sorted lines, CoreDNS-table style.
 */
import { parseRdata, typeCode } from "../dns/rdata_text.ts";
import { formatRRSet } from "../zone/format.ts";
import { compareNames } from "../zone/canonical_order.ts";
import type { RecordData, RRSet } from "../dns/rrset.ts";
import type { ZoneContent } from "../zone/types.ts";

function parseLine(line: string): { rrset: RRSet; rdata: RecordData } {
  const match = line.trim().match(/^(\S+)\s+(\d+)\s+IN\s+(\S+)\s+(.*)$/);
  if (match === null) throw new Error(`Cannot parse test record "${line}"`);
  const [, name, ttl, type, text] = match;
  let rdata: RecordData;
  if (type === "SOA") {
    const [mname, rname, ...nums] = text!.trim().split(/\s+/);
    const [serial, refresh, retry, expire, minimum] = nums.map(Number);
    rdata = {
      type: "SOA",
      mname: mname!,
      rname: rname!,
      serial: serial!,
      refresh: refresh!,
      retry: retry!,
      expire: expire!,
      minimum: minimum!,
    };
  } else {
    rdata = parseRdata(type!, text!);
  }
  const code = type === "SOA" ? 6 : typeCode(type!)!;
  return {
    rrset: { name: name!, type: code, ttl: Number(ttl), rdata: [] },
    rdata,
  };
}

/**
 * Builds RRsets from lines `owner ttl IN TYPE rdata`; lines of one owner
 * and type join one RRset (the first line's TTL). Owners keep their case.
 */
export function rrsetsFromText(lines: string[]): RRSet[] {
  const rrsets = new Map<string, RRSet>();
  for (const line of lines) {
    const { rrset, rdata } = parseLine(line);
    const key = `${rrset.name.toLowerCase()}|${rrset.type}`;
    const existing = rrsets.get(key) ?? rrset;
    existing.rdata.push(rdata);
    rrsets.set(key, existing);
  }
  return [...rrsets.values()];
}

/**
 * A ZoneContent from presentation lines `owner ttl IN TYPE rdata` (the SOA
 * among them), as the zone builder makes one: owners lowercase, RRsets in
 * canonical order, the serial the SOA's (1 without one).
 */
export function zoneFromText(name: string, lines: string[]): ZoneContent {
  const rrsets = rrsetsFromText(lines)
    .map((rrset) => ({ ...rrset, name: rrset.name.toLowerCase() }))
    .sort((a, b) => compareNames(a.name, b.name) || a.type - b.type);
  const soa = rrsets.find((r) => r.type === 6)?.rdata[0];
  return {
    name,
    objectName: name.replace(/\.$/, "") || "root",
    serial: soa?.type === "SOA" ? soa.serial : 1,
    rrsets,
  };
}

/** An answer section as sorted presentation lines. */
export function sectionText(rrsets: RRSet[]): string[] {
  return rrsets.flatMap(formatRRSet).sort();
}
