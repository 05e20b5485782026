/**
 * A large zone file parsed in pieces, so an import never holds every
 * parsed record of a million-record file at once (each record is a few
 * hundred bytes as an object; the importer keeps only its target text).
 * The parser (src/zone/zone_file_parse.ts) reads one text; its state
 * across entries is `$ORIGIN`, `$TTL`, the previous owner (for a line
 * that starts with a blank) and the previous TTL (when there is no
 * `$TTL`). A piece therefore starts only where that state can be given
 * back by replaying directives: after a valid `$TTL` (so the previous TTL
 * no longer counts), at a record with its own owner followed by another
 * (so no record inherits an owner across the cut), and with the `$ORIGIN`
 * directives since the last absolute one written in front. Line numbers
 * are shifted back to the file's own. A file that offers no such cut is
 * parsed whole.
 */
import { checkDomainName, toFqdn } from "../dns/name.ts";
import {
  MAX_ZONE_FILE_BYTES,
  MAX_ZONE_FILE_RECORDS,
  parseTTL,
  parseZoneFile,
  ZoneFileLimitError,
  type ZoneFileParse,
} from "../zone/zone_file_parse.ts";
import { lexZoneFile, type ZoneEntry } from "../zone/zone_file_lex.ts";

/** Parser limits over the API upload's defaults (zone_file_parse.ts). */
export interface ZoneFileLimits {
  maxBytes?: number;
  maxRecords?: number;
}

/** Below this a file is parsed whole: pieces would save nothing. */
const PIECE_CHARS = 4 * 1024 * 1024;
/** Entries in one piece, about: some tens of MB of parsed records. */
const PIECE_ENTRIES = 50_000;
/** More `$ORIGIN`s than this to replay and the file is not cut further. */
const MAX_REPLAYED = 64;

interface Cut {
  /** 1-based line the piece starts on. */
  line: number;
  /** Directives that give back the parse state at that line. */
  prefix: string[];
}

/**
 * The parse of `text` piece by piece, lines as in the file; the limits
 * hold for the whole file.
 *
 * @throws {ZoneFileLimitError} as parseZoneFile does
 */
export function* parsePieces(
  text: string,
  origin: string,
  limits: ZoneFileLimits,
): Generator<ZoneFileParse> {
  const maxBytes = limits.maxBytes ?? MAX_ZONE_FILE_BYTES;
  const maxRecords = limits.maxRecords ?? MAX_ZONE_FILE_RECORDS;
  if (text.length <= PIECE_CHARS) {
    yield parseZoneFile(text, { origin, maxBytes, maxRecords });
    return;
  }
  // The parser's own byte check, once for the whole file.
  if (
    text.length > maxBytes ||
    (text.length * 3 > maxBytes &&
      new TextEncoder().encode(text).length > maxBytes)
  ) {
    throw new ZoneFileLimitError("bytes", maxBytes);
  }
  const cuts = cutsOf(text);
  const offsets = lineOffsets(text, cuts.map((c) => c.line));
  let records = 0;
  for (let i = 0; i <= cuts.length; i++) {
    const from = i === 0 ? 0 : offsets[i - 1]!;
    const to = i === cuts.length ? text.length : offsets[i]!;
    const prefix = i === 0 ? [] : cuts[i - 1]!.prefix;
    const firstLine = i === 0 ? 1 : cuts[i - 1]!.line;
    const parse = parseZoneFile(
      prefix.map((d) => d + "\n").join("") + text.slice(from, to),
      { origin, maxBytes: Infinity, maxRecords: Infinity },
    );
    const shift = firstLine - 1 - prefix.length;
    for (const r of parse.records) r.line += shift;
    // The replayed directives were read (or skipped) once already.
    const replayed = parse.skipped.filter((s) => s.line <= prefix.length);
    parse.skipped = parse.skipped.filter((s) => s.line > prefix.length);
    for (const s of parse.skipped) s.line += shift;
    parse.skippedCount -= replayed.length;
    records += parse.records.length;
    if (records > maxRecords) {
      throw new ZoneFileLimitError("records", maxRecords);
    }
    yield parse;
  }
}

/** Where the file may be cut, each with the directives to replay there. */
function cutsOf(text: string): Cut[] {
  const cuts: Cut[] = [];
  let origins: string[] = [];
  let ttl: string | undefined;
  let since = 0;
  let candidate: ZoneEntry | undefined;
  for (const entry of lexZoneFile(text)) {
    const first = entry.tokens[0];
    const directive = first !== undefined && !entry.blankOwner &&
      !first.quoted && first.text.startsWith("$");
    if (directive) {
      candidate = undefined;
      if (entry.error !== undefined) continue;
      const name = first.text.toUpperCase();
      const arg = entry.tokens.length === 2 ? entry.tokens[1]! : undefined;
      if (name === "$ORIGIN" && arg !== undefined) {
        // An absolute, valid $ORIGIN sets the origin on its own.
        if (
          !arg.quoted && toFqdn(arg.text) === arg.text &&
          checkDomainName(arg.text, { allowWildcard: false }) === null
        ) origins = [];
        origins.push(`$ORIGIN ${arg.text}`);
      } else if (
        name === "$TTL" && arg !== undefined && parseTTL(arg.text) !== undefined
      ) ttl = `$TTL ${arg.text}`;
      continue;
    }
    since++;
    if (entry.blankOwner) {
      candidate = undefined;
      continue;
    }
    // The entry before this one has its own owner and so has this one.
    if (
      candidate !== undefined && since >= PIECE_ENTRIES && ttl !== undefined &&
      origins.length <= MAX_REPLAYED
    ) {
      cuts.push({ line: candidate.line, prefix: [...origins, ttl] });
      since = 1;
    }
    candidate = entry;
  }
  return cuts;
}

/** The offset in `text` where each of `lines` (ascending, 1-based) starts. */
function lineOffsets(text: string, lines: number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let at = 0;
  for (const wanted of lines) {
    while (line < wanted) {
      at = text.indexOf("\n", at) + 1;
      line++;
    }
    out.push(at);
  }
  return out;
}
