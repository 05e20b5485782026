/**
 * RRsets from zone-file lines (`owner ttl class type rdata…`), so tests
 * state records in presentation format. Consecutive lines with the same
 * owner and type form one RRset.
 */
import { parseRdata } from "../../rdata_text.ts";
import type { RRSet } from "../../rrset.ts";
import { CLASS, typeFromName } from "../constants.ts";

/** Parses lines such as `www.example.org. 300 IN A 192.0.2.1`. */
export function records(...lines: string[]): RRSet[] {
  const rrsets: RRSet[] = [];
  for (const line of lines) {
    const match = /^(\S+)\s+(\d+)\s+(IN|CH)\s+(\S+)\s+(.*)$/.exec(line);
    if (match === null) throw new TypeError(`Cannot parse record "${line}"`);
    const [, name, ttl, rrclass, type, text] = match as unknown as string[];
    const code = typeFromName(type!)!;
    const rdata = parseRdata(type!, text!);
    const last = rrsets.at(-1);
    if (last !== undefined && last.name === name && last.type === code) {
      last.rdata.push(rdata);
      continue;
    }
    rrsets.push({
      name: name!,
      type: code,
      ttl: Number(ttl),
      rdata: [rdata],
      class: rrclass === "CH" ? CLASS.CH : CLASS.IN,
    });
  }
  return rrsets;
}
