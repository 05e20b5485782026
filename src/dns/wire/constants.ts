/**
 * Numeric codes of the DNS wire format: record types, classes, response
 * codes, opcodes and EDNS option codes (IANA "Domain Name System (DNS)
 * Parameters"), plus conversion between type codes and mnemonics.
 */

/**
 * The header's flags word (octets 2-3, RFC 1035 §4.1.1, RFC 4035 §3.2 for
 * AD and CD), as masks, with the opcode and the RCODE's low four bits.
 */
export const HEADER_FLAG = {
  QR: 0x8000,
  OPCODE_MASK: 0x7800,
  AA: 0x0400,
  TC: 0x0200,
  RD: 0x0100,
  RA: 0x0080,
  AD: 0x0020,
  CD: 0x0010,
  RCODE_MASK: 0x000f,
} as const;

/** Record type codes. */
export const TYPE = {
  A: 1,
  NS: 2,
  CNAME: 5,
  SOA: 6,
  PTR: 12,
  HINFO: 13,
  MX: 15,
  TXT: 16,
  AAAA: 28,
  SRV: 33,
  NAPTR: 35,
  DNAME: 39,
  OPT: 41,
  DS: 43,
  SSHFP: 44,
  RRSIG: 46,
  NSEC: 47,
  DNSKEY: 48,
  NSEC3: 50,
  NSEC3PARAM: 51,
  TLSA: 52,
  SVCB: 64,
  HTTPS: 65,
  TSIG: 250,
  IXFR: 251,
  AXFR: 252,
  ANY: 255,
  CAA: 257,
} as const;

/** A record type mnemonic known to {@linkcode TYPE}. */
export type TypeMnemonic = keyof typeof TYPE;

/** Class codes. */
export const CLASS = { IN: 1, CH: 3, ANY: 255 } as const;

/** Response codes; values above 15 need EDNS (extended RCODE, RFC 6891). */
export const RCODE = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
  NOTAUTH: 9,
  BADVERS: 16,
} as const;

/** Header opcodes. */
export const OPCODE = {
  QUERY: 0,
  IQUERY: 1,
  STATUS: 2,
  NOTIFY: 4,
  UPDATE: 5,
} as const;

/** EDNS option codes. */
export const EDNS_OPTION = {
  NSID: 3,
  /** EDNS Client Subnet (RFC 7871). */
  CLIENT_SUBNET: 8,
  COOKIE: 10,
  PADDING: 12,
  /** Extended DNS Errors (RFC 8914). */
  EDE: 15,
} as const;

const NAMES_BY_CODE = new Map<number, string>(
  Object.entries(TYPE).map(([name, code]) => [code, name]),
);

/** The mnemonic of a type code, or `TYPEnnn` (RFC 3597 §5) when it has none. */
export function typeName(code: number): string {
  return NAMES_BY_CODE.get(code) ?? `TYPE${code}`;
}

/**
 * The code of a type mnemonic (case-insensitive) or of `TYPEnnn`; undefined
 * for anything else or a code above 65535.
 */
export function typeFromName(name: string): number | undefined {
  const upper = name.toUpperCase();
  if (Object.hasOwn(TYPE, upper)) return TYPE[upper as TypeMnemonic];
  const match = /^TYPE(0|[1-9][0-9]{0,4})$/.exec(upper);
  if (match === null) return undefined;
  const code = Number(match[1]);
  return code <= 65535 ? code : undefined;
}

/** The code of a type name (any case), `TYPEnnn` or a number 0-65535. */
export function qtypeFromText(text: string): number | undefined {
  if (/^(0|[1-9][0-9]{0,4})$/.test(text)) {
    return Number(text) <= 65535 ? Number(text) : undefined;
  }
  return typeFromName(text);
}
