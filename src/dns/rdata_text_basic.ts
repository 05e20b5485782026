/**
 * Presentation-format parsers for the address, name and small structured
 * types: A, AAAA, CNAME/DNAME/NS/PTR, MX, SRV, NAPTR and CAA.
 */
import type {
  AaaaRdata,
  ARdata,
  CaaRdata,
  MxRdata,
  NameRdata,
  NameRdataType,
  NaptrRdata,
  SrvRdata,
} from "./rdata.ts";
import {
  decodeCharString,
  expectFields,
  parseIpv4Text,
  parseIpv6Text,
  parseRdataName,
  parseUint,
  RdataSyntaxError,
  type Token,
  tokenize,
} from "./rdata_text_fields.ts";

const U8 = 255;
const U16 = 65535;

/** `192.0.2.1` */
export function parseA(text: string): ARdata {
  const tokens = tokenize("A", text);
  expectFields("A", tokens, ["address"]);
  const raw = tokens[0]!.text;
  const address = parseIpv4Text(raw);
  if (address === null) {
    throw new RdataSyntaxError(
      `A address "${raw}" is not a dotted-quad IPv4 address`,
    );
  }
  return { type: "A", address };
}

/** `2001:db8::1` or `::ffff:192.0.2.1` */
export function parseAaaa(text: string): AaaaRdata {
  const tokens = tokenize("AAAA", text);
  expectFields("AAAA", tokens, ["address"]);
  const raw = tokens[0]!.text;
  const address = parseIpv6Text(raw);
  if (address === null) {
    throw new RdataSyntaxError(`AAAA address "${raw}" is not an IPv6 address`);
  }
  return { type: "AAAA", address };
}

/** `target.example.` for CNAME, DNAME, NS and PTR. */
export function parseNameRdata(type: NameRdataType, text: string): NameRdata {
  const tokens = tokenize(type, text);
  expectFields(type, tokens, ["target"]);
  return { type, target: parseRdataName(tokens[0]!, `${type} target`) };
}

/** `10 mail.example.` */
export function parseMx(text: string): MxRdata {
  const tokens = tokenize("MX", text);
  expectFields("MX", tokens, ["preference", "exchange"]);
  return {
    type: "MX",
    preference: parseUint(tokens[0]!.text, "MX preference", U16),
    exchange: parseRdataName(tokens[1]!, "MX exchange"),
  };
}

/** `0 5 5060 sip.example.` (target `.` means no service) */
export function parseSrv(text: string): SrvRdata {
  const tokens = tokenize("SRV", text);
  expectFields("SRV", tokens, ["priority", "weight", "port", "target"]);
  return {
    type: "SRV",
    priority: parseUint(tokens[0]!.text, "SRV priority", U16),
    weight: parseUint(tokens[1]!.text, "SRV weight", U16),
    port: parseUint(tokens[2]!.text, "SRV port", U16),
    target: parseRdataName(tokens[3]!, "SRV target"),
  };
}

function charString(token: Token, what: string): Uint8Array {
  const octets = decodeCharString(token.text, what);
  if (octets.length > U8) {
    throw new RdataSyntaxError(
      `${what} is ${octets.length} octets; the limit is ${U8}`,
    );
  }
  return octets;
}

/** `100 10 "S" "SIP+D2U" "" _sip._udp.example.` */
export function parseNaptr(text: string): NaptrRdata {
  const tokens = tokenize("NAPTR", text);
  expectFields("NAPTR", tokens, [
    "order",
    "preference",
    "flags",
    "service",
    "regexp",
    "replacement",
  ]);
  const flags = charString(tokens[2]!, "NAPTR flags");
  // RFC 3403 §4.1: flags are single characters from A-Z and 0-9.
  if (!/^[A-Za-z0-9]*$/.test(tokens[2]!.text)) {
    throw new RdataSyntaxError(
      `NAPTR flags "${tokens[2]!.text}" may only hold letters and digits`,
    );
  }
  const regexp = charString(tokens[4]!, "NAPTR regexp");
  const replacement = parseRdataName(tokens[5]!, "NAPTR replacement");
  // RFC 3403 §4.1: REGEXP and REPLACEMENT are mutually exclusive.
  if (regexp.length > 0 && replacement !== ".") {
    throw new RdataSyntaxError(
      `NAPTR regexp and replacement are both set; one must be empty ("" or ".")`,
    );
  }
  return {
    type: "NAPTR",
    order: parseUint(tokens[0]!.text, "NAPTR order", U16),
    preference: parseUint(tokens[1]!.text, "NAPTR preference", U16),
    flags,
    service: charString(tokens[3]!, "NAPTR service"),
    regexp,
    replacement,
  };
}

/** `0 issue "letsencrypt.org"` */
export function parseCaa(text: string): CaaRdata {
  const tokens = tokenize("CAA", text);
  if (tokens.length > 3) {
    throw new RdataSyntaxError(
      `CAA value has unquoted spaces; put the value in double quotes`,
    );
  }
  expectFields("CAA", tokens, ["flags", "tag", "value"]);
  const flags = parseUint(tokens[0]!.text, "CAA flags", U8);
  const tag = tokens[1]!;
  // RFC 8659 §4.1.1: tags are ASCII letters and digits only.
  if (tag.quoted || !/^[A-Za-z0-9]{1,255}$/.test(tag.text)) {
    throw new RdataSyntaxError(
      `CAA tag "${tag.text}" may only hold letters and digits`,
    );
  }
  return {
    type: "CAA",
    flags,
    tag: tag.text,
    value: decodeCharString(tokens[2]!.text, "CAA value"),
  };
}
