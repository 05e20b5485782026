/**
 * What the data of a record of each type looks like, as the record form's
 * hint and placeholder say it: the text a DNSRecordSet target holds
 * (src/dns/rdata_text.ts reads it).
 */
import { strings } from "./strings.ts";

/** The types kudurru serves by name (src/dns/rdata_text.ts RECORD_TYPES). */
export const RECORD_TYPES = [
  "A",
  "AAAA",
  "CNAME",
  "DNAME",
  "MX",
  "NAPTR",
  "NS",
  "PTR",
  "SRV",
  "TLSA",
  "TXT",
  "CAA",
  "HTTPS",
  "SVCB",
  "SSHFP",
] as const;

type Hinted = keyof typeof strings.zones.hints;

/** The hint for `type` (any case); TYPEnnn and unknown types get the generic one. */
export function dataHint(type: string): string {
  const key = type.trim().toUpperCase();
  const hints = strings.zones.hints;
  // The catalogue's keys are the types upper case, and "other".
  return key in hints ? hints[key as Hinted] : hints.other;
}

/** An example of the data alone (the hint after its colon), for a placeholder. */
export function dataExample(type: string): string {
  const hint = dataHint(type);
  const at = hint.indexOf(": ");
  return at === -1 ? hint : hint.slice(at + 2);
}
