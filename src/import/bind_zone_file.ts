/**
 * A primary zone's master file, read with kudurru's own zone file parser
 * (src/zone/zone_file_parse.ts), split the way a zone file import through
 * the API splits it (src/apiserver/routes/zone_file_routes.ts, whose
 * grouping is private to that route, so the small equivalent is here): the
 * apex SOA becomes the DNSZone's `spec.soa`, the apex NS its
 * `spec.nameservers`, and every other RRset one DNSRecordSet endpoint
 * (RFC 2181 §5.2: one TTL per RRset, the smallest one given). What does not
 * fit is reported with the file's line, never fatal.
 */
import {
  type Endpoint,
  endpointSchema,
  MAX_ENDPOINTS,
} from "../api/v1alpha1/dnsrecordset.ts";
import { type SOASpec, soaSpecSchema } from "../api/v1alpha1/dnszone.ts";
import { isSubdomainOf } from "../dns/name.ts";
import type { SoaRdata } from "../dns/rrset.ts";
import { formatRdata } from "../zone/format.ts";
import {
  parseZoneFile,
  ZoneFileLimitError,
  type ZoneFileRecord,
} from "../zone/zone_file_parse.ts";
import type { ImportNote } from "./import_result.ts";

const SOA = 6;
const NS = 2;
/** Most targets one endpoint holds (dnsrecordset.ts `targets.max`). */
const MAX_TARGETS = 1000;
/** Most apex nameservers a DNSZone lists (dnszone.ts `nameservers.max`). */
const MAX_NAMESERVERS = 64;

/** What a zone file gives a DNSZone and its record sets. */
export interface ZoneFileImport {
  soa?: SOASpec;
  /** The SOA's TTL: the DNSZone's defaultTTL (its SOA and NS are served with it). */
  soaTTL?: number;
  nameservers: string[];
  /** One per RRset, in file order; at most MAX_ENDPOINTS go in one object. */
  endpoints: Endpoint[];
  /** Records taken (every target of every endpoint). */
  records: number;
  skipped: ImportNote[];
  /** Notes on what was adjusted to fit (SOA timers). */
  notes: string[];
}

/** Parser limits over the API upload's defaults (zone_file_parse.ts). */
export interface ZoneFileLimits {
  maxBytes?: number;
  maxRecords?: number;
}

/** The zone file could not be taken at all (over a parser limit). */
export class ZoneFileTooLarge extends Error {}

/**
 * Reads `text`, the file `label` of zone `zoneName` (lowercase, absolute).
 *
 * @throws {ZoneFileTooLarge} when the file is past the parser's limits
 */
export function importZoneFile(
  text: string,
  zoneName: string,
  label: string,
  limits: ZoneFileLimits = {},
): ZoneFileImport {
  let parse;
  try {
    parse = parseZoneFile(text, { origin: zoneName, ...limits });
  } catch (error) {
    if (error instanceof ZoneFileLimitError) {
      throw new ZoneFileTooLarge(error.message);
    }
    throw error;
  }
  const out: ZoneFileImport = {
    nameservers: [],
    endpoints: [],
    records: 0,
    skipped: [],
    notes: [],
  };
  const skip = (line: number, what: string, detail: string) =>
    out.skipped.push({ where: `${label}:${line}`, what, detail });
  for (const s of parse.skipped) skip(s.line, s.text, s.reason);
  if (parse.skippedCount > parse.skipped.length) {
    out.skipped.push({
      where: label,
      what: `${parse.skippedCount - parse.skipped.length} more lines`,
      detail: "skipped as well; the report lists the first 1000",
    });
  }
  const groups = new Map<string, ZoneFileRecord[]>();
  for (const r of parse.records) {
    if (!isSubdomainOf(r.owner, zoneName)) {
      skip(r.line, r.text, `${r.owner} is outside the zone ${zoneName}`);
    } else if (r.code === SOA) {
      if (r.owner !== zoneName) {
        skip(
          r.line,
          r.text,
          "an SOA below the apex belongs to that zone's own DNSZone",
        );
      } else if (out.soa !== undefined) {
        skip(r.line, r.text, "a zone has one SOA; the first one is kept");
      } else {
        out.soa = soaSpec(r.rdata as SoaRdata, out.notes);
        if (r.ttl !== undefined) out.soaTTL = r.ttl;
      }
    } else if (r.code === NS && r.owner === zoneName) {
      const target = formatRdata(r.rdata);
      if (out.nameservers.includes(target)) continue;
      if (out.nameservers.length >= MAX_NAMESERVERS) {
        skip(
          r.line,
          r.text,
          `a DNSZone lists at most ${MAX_NAMESERVERS} nameservers`,
        );
      } else out.nameservers.push(target);
    } else {
      const key = `${r.owner} ${r.code}`;
      const group = groups.get(key);
      if (group === undefined) groups.set(key, [r]);
      else group.push(r);
    }
  }
  for (const group of groups.values()) addEndpoint(group, out, skip);
  return out;
}

function addEndpoint(
  group: ZoneFileRecord[],
  out: ZoneFileImport,
  skip: (line: number, what: string, detail: string) => void,
): void {
  const first = group[0]!;
  const seen = new Set<string>();
  const targets: string[] = [];
  let ttl: number | undefined;
  for (const r of group) {
    const target = formatRdata(r.rdata);
    if (seen.has(target)) continue;
    if (targets.length >= MAX_TARGETS) {
      skip(
        r.line,
        r.text,
        `an RRset holds at most ${MAX_TARGETS} records here`,
      );
      continue;
    }
    seen.add(target);
    targets.push(target);
    if (r.ttl !== undefined) ttl = Math.min(ttl ?? r.ttl, r.ttl);
  }
  const endpoint: Endpoint = {
    dnsName: first.owner,
    recordType: first.type,
    targets,
    ...(ttl !== undefined && { recordTTL: ttl }),
  };
  // The parser's rdata passed kudurru's own checks; this catches what the
  // object adds (one target for CNAME and DNAME).
  const check = endpointSchema.safeParse(endpoint);
  if (!check.success) {
    const why = check.error.issues.map((i) => i.message).join("; ");
    for (const r of group) skip(r.line, r.text, `not a valid endpoint: ${why}`);
    return;
  }
  out.endpoints.push(endpoint);
  out.records += targets.length;
}

/** SOA timers kept within the DNSZone's bounds, each change noted. */
function soaSpec(rdata: SoaRdata, notes: string[]): SOASpec {
  const shape = soaSpecSchema.shape;
  const fit = (field: "refresh" | "retry" | "expire" | "minimum") => {
    const schema = shape[field].unwrap();
    const min = schema.minValue ?? 0;
    const max = schema.maxValue ?? Number.MAX_SAFE_INTEGER;
    const value = rdata[field];
    const kept = Math.min(max, Math.max(min, value));
    if (kept !== value) {
      notes.push(`SOA ${field} ${value} is outside ${min}..${max}: ${kept}`);
    }
    return kept;
  };
  return {
    mname: rdata.mname,
    rname: rdata.rname,
    refresh: fit("refresh"),
    retry: fit("retry"),
    expire: fit("expire"),
    minimum: fit("minimum"),
  };
}

/** The endpoints in objects of at most MAX_ENDPOINTS each. */
export function chunkEndpoints(endpoints: Endpoint[]): Endpoint[][] {
  const out: Endpoint[][] = [];
  for (let i = 0; i < endpoints.length; i += MAX_ENDPOINTS) {
    out.push(endpoints.slice(i, i + MAX_ENDPOINTS));
  }
  return out;
}
