/**
 * Zones written as presentation-format lines for tests, and answers turned
 * back into sorted lines, CoreDNS-table style.
 */
import { parseRdata, typeCode } from "../../dns/rdata_text.ts";
import { formatRRSet } from "../format.ts";
import type { RecordData, RRSet } from "../../dns/rrset.ts";
import type { ZoneContent } from "../types.ts";

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

/** Builds RRsets from lines `owner ttl IN TYPE rdata`; lines of one owner+type join one RRset. */
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

/** A ZoneContent from presentation lines (the SOA among them). */
export function zoneFromText(name: string, lines: string[]): ZoneContent {
  return {
    name,
    objectName: name.replace(/\.$/, "") || "root",
    serial: 1,
    rrsets: rrsetsFromText(lines),
  };
}

/** An answer section as sorted presentation lines. */
export function sectionText(rrsets: RRSet[]): string[] {
  return rrsets.flatMap(formatRRSet).sort();
}
