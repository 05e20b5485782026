/**
 * A primary zone's content as an RFC 1035 §5 master file, the way NSD and
 * Knot read one: `$ORIGIN`, `$TTL`, the SOA first, then the apex NS, then
 * every other RRset in the order ZoneContent keeps them (canonical name
 * order, RFC 4034 §6.1, then type code). Every record is written whole
 * (`owner ttl IN TYPE rdata`, names absolute), so the file reads the same
 * whatever $ORIGIN a reader starts from; zone_file_parse.ts reads it back.
 * Opaque data (RFC 3597 `\#`) is written under `TYPEnnn`, the way a
 * DNSRecordSet names it (`TYPE43`, not `DS`).
 */
import type { RRSet } from "../dns/rrset.ts";
import { formatRdata, formatRRSet } from "./format.ts";
import type { ZoneContent } from "./types.ts";

const SOA = 6;
const NS = 2;

export interface ZoneFileFormatOptions {
  /** `$TTL` (the DNSZone's spec.defaultTTL); every record carries its own TTL anyway. */
  defaultTTL?: number;
  /** Comment lines at the top (each written after `; `). */
  comments?: readonly string[];
}

/** The zone as master-file text, ending with a newline. */
export function formatZoneFile(
  content: ZoneContent,
  opts: ZoneFileFormatOptions = {},
): string {
  const apex = content.name;
  const first = (type: number) =>
    content.rrsets.filter((r) => r.name === apex && r.type === type);
  const head = [...first(SOA), ...first(NS)];
  const rest = content.rrsets.filter((r) => !head.includes(r));
  const lines = [
    ...(opts.comments ?? []).map((c) => `; ${c.replace(/[\r\n]+/g, " ")}`),
    `$ORIGIN ${apex}`,
    ...(opts.defaultTTL === undefined ? [] : [`$TTL ${opts.defaultTTL}`]),
    ...[...head, ...rest].flatMap(rrsetLines),
  ];
  return lines.join("\n") + "\n";
}

function rrsetLines(rrset: RRSet): string[] {
  if (!rrset.rdata.some((r) => r.type === "unknown")) return formatRRSet(rrset);
  const head = `${rrset.name} ${rrset.ttl} IN TYPE${rrset.type}`;
  return rrset.rdata.map((rdata) => `${head} ${formatRdata(rdata)}`);
}
