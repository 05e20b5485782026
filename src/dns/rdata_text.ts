/**
 * Record data in presentation format, as written in DNSRecordSet `targets`
 * (external-dns Endpoint targets) and zone files: the record types we serve,
 * their codes, and a parser from text to structured {@linkcode Rdata}.
 *
 * @example
 * ```ts
 * parseRdata("MX", "10 mail.example.com");
 * // { type: "MX", preference: 10, exchange: "mail.example.com." }
 * checkRdata("MX", "x mail.example.com");
 * // 'MX preference "x" is not a number 0-65535'
 * ```
 */
import type { Rdata } from "./rdata.ts";
import { TYPE, typeName } from "./wire/constants.ts";
import {
  parseA,
  parseAaaa,
  parseCaa,
  parseMx,
  parseNameRdata,
  parseNaptr,
  parseSrv,
} from "./rdata_text_basic.ts";
import { RdataSyntaxError } from "./rdata_text_fields.ts";
import { parseGeneric, parseSshfp, parseTlsa } from "./rdata_text_hex.ts";
import { parseSvcb } from "./rdata_text_svcb.ts";
import { parseTxt } from "./rdata_text_txt.ts";
import { knownFromGeneric } from "./rdata_generic_known.ts";

export type { Rdata, SvcParam } from "./rdata.ts";
export { RdataSyntaxError } from "./rdata_text_fields.ts";

/** Record types known by mnemonic; any other type is written `TYPEnnn`. */
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

/** A record type known by mnemonic. */
export type RecordType = (typeof RECORD_TYPES)[number];

const RECORD_TYPE_SET: ReadonlySet<string> = new Set(RECORD_TYPES);

function isRecordType(type: string): type is RecordType {
  return RECORD_TYPE_SET.has(type);
}

/** `TYPEnnn` (RFC 3597 §5): decimal 0-65535, no leading zeros. */
function genericTypeCode(type: string): number | undefined {
  const match = type.match(/^TYPE(0|[1-9][0-9]{0,4})$/);
  if (match === null) return undefined;
  const code = Number(match[1]);
  return code <= 65535 ? code : undefined;
}

/**
 * The numeric code of a record type: a mnemonic from {@linkcode RECORD_TYPES}
 * or `TYPEnnn`. Mnemonics are upper case; anything else is undefined.
 */
export function typeCode(type: string): number | undefined {
  // Codes come from the one IANA table the wire codec uses.
  return isRecordType(type) ? TYPE[type] : genericTypeCode(type);
}

/**
 * Parses one record's data in presentation format. Domain names inside the
 * data are absolute whether or not they end with a dot.
 *
 * @throws {RdataSyntaxError} when the type is unknown or the text does not
 *   parse; the message names the field, e.g. `MX preference "x" is not a number 0-65535`
 */
export function parseRdata(type: string, text: string): Rdata {
  if (isRecordType(type) && /^\s*\\#(\s|$)/.test(text)) {
    throw new RdataSyntaxError(
      `${type} data in RFC 3597 generic form (\\#) is not supported; write the ${type} data itself`,
    );
  }
  switch (type) {
    case "A":
      return parseA(text);
    case "AAAA":
      return parseAaaa(text);
    case "CNAME":
    case "DNAME":
    case "NS":
    case "PTR":
      return parseNameRdata(type, text);
    case "MX":
      return parseMx(text);
    case "SRV":
      return parseSrv(text);
    case "NAPTR":
      return parseNaptr(text);
    case "TLSA":
      return parseTlsa(text);
    case "SSHFP":
      return parseSshfp(text);
    case "CAA":
      return parseCaa(text);
    case "TXT":
      return parseTxt(text);
    case "SVCB":
    case "HTTPS":
      return parseSvcb(type, text);
  }
  const code = genericTypeCode(type);
  if (code === undefined) {
    throw new RdataSyntaxError(`Unknown record type "${type}"`);
  }
  refuseMetaType(type, code);
  const generic = parseGeneric(type, code, text);
  const name = typeName(code);
  if (generic.type !== "unknown" || !isRecordType(name)) return generic;
  return knownFromGeneric(type, name, generic.data);
}

/**
 * Meta-types (RFC 6895 §3.1): OPT, TKEY, TSIG, IXFR, AXFR, MAILB, MAILA and
 * ANY exist only in messages, never as records of a zone.
 */
const META_TYPE_CODES: ReadonlySet<number> = new Set([
  41,
  249,
  250,
  251,
  252,
  253,
  254,
  255,
]);

/** A meta-type is never a record of a zone: refused in any form. */
function refuseMetaType(type: string, code: number): void {
  if (META_TYPE_CODES.has(code)) {
    throw new RdataSyntaxError(
      `${type} (${
        typeName(code)
      }) is a meta-type (RFC 6895): it is never a record of a zone`,
    );
  }
}

/**
 * Checks one record's data in presentation format.
 *
 * @returns null when it parses, else the {@linkcode RdataSyntaxError} message
 */
export function checkRdata(type: string, text: string): string | null {
  try {
    parseRdata(type, text);
    return null;
  } catch (error) {
    if (error instanceof RdataSyntaxError) return error.message;
    throw error;
  }
}
