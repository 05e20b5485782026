/**
 * Structured record data, one shape per record type, as produced by the
 * presentation-format parser (`rdata_text.ts`) and consumed by the wire
 * codecs. Domain names are fully qualified presentation text (escapes kept,
 * case kept); character-strings and binary fields are octets, because a TXT
 * chunk or an ALPN id need not be valid UTF-8.
 */

/** IPv4 address, canonical dotted quad. */
export interface ARdata {
  type: "A";
  address: string;
}

/** IPv6 address, canonical RFC 5952 text. */
export interface AaaaRdata {
  type: "AAAA";
  address: string;
}

/** Record types whose data is a single domain name. */
export type NameRdataType = "CNAME" | "DNAME" | "NS" | "PTR";

/** CNAME, DNAME, NS or PTR. */
export interface NameRdata {
  type: NameRdataType;
  target: string;
}

/** Mail exchange (RFC 1035 §3.3.9). */
export interface MxRdata {
  type: "MX";
  preference: number;
  exchange: string;
}

/** Service location (RFC 2782); target `.` means "no such service". */
export interface SrvRdata {
  type: "SRV";
  priority: number;
  weight: number;
  port: number;
  target: string;
}

/** Naming authority pointer (RFC 3403). */
export interface NaptrRdata {
  type: "NAPTR";
  order: number;
  preference: number;
  flags: Uint8Array;
  service: Uint8Array;
  regexp: Uint8Array;
  replacement: string;
}

/** DANE certificate association (RFC 6698). */
export interface TlsaRdata {
  type: "TLSA";
  usage: number;
  selector: number;
  matchingType: number;
  data: Uint8Array;
}

/** SSH key fingerprint (RFC 4255, RFC 6594). */
export interface SshfpRdata {
  type: "SSHFP";
  algorithm: number;
  fingerprintType: number;
  fingerprint: Uint8Array;
}

/** Certification authority authorization (RFC 8659). */
export interface CaaRdata {
  type: "CAA";
  flags: number;
  tag: string;
  value: Uint8Array;
}

/** Text: one or more character-strings of at most 255 octets each. */
export interface TxtRdata {
  type: "TXT";
  strings: Uint8Array[];
}

/** One SvcParam of an SVCB or HTTPS record (RFC 9460 §7). */
export type SvcParam =
  | { key: "mandatory"; keys: number[] }
  | { key: "alpn"; ids: Uint8Array[] }
  | { key: "no-default-alpn" }
  | { key: "port"; port: number }
  | { key: "ipv4hint"; addresses: string[] }
  | { key: "ech"; config: Uint8Array }
  | { key: "ipv6hint"; addresses: string[] }
  | { key: "dohpath"; template: string }
  /** Written as `keyNNNNN=value`; the value is the wire-format octets. */
  | { key: "generic"; code: number; value: Uint8Array };

/**
 * Service binding (RFC 9460). Priority 0 is AliasMode (no params); params
 * keep the order they were written in; wire encoders sort them by code.
 */
export interface SvcbRdata {
  type: "SVCB" | "HTTPS";
  priority: number;
  target: string;
  params: SvcParam[];
}

/** Any type in RFC 3597 generic form (`TYPEnnn` with `\# len hex`). */
export interface UnknownRdata {
  type: "unknown";
  code: number;
  data: Uint8Array;
}

/** Record data of any supported type, discriminated by `type`. */
export type Rdata =
  | ARdata
  | AaaaRdata
  | NameRdata
  | MxRdata
  | SrvRdata
  | NaptrRdata
  | TlsaRdata
  | SshfpRdata
  | CaaRdata
  | TxtRdata
  | SvcbRdata
  | UnknownRdata;
