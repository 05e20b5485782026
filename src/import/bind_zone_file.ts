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
  endpointTargetIssues,
  MAX_TARGET_CHARS,
} from "../api/v1alpha1/dnsrecordset.ts";
import { type SOASpec, soaSpecSchema } from "../api/v1alpha1/dnszone.ts";
import { isSubdomainOf } from "../dns/name.ts";
import type { SoaRdata } from "../dns/rrset.ts";
import { formatRdata } from "../zone/format.ts";
import { lexZoneFile, type ZoneEntry } from "../zone/zone_file_lex.ts";
import {
  checkZoneFileBytes,
  MAX_ZONE_FILE_BYTES,
  ZoneFileLimitError,
  ZoneFileReader,
  type ZoneFileRecord,
} from "../zone/zone_file_parse.ts";
import { RRsetTable } from "./bind_rrset_table.ts";
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
  /**
   * One endpoint per RRset, in file order, each valid; at most
   * MAX_ENDPOINTS go in one object.
   */
  rrsets: RRsetTable;
  /** Records taken (every target of every endpoint). */
  records: number;
  skipped: ImportNote[];
  /** Notes on what was adjusted to fit (SOA timers). */
  notes: string[];
}

/** The zone file could not be taken at all (over a parser limit). */
export class ZoneFileTooLarge extends Error {}

/** An RRset whose endpoint is refused, for the report. */
export interface Refused {
  /** The line of its first record. */
  line: number;
  records: number;
  why: string;
}

/**
 * Reads the file `label` of zone `zoneName` (lowercase, absolute) given a
 * piece of text at a time (`feed`), then `finish`. The records are read
 * one at a time and only their targets kept (bind_rrset_table.ts), so a
 * file read from disk in chunks is never held whole, nor its records.
 * `maxRecords` raises the parser's (the API upload's) for a local import.
 */
export class ZoneFileImporter {
  readonly out: ZoneFileImport = {
    nameservers: [],
    rrsets: new RRsetTable(MAX_TARGETS),
    records: 0,
    skipped: [],
    notes: [],
  };
  readonly #reader: ZoneFileReader;
  /** The lines the parser refused, listed first in the report. */
  readonly #unparsed: ImportNote[] = [];
  #skippedCount = 0;

  constructor(
    readonly zoneName: string,
    readonly label: string,
    maxRecords?: number,
  ) {
    this.#reader = new ZoneFileReader({
      origin: zoneName,
      ...(maxRecords !== undefined && { maxRecords }),
    }, (s) => {
      if (this.#skippedCount++ >= MAX_LISTED) return;
      this.#unparsed.push({
        where: `${label}:${s.line}`,
        what: s.text,
        detail: s.reason,
      });
    });
  }

  #skip(line: number, what: string, detail: string): void {
    this.out.skipped.push({ where: `${this.label}:${line}`, what, detail });
  }

  /**
   * Reads the entries `piece` completes; `last` ends the file.
   *
   * @throws {ZoneFileTooLarge} past the records limit
   */
  feed(piece: string, last = false): void {
    const skip = this.#skip.bind(this);
    try {
      for (const r of this.#reader.feed(piece, last)) {
        addRecord(r, this.zoneName, this.out, skip);
      }
    } catch (error) {
      if (error instanceof ZoneFileLimitError) {
        throw new ZoneFileTooLarge(error.message);
      }
      throw error;
    }
  }

  /**
   * Ends the import: each RRset is checked as an endpoint, and those
   * refused are returned, for `refuse` to report with their text.
   */
  finish(): Refused[] {
    const { out, label } = this;
    out.skipped.unshift(...this.#unparsed);
    if (this.#skippedCount > MAX_LISTED) {
      out.skipped.push({
        where: label,
        what: `${this.#skippedCount - MAX_LISTED} more lines`,
        detail: `skipped as well; the report lists the first ${MAX_LISTED}`,
      });
    }
    // The parser checked each record's owner, type, TTL and rdata; this
    // catches what the endpoint adds (a target that does not read back,
    // one target for CNAME and DNAME). The endpoint's whole schema is not
    // asked: per endpoint it cost most of a large import (bench/import).
    const refused: Refused[] = [];
    out.rrsets.seal(({ recordType, targets }, line, records) => {
      const why = targets.some((t) => t.length > MAX_TARGET_CHARS)
        ? `a target is longer than ${MAX_TARGET_CHARS} characters`
        : endpointTargetIssues(recordType, targets).map((i) => i.message)
          .join("; ");
      if (why === "") return true;
      refused.push({ line, records, why });
      return false;
    });
    out.records = out.rrsets.targetCount();
    return refused;
  }

  /**
   * Reports the refused RRsets; `texts` holds the text of the entries on
   * their lines, read again (the table does not keep every first line).
   */
  refuse(refused: Refused[], texts: Map<number, string>): void {
    for (const { line, records, why } of refused) {
      const rest = records > 1 ? ` (the RRset's ${records} records)` : "";
      this.#skip(
        line,
        texts.get(line) ?? "",
        `not a valid endpoint${rest}: ${why}`,
      );
    }
  }
}

/**
 * Reads `text`, the whole file `label` of zone `zoneName`, as
 * ZoneFileImporter reads it in pieces.
 *
 * @throws {ZoneFileTooLarge} when the file is past the parser's limits
 */
export function importZoneFile(
  text: string,
  zoneName: string,
  label: string,
  limits: ZoneFileLimits = {},
): ZoneFileImport {
  try {
    checkZoneFileBytes(text, limits.maxBytes ?? MAX_ZONE_FILE_BYTES);
  } catch (error) {
    if (error instanceof ZoneFileLimitError) {
      throw new ZoneFileTooLarge(error.message);
    }
    throw error;
  }
  const importer = new ZoneFileImporter(zoneName, label, limits.maxRecords);
  importer.feed(text, true);
  const refused = importer.finish();
  if (refused.length > 0) {
    const texts = new Map<number, string>();
    entryTexts(lexZoneFile(text), refusedLines(refused), texts);
    importer.refuse(refused, texts);
  }
  return importer.out;
}

/** The lines the refused RRsets start on. */
export function refusedLines(refused: Refused[]): Set<number> {
  return new Set(refused.map((r) => r.line));
}

/**
 * Collects into `texts` the text of the entries that start on `lines`;
 * true once every one is found.
 */
export function entryTexts(
  entries: Iterable<ZoneEntry>,
  lines: Set<number>,
  texts: Map<number, string>,
): boolean {
  for (const entry of entries) {
    if (lines.has(entry.line)) texts.set(entry.line, entry.text);
    if (texts.size === lines.size) return true;
  }
  return false;
}

/** Skipped lines the report lists for one file. */
const MAX_LISTED = 1000;

/** The ZoneFileLimits of bind.ts: the parser's, raised for a local import. */
export interface ZoneFileLimits {
  maxBytes?: number;
  maxRecords?: number;
}

type Skip = (line: number, what: string, detail: string) => void;

function addRecord(
  r: ZoneFileRecord,
  zoneName: string,
  out: ZoneFileImport,
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
    const added = out.rrsets.add(
      r.owner,
      r.code,
      r.type,
      formatRdata(r.rdata),
      r.ttl,
      r.line,
    );
    if (added === "full") {
      skip(
        r.line,
        r.text,
        `an RRset holds at most ${MAX_TARGETS} records here`,
      );
    }
  }
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
