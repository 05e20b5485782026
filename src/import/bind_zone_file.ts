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
  ZoneFileLimitError,
  type ZoneFileRecord,
} from "../zone/zone_file_parse.ts";
export type { ZoneFileLimits } from "./bind_zone_pieces.ts";
import { parsePieces, type ZoneFileLimits } from "./bind_zone_pieces.ts";
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

/** The zone file could not be taken at all (over a parser limit). */
export class ZoneFileTooLarge extends Error {}

/**
 * Reads `text`, the file `label` of zone `zoneName` (lowercase, absolute).
 * `limits` raise the parser's (the API upload's) for a local import; a
 * file past PIECE_CHARS is parsed in pieces (bind_zone_pieces.ts), so its
 * records are never all held at once.
 *
 * @throws {ZoneFileTooLarge} when the file is past the parser's limits
 */
export function importZoneFile(
  text: string,
  zoneName: string,
  label: string,
  limits: ZoneFileLimits = {},
): ZoneFileImport {
  const out: ZoneFileImport = {
    nameservers: [],
    endpoints: [],
    records: 0,
    skipped: [],
    notes: [],
  };
  const skip = (line: number, what: string, detail: string) =>
    out.skipped.push({ where: `${label}:${line}`, what, detail });
  // RRsets by owner and type, in file order; each holds only its targets
  // and where they came from, not the parsed records.
  const groups = new Map<string, Group>();
  let listed = 0;
  let skippedCount = 0;
  try {
    for (const parse of parsePieces(text, zoneName, limits)) {
      for (const s of parse.skipped) {
        if (listed++ < MAX_LISTED) skip(s.line, s.text, s.reason);
      }
      skippedCount += parse.skippedCount;
      for (const r of parse.records) addRecord(r, zoneName, out, groups, skip);
    }
  } catch (error) {
    if (error instanceof ZoneFileLimitError) {
      throw new ZoneFileTooLarge(error.message);
    }
    throw error;
  }
  if (skippedCount > Math.min(listed, MAX_LISTED)) {
    out.skipped.push({
      where: label,
      what: `${skippedCount - Math.min(listed, MAX_LISTED)} more lines`,
      detail: `skipped as well; the report lists the first ${MAX_LISTED}`,
    });
  }
  // Each group is let go once it is an endpoint.
  for (const [key, group] of groups) {
    groups.delete(key);
    addEndpoint(group, out, skip);
  }
  return out;
}

/** Skipped lines the report lists for one file. */
const MAX_LISTED = 1000;

/**
 * One RRset being gathered: the endpoint it becomes, and its first record
 * for the report. Kept small: a million-record zone has about as many.
 */
interface Group {
  endpoint: Endpoint;
  /** Built once the RRset is past a few targets (most hold one or two). */
  seen?: Set<string>;
  line: number;
  text: string;
  records: number;
}

type Skip = (line: number, what: string, detail: string) => void;

function addRecord(
  r: ZoneFileRecord,
  zoneName: string,
  out: ZoneFileImport,
  groups: Map<string, Group>,
  skip: Skip,
): void {
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
    if (out.nameservers.includes(target)) return;
    if (out.nameservers.length >= MAX_NAMESERVERS) {
      skip(
        r.line,
        r.text,
        `a DNSZone lists at most ${MAX_NAMESERVERS} nameservers`,
      );
    } else out.nameservers.push(target);
  } else {
    const key = `${r.owner} ${r.code}`;
    let group = groups.get(key);
    if (group === undefined) {
      const endpoint = { dnsName: r.owner, recordType: r.type, targets: [] };
      group = { endpoint, line: r.line, text: r.text, records: 0 };
      groups.set(key, group);
    }
    group.records++;
    const { endpoint } = group;
    const target = formatRdata(r.rdata);
    if (group.seen === undefined && endpoint.targets.length >= 8) {
      group.seen = new Set(endpoint.targets);
    }
    if (group.seen?.has(target) ?? endpoint.targets.includes(target)) return;
    if (endpoint.targets.length >= MAX_TARGETS) {
      skip(
        r.line,
        r.text,
        `an RRset holds at most ${MAX_TARGETS} records here`,
      );
      return;
    }
    group.seen?.add(target);
    endpoint.targets.push(target);
    if (r.ttl !== undefined) {
      endpoint.recordTTL = Math.min(endpoint.recordTTL ?? r.ttl, r.ttl);
    }
  }
}

function addEndpoint(group: Group, out: ZoneFileImport, skip: Skip): void {
  const { endpoint } = group;
  // The parser's rdata passed kudurru's own checks; this catches what the
  // object adds (one target for CNAME and DNAME).
  const check = endpointSchema.safeParse(endpoint);
  if (!check.success) {
    const why = check.error.issues.map((i) => i.message).join("; ");
    const rest = group.records > 1
      ? ` (the RRset's ${group.records} records)`
      : "";
    skip(group.line, group.text, `not a valid endpoint${rest}: ${why}`);
    return;
  }
  out.endpoints.push(endpoint);
  out.records += endpoint.targets.length;
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
