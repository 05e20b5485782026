/**
 * Reads an RFC 1035 §5 master file ("zone file") into records: `$ORIGIN`,
 * `$TTL` (RFC 2308 §4), `@`, names relative to the origin, a blank owner
 * for the previous one, parentheses across lines, `;` comments, quoted
 * strings (with `;` inside), the class `IN` optional and TTL and class in
 * either order, TTLs in seconds or BIND units (`1h30m`). Record data is
 * read by src/dns/rdata_text.ts `parseRdata`, after names inside it are
 * made absolute against the origin (rdata_text.ts reads every name as
 * absolute, the external-dns way) and unquoted TXT words are quoted (in a
 * zone file each is a character-string of its own).
 *
 * What kudurru cannot take is skipped with a reason and its line, never
 * fatal: `$INCLUDE` (a server never reads files an upload names),
 * `$GENERATE`, classes other than IN, types kudurru does not serve, and
 * malformed lines. Only the limits (bytes, records) stop the parse.
 *
 * @example
 * ```ts
 * const { records, skipped } = parseZoneFile(
 *   "$TTL 300\n@ IN SOA ns1 hostmaster 1 3600 900 1209600 300\nwww A 192.0.2.1\n",
 *   { origin: "example.org." },
 * );
 * // records[1]: { owner: "www.example.org.", ttl: 300, type: "A", … }
 * ```
 */
import {
  canonicalName,
  checkDomainName,
  normalizeName,
  toFqdn,
} from "../dns/name.ts";
import {
  parseRdata,
  RdataSyntaxError,
  RECORD_TYPES,
  typeCode,
} from "../dns/rdata_text.ts";
import type { RecordData, SoaRdata } from "../dns/rrset.ts";
import { typeFromName } from "../dns/wire/constants.ts";
import { type ZoneEntry, ZoneLexer, type ZoneToken } from "./zone_file_lex.ts";

/** One record read from the file. */
export interface ZoneFileRecord {
  /** 1-based line the record starts on. */
  line: number;
  /** Its source text (trimmed, cut to 256 characters). */
  text: string;
  /** Lowercase, fully qualified, escapes written the one way (`canonicalName`). */
  owner: string;
  /** Explicit, else `$TTL`, else the previous record's; undefined when none was ever given. */
  ttl: number | undefined;
  /** A DNSRecordSet record type: a mnemonic of RECORD_TYPES, `SOA`, or `TYPEnnn`. */
  type: string;
  code: number;
  rdata: RecordData;
}

/** A line the parse did not take, and why. */
export interface SkippedLine {
  line: number;
  text: string;
  reason: string;
}

/** What {@linkcode parseZoneFile} read. */
export interface ZoneFileParse {
  records: ZoneFileRecord[];
  /** The first `maxSkipped` skipped entries, in file order. */
  skipped: SkippedLine[];
  /** Every skipped entry, counted (`skipped` may hold fewer). */
  skippedCount: number;
}

export interface ZoneFileParseOptions {
  /** The initial `$ORIGIN`, usually the zone's name (fully qualified). */
  origin: string;
  /** @default MAX_ZONE_FILE_BYTES */
  maxBytes?: number;
  /** @default MAX_ZONE_FILE_RECORDS */
  maxRecords?: number;
  /** How many skipped entries the result lists. @default 1000 */
  maxSkipped?: number;
}

/** Largest zone file read: 4 MiB of UTF-8. */
export const MAX_ZONE_FILE_BYTES = 4 * 1024 * 1024;
/** Most records one zone file may hold. */
export const MAX_ZONE_FILE_RECORDS = 100_000;

/** A zone file over a limit: nothing of it is taken. */
export class ZoneFileLimitError extends RangeError {
  constructor(
    readonly limit: "bytes" | "records",
    readonly max: number,
  ) {
    super(
      limit === "bytes"
        ? `The zone file is larger than ${max} bytes`
        : `The zone file holds more than ${max} records`,
    );
    this.name = "ZoneFileLimitError";
  }
}

/** Largest TTL (RFC 2181 §8). */
const MAX_TTL = 2147483647;
const MAX_SERIAL = 4294967295;

/**
 * Types with a mnemonic that kudurru does not serve (DNSSEC, obsolete and
 * rare types): skipped as such rather than as an unknown word.
 */
const UNSERVED_TYPES: ReadonlySet<string> = new Set([
  "A6",
  "AFSDB",
  "AMTRELAY",
  "APL",
  "ATMA",
  "AVC",
  "CDNSKEY",
  "CDS",
  "CERT",
  "CSYNC",
  "DHCID",
  "DLV",
  "DNSKEY",
  "DOA",
  "DS",
  "EID",
  "EUI48",
  "EUI64",
  "GID",
  "GPOS",
  "HINFO",
  "HIP",
  "IPSECKEY",
  "ISDN",
  "KEY",
  "KX",
  "L32",
  "L64",
  "LOC",
  "LP",
  "MB",
  "MD",
  "MF",
  "MG",
  "MINFO",
  "MR",
  "NID",
  "NIMLOC",
  "NINFO",
  "NSAP",
  "NSAP-PTR",
  "NSEC",
  "NSEC3",
  "NSEC3PARAM",
  "NULL",
  "NXT",
  "OPENPGPKEY",
  "PX",
  "RESINFO",
  "RKEY",
  "RP",
  "RRSIG",
  "RT",
  "SIG",
  "SINK",
  "SMIMEA",
  "SPF",
  "TA",
  "TALINK",
  "UID",
  "UINFO",
  "UNSPEC",
  "URI",
  "WALLET",
  "WKS",
  "X25",
  "ZONEMD",
]);

/** Meta-types and query types: never records of a zone. */
const META_TYPES: ReadonlySet<string> = new Set([
  "OPT",
  "TKEY",
  "TSIG",
  "IXFR",
  "AXFR",
  "MAILA",
  "MAILB",
  "ANY",
]);

const CLASSES: ReadonlySet<string> = new Set(["IN", "CH", "CS", "HS"]);

/** Which rdata fields are domain names, by type (made absolute against the origin). */
const NAME_FIELDS: Readonly<Record<string, readonly number[]>> = {
  CNAME: [0],
  DNAME: [0],
  NS: [0],
  PTR: [0],
  MX: [1],
  SRV: [3],
  NAPTR: [5],
  SVCB: [1],
  HTTPS: [1],
};

const SERVED: ReadonlySet<string> = new Set(RECORD_TYPES);

/** Why an entry is not taken; the entry is skipped with this reason. */
class Skip extends Error {}

/** The parse state that directives and owners change. */
interface State {
  origin: string;
  /** `$TTL`. */
  defaultTTL: number | undefined;
  /** The TTL of the previous record (RFC 1035 §5.1). */
  lastTTL: number | undefined;
  previousOwner: string | undefined;
}

/**
 * Parses a master file. Malformed and unsupported entries are skipped
 * (`skipped`); records come in file order, owners lowercase and absolute.
 *
 * @throws {ZoneFileLimitError} when the text is larger than `maxBytes` or
 *   holds more than `maxRecords` records
 * @throws {TypeError} when `origin` is not a valid fully qualified name
 */
export function parseZoneFile(
  text: string,
  opts: ZoneFileParseOptions,
): ZoneFileParse {
  const maxSkipped = opts.maxSkipped ?? 1000;
  const records: ZoneFileRecord[] = [];
  const skipped: SkippedLine[] = [];
  let skippedCount = 0;
  const onSkipped = (line: SkippedLine) => {
    skippedCount++;
    if (skipped.length < maxSkipped) skipped.push(line);
  };
  for (const record of readZoneFile(text, opts, onSkipped)) {
    records.push(record);
  }
  return { records, skipped, skippedCount };
}

/**
 * The records of a master file one at a time, in file order, as
 * {@linkcode parseZoneFile} reads them; each skipped entry goes to
 * `onSkipped` as it is met. A caller that keeps only what it needs of each
 * record (an import of a million-record file) never holds them all.
 *
 * @throws {ZoneFileLimitError} when the text is larger than `maxBytes`, or
 *   on the record past `maxRecords` (the ones before it were yielded)
 * @throws {TypeError} when `origin` is not a valid fully qualified name
 */
export function* readZoneFile(
  text: string,
  opts: ZoneFileParseOptions,
  onSkipped: (line: SkippedLine) => void,
): Generator<ZoneFileRecord> {
  checkZoneFileBytes(text, opts.maxBytes ?? MAX_ZONE_FILE_BYTES);
  yield* new ZoneFileReader(opts, onSkipped).feed(text, true);
}

/** @throws {ZoneFileLimitError} when `text` is more than `maxBytes` of UTF-8 */
export function checkZoneFileBytes(text: string, maxBytes: number): void {
  // A UTF-16 unit is at most 3 UTF-8 octets: count only when it may matter.
  if (
    text.length > maxBytes ||
    (text.length * 3 > maxBytes &&
      new TextEncoder().encode(text).length > maxBytes)
  ) {
    throw new ZoneFileLimitError("bytes", maxBytes);
  }
}

/**
 * A master file's records from its text in pieces (ZoneLexer), as
 * readZoneFile reads the whole text: a file read from disk a chunk at a
 * time is never held whole. The caller counts the file's bytes
 * (`maxBytes` is not read here); `maxRecords` holds over every piece.
 */
export class ZoneFileReader {
  readonly #lexer = new ZoneLexer();
  readonly #state: State;
  readonly #maxRecords: number;
  #records = 0;

  /** @throws {TypeError} when `origin` is not a valid fully qualified name */
  constructor(
    opts: ZoneFileParseOptions,
    readonly onSkipped: (line: SkippedLine) => void,
  ) {
    const problem = checkDomainName(opts.origin, { requireTrailingDot: true });
    if (problem !== null) throw new TypeError(`Invalid origin: ${problem}`);
    this.#maxRecords = opts.maxRecords ?? MAX_ZONE_FILE_RECORDS;
    this.#state = {
      origin: opts.origin,
      defaultTTL: undefined,
      lastTTL: undefined,
      previousOwner: undefined,
    };
  }

  /**
   * The records of the entries `piece` completes; `last` ends the file.
   *
   * @throws {ZoneFileLimitError} on the record past `maxRecords`
   */
  *feed(piece: string, last = false): Generator<ZoneFileRecord> {
    for (const entry of this.#lexer.feed(piece, last)) {
      let taken: ZoneFileRecord;
      try {
        if (entry.error !== undefined) throw new Skip(entry.error);
        if (isDirective(entry)) {
          directive(entry, this.#state);
          continue;
        }
        taken = record(entry, this.#state);
      } catch (error) {
        if (!(error instanceof Skip)) throw error;
        this.onSkipped({
          line: entry.line,
          text: entry.text,
          reason: error.message,
        });
        continue;
      }
      if (++this.#records > this.#maxRecords) {
        throw new ZoneFileLimitError("records", this.#maxRecords);
      }
      yield taken;
    }
  }
}

function isDirective(entry: ZoneEntry): boolean {
  const first = entry.tokens[0]!;
  return !entry.blankOwner && !first.quoted && first.text.startsWith("$");
}

function directive(entry: ZoneEntry, state: State): void {
  const [head, ...args] = entry.tokens;
  const name = head!.text.toUpperCase();
  switch (name) {
    case "$ORIGIN": {
      if (args.length !== 1) throw new Skip("$ORIGIN takes one name");
      state.origin = domainName(args[0]!, state.origin, "$ORIGIN", false);
      return;
    }
    case "$TTL": {
      if (args.length !== 1) throw new Skip("$TTL takes one TTL");
      const ttl = parseTTL(args[0]!.text);
      if (ttl === undefined) {
        throw new Skip(`$TTL "${args[0]!.text}" is not a TTL`);
      }
      state.defaultTTL = ttl;
      return;
    }
    case "$INCLUDE":
      throw new Skip(
        "$INCLUDE is not followed: the server never reads files an upload names; paste the included records instead",
      );
    case "$GENERATE":
      throw new Skip("$GENERATE (a BIND extension) is not supported");
    default:
      throw new Skip(`unknown directive ${head!.text}`);
  }
}

function record(entry: ZoneEntry, state: State): ZoneFileRecord {
  const tokens = entry.tokens;
  let at = 0;
  let owner: string;
  if (entry.blankOwner) {
    if (state.previousOwner === undefined) {
      throw new Skip(
        "no owner: the line starts with a blank and no record came before",
      );
    }
    owner = state.previousOwner;
  } else {
    owner = domainName(tokens[0]!, state.origin, "owner", true);
    state.previousOwner = owner;
    at = 1;
  }
  let ttl: number | undefined;
  let klass: string | undefined;
  for (let seen = 0; seen < 2 && at < tokens.length; seen++) {
    const word = tokens[at]!.text;
    const asTTL = ttl === undefined ? parseTTL(word) : undefined;
    if (asTTL !== undefined) ttl = asTTL;
    else if (klass === undefined && isClass(word)) klass = word.toUpperCase();
    else break;
    at++;
  }
  const typeToken = tokens[at];
  if (typeToken === undefined) throw new Skip("no record type");
  if (klass !== undefined && klass !== "IN") {
    throw new Skip(`class ${klass} is not served (only IN)`);
  }
  const resolved = ttl ?? state.defaultTTL ?? state.lastTTL;
  state.lastTTL = resolved;
  const upper = typeToken.text.toUpperCase();
  const fields = tokens.slice(at + 1);
  const base = { line: entry.line, text: entry.text, owner, ttl: resolved };
  if (upper === "SOA") {
    return {
      ...base,
      type: "SOA",
      code: 6,
      rdata: soaRdata(fields, state.origin),
    };
  }
  const code = typeToken.quoted ? undefined : typeCode(upper) ??
    // RFC 3597 §5: `DS \# 4 …` is opaque data under a mnemonic kudurru knows.
    (fields[0]?.text === "\\#" ? typeFromName(upper) : undefined);
  if (code === undefined) {
    if (UNSERVED_TYPES.has(upper)) {
      throw new Skip(`kudurru does not serve ${upper} records`);
    }
    if (META_TYPES.has(upper)) {
      throw new Skip(`${upper} is a meta-type, never a record of a zone`);
    }
    throw new Skip(`unknown record type "${typeToken.text}"`);
  }
  const type = endpointTypeName(code);
  return { ...base, type, code, rdata: rdataOf(upper, code, fields, state) };
}

/** The DNSRecordSet spelling of a type: its mnemonic when kudurru knows one, else `TYPEnnn`. */
export function endpointTypeName(code: number): string {
  for (const name of RECORD_TYPES) if (typeCode(name) === code) return name;
  return `TYPE${code}`;
}

function rdataOf(
  type: string,
  code: number,
  fields: ZoneToken[],
  state: State,
): RecordData {
  try {
    // RFC 3597 §5: `\#` data is read as the type's own, whatever its mnemonic.
    if (fields[0]?.text === "\\#") {
      return parseRdata(`TYPE${code}`, fields.map((f) => f.text).join(" "));
    }
    if (!SERVED.has(type)) {
      return parseRdata(type, fields.map((f) => f.text).join(" "));
    }
    if (type === "TXT" && fields.length === 0) {
      throw new Skip("TXT needs at least one character-string");
    }
    const names = NAME_FIELDS[type] ?? [];
    const text = fields.map((field, index) => {
      if (type === "TXT") return field.quoted ? field.text : quote(field.text);
      if (names.includes(index) && !field.quoted) {
        return qualify(field.text, state.origin);
      }
      return field.text;
    }).join(" ");
    return parseRdata(type, text);
  } catch (error) {
    if (error instanceof RdataSyntaxError) throw new Skip(error.message);
    throw error;
  }
}

function soaRdata(fields: ZoneToken[], origin: string): SoaRdata {
  if (fields.length !== 7) {
    throw new Skip(
      `SOA needs 7 fields (mname rname serial refresh retry expire minimum), got ${fields.length}`,
    );
  }
  const [mname, rname, serial, ...timers] = fields;
  const serialValue = /^[0-9]{1,10}$/.test(serial!.text)
    ? Number(serial!.text)
    : NaN;
  if (!(serialValue <= MAX_SERIAL)) {
    throw new Skip(
      `SOA serial "${serial!.text}" is not a number 0-${MAX_SERIAL}`,
    );
  }
  const [refresh, retry, expire, minimum] = timers.map((t, i) => {
    const value = parseTTL(t.text);
    if (value === undefined) {
      const what = ["refresh", "retry", "expire", "minimum"][i];
      throw new Skip(`SOA ${what} "${t.text}" is not a time in seconds`);
    }
    return value;
  });
  return {
    type: "SOA",
    mname: domainName(mname!, origin, "SOA mname", false),
    rname: domainName(rname!, origin, "SOA rname", false),
    serial: serialValue,
    refresh: refresh!,
    retry: retry!,
    expire: expire!,
    minimum: minimum!,
  };
}

/** A name field made absolute and checked; lowercase with one spelling of escapes. */
function domainName(
  token: ZoneToken,
  origin: string,
  what: string,
  allowWildcard: boolean,
): string {
  if (token.quoted) throw new Skip(`${what} ${token.text} must not be quoted`);
  const name = qualify(token.text, origin);
  const problem = checkDomainName(name, { allowWildcard });
  if (problem !== null) {
    throw new Skip(`${what} "${token.text}" is not a valid name: ${problem}`);
  }
  return normalizeName(canonicalName(name));
}

/** `@` is the origin; a name without a final dot is relative to it. */
export function qualify(name: string, origin: string): string {
  if (name === "@") return origin;
  if (toFqdn(name) === name) return name;
  return origin === "." ? `${name}.` : `${name}.${origin}`;
}

/**
 * A TTL: seconds, or BIND units (`1w2d3h4m5s`, any case), at most
 * 2^31 - 1 (RFC 2181 §8); undefined for anything else.
 */
export function parseTTL(text: string): number | undefined {
  let seconds: number;
  if (/^[0-9]{1,10}$/.test(text)) {
    seconds = Number(text);
  } else if (/^(?:[0-9]{1,10}[smhdw])+$/i.test(text)) {
    const unit: Record<string, number> = {
      s: 1,
      m: 60,
      h: 3600,
      d: 86400,
      w: 604800,
    };
    seconds = 0;
    for (const [, n, u] of text.matchAll(/([0-9]+)([smhdw])/gi)) {
      seconds += Number(n) * unit[u!.toLowerCase()]!;
    }
  } else {
    return undefined;
  }
  return seconds <= MAX_TTL ? seconds : undefined;
}

function isClass(word: string): boolean {
  const upper = word.toUpperCase();
  return CLASSES.has(upper) || /^CLASS[0-9]{1,5}$/.test(upper);
}

/** An unquoted word as one quoted character-string (a bare `"` escaped). */
function quote(word: string): string {
  let out = '"';
  for (let i = 0; i < word.length; i++) {
    const c = word[i]!;
    if (c === "\\") {
      out += word.slice(i, i + 2);
      i++;
    } else if (c === '"') out += '\\"';
    else out += c;
  }
  return out + '"';
}
