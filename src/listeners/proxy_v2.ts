/**
 * The PROXY protocol version 2 header (HAProxy, "The PROXY protocol,
 * Versions 1 & 2", proxy-protocol.txt §2.2): the binary block a proxy such
 * as dnsdist puts before a datagram or at the start of a connection to say
 * which client it forwards. This file only reads the header; whom to
 * believe is proxy_trust.ts's decision.
 *
 * Version 1 (the text line "PROXY TCP4 ...", §2.1) is not supported: it has
 * no v2 signature, so its bytes are not recognised as a header and go to
 * the DNS parser as they are, which answers FORMERR or drops them.
 *
 * The parser never throws and never reads past the header: whatever the
 * bytes, the answer is "none", "incomplete", "malformed" or a header.
 */
import ipaddr from "ipaddr.js";

/** §2.2: the 12 octets every v2 header starts with. */
export const PROXY_V2_SIGNATURE: Readonly<Uint8Array> = new Uint8Array([
  0x0d,
  0x0a,
  0x0d,
  0x0a,
  0x00,
  0x0d,
  0x0a,
  0x51,
  0x55,
  0x49,
  0x54,
  0x0a,
]);

/** The signature, version and command, family and protocol, length. */
export const PROXY_V2_FIXED_LENGTH = 16;

/**
 * Longest header taken, fixed part included. The protocol allows 16 +
 * 65,535; a DNS listener needs the addresses and a few TLVs (dnsdist's own
 * receive limit defaults to 512), and a datagram must still hold a query
 * after it, so anything longer is refused as malformed.
 */
export const PROXY_V2_MAX_LENGTH = 2048;

/** Octets of the address block per family (§2.2, `union proxy_addr`). */
const ADDRESS_LENGTH: readonly number[] = [0, 12, 36, 216];

/** §2.2: the 4 low bits of the 13th octet. */
export type ProxyV2Command = "local" | "proxy";
/** §2.2: the 4 high bits of the 14th octet. */
export type ProxyV2Family = "unspec" | "inet" | "inet6" | "unix";
/** §2.2: the 4 low bits of the 14th octet. */
export type ProxyV2Protocol = "unspec" | "stream" | "dgram";

const FAMILIES: readonly ProxyV2Family[] = ["unspec", "inet", "inet6", "unix"];
const PROTOCOLS: readonly ProxyV2Protocol[] = ["unspec", "stream", "dgram"];

/** An address and port of the header's address block. */
export interface ProxyV2Endpoint {
  /**
   * "192.0.2.1", or IPv6 in ipaddr.js's canonical compressed text
   * ("2001:db8::1"; an IPv4-mapped address stays IPv6: "::ffff:c000:201").
   */
  address: string;
  port: number;
}

/** One Type-Length-Value after the address block (§2.2, `struct pp2_tlv`). */
export interface ProxyV2Tlv {
  type: number;
  /** A view of the parsed bytes, not a copy. */
  value: Uint8Array;
}

/** A complete, well-formed header. */
export interface ProxyV2Header {
  /** Octets of the header, 16 + its length field: the payload starts there. */
  length: number;
  command: ProxyV2Command;
  family: ProxyV2Family;
  protocol: ProxyV2Protocol;
  /**
   * The client side; present for the inet and inet6 families (whatever the
   * command: a LOCAL header's addresses are reported, never to be used).
   */
  source?: ProxyV2Endpoint;
  /** The address the client sent to (the proxy's listener). */
  destination?: ProxyV2Endpoint;
  /** In header order; unknown types included (§2.2: skipped by the reader). */
  tlvs: ProxyV2Tlv[];
}

export type ProxyV2Parse =
  /** The bytes do not start with the v2 signature. */
  | { kind: "none" }
  /**
   * A prefix of a header: the bytes so far are its start, and at least
   * `needed` octets in all (not more) must be there before it can be read.
   */
  | { kind: "incomplete"; needed: number }
  /** The signature, then something §2.2 does not allow. */
  | { kind: "malformed"; reason: string }
  | { kind: "header"; header: ProxyV2Header };

const NONE: ProxyV2Parse = { kind: "none" };
const NEED_FIXED: ProxyV2Parse = {
  kind: "incomplete",
  needed: PROXY_V2_FIXED_LENGTH,
};

/**
 * True when `bytes` starts with the whole 12-octet signature. The first
 * octet decides for almost every DNS message (an ID's high octet of 0x0d,
 * or a TCP length of 3,338 and up), so plain queries pay one comparison.
 */
export function hasProxyV2Signature(bytes: Uint8Array): boolean {
  if (bytes.length < 12 || bytes[0] !== 0x0d) return false;
  for (let i = 1; i < 12; i++) {
    if (bytes[i] !== PROXY_V2_SIGNATURE[i]) return false;
  }
  return true;
}

/**
 * Reads the v2 header at the start of `bytes`. For a stream, "incomplete"
 * says how many octets to wait for; for a datagram, a header cut short is
 * as bad as a malformed one (the caller decides: proxy_trust.ts).
 */
export function parseProxyV2(bytes: Uint8Array): ProxyV2Parse {
  const have = bytes.length;
  for (let i = 0; i < 12 && i < have; i++) {
    if (bytes[i] !== PROXY_V2_SIGNATURE[i]) return NONE;
  }
  if (have < 13) return NEED_FIXED;
  // §2.2: "the receiver must only accept" version 2; commands other than
  // LOCAL and PROXY "must" be dropped.
  const versionCommand = bytes[12]!;
  if (versionCommand >> 4 !== 2) {
    return malformed(`version ${versionCommand >> 4}, not 2`);
  }
  const command = versionCommand & 0x0f;
  if (command > 1) return malformed(`command ${command}, not LOCAL or PROXY`);
  if (have < 14) return NEED_FIXED;
  // §2.2: other families and protocols "must be rejected as invalid".
  const familyProtocol = bytes[13]!;
  const family = familyProtocol >> 4;
  const protocol = familyProtocol & 0x0f;
  if (family > 3) return malformed(`address family ${family}`);
  if (protocol > 2) return malformed(`transport protocol ${protocol}`);
  if (have < PROXY_V2_FIXED_LENGTH) return NEED_FIXED;
  const length = PROXY_V2_FIXED_LENGTH + (bytes[14]! << 8 | bytes[15]!);
  if (length > PROXY_V2_MAX_LENGTH) {
    return malformed(
      `header of ${length} octets, over ${PROXY_V2_MAX_LENGTH}`,
    );
  }
  // §2.2: the length covers the address block; a LOCAL header's block is
  // ignored but its length still counts (its family says how long it is).
  const tlvStart = PROXY_V2_FIXED_LENGTH + ADDRESS_LENGTH[family]!;
  if (tlvStart > length) {
    return malformed(
      `length ${length - PROXY_V2_FIXED_LENGTH} too short for the ${
        FAMILIES[family]
      } addresses`,
    );
  }
  if (have < length) return { kind: "incomplete", needed: length };
  const tlvs = readTlvs(bytes, tlvStart, length);
  if (typeof tlvs === "string") return malformed(tlvs);
  const header: ProxyV2Header = {
    length,
    command: command === 0 ? "local" : "proxy",
    family: FAMILIES[family]!,
    protocol: PROTOCOLS[protocol]!,
    tlvs,
  };
  if (family === 1) {
    header.source = { address: ipv4(bytes, 16), port: port(bytes, 24) };
    header.destination = { address: ipv4(bytes, 20), port: port(bytes, 26) };
  } else if (family === 2) {
    header.source = { address: formatIpv6(bytes, 16), port: port(bytes, 48) };
    header.destination = {
      address: formatIpv6(bytes, 32),
      port: port(bytes, 50),
    };
  }
  return { kind: "header", header };
}

/**
 * The TLVs between `from` and `end`, or why they do not fit: a TLV's 3
 * octets of type and length, or its value, running past the header.
 */
function readTlvs(
  bytes: Uint8Array,
  from: number,
  end: number,
): ProxyV2Tlv[] | string {
  const tlvs: ProxyV2Tlv[] = [];
  let at = from;
  while (at < end) {
    if (at + 3 > end) {
      return `TLV at octet ${at} overruns the header (${end} octets)`;
    }
    const valueEnd = at + 3 + (bytes[at + 1]! << 8 | bytes[at + 2]!);
    if (valueEnd > end) {
      return `TLV 0x${bytes[at]!.toString(16)} at octet ${at} overruns ` +
        `the header (${end} octets)`;
    }
    tlvs.push({ type: bytes[at]!, value: bytes.subarray(at + 3, valueEnd) });
    at = valueEnd;
  }
  return tlvs;
}

function malformed(reason: string): ProxyV2Parse {
  return { kind: "malformed", reason };
}

function ipv4(bytes: Uint8Array, at: number): string {
  return `${bytes[at]}.${bytes[at + 1]}.${bytes[at + 2]}.${bytes[at + 3]}`;
}

/**
 * RFC 5952 §4 text, the same as ipaddr.js's `toString()` (the tests
 * compare them): lowercase groups without leading zeros, the first longest
 * run of two or more zero groups as "::". Written out because ipaddr.js
 * takes ~3 µs an address, paid on every datagram behind a header.
 */
export function formatIpv6(bytes: Uint8Array, at = 0): string {
  let bestStart = -1;
  let bestLength = 1;
  let runStart = -1;
  for (let i = 0; i < 8; i++) {
    if (bytes[at + 2 * i] !== 0 || bytes[at + 2 * i + 1] !== 0) {
      runStart = -1;
    } else {
      if (runStart < 0) runStart = i;
      if (i - runStart + 1 > bestLength) {
        bestStart = runStart;
        bestLength = i - runStart + 1;
      }
    }
  }
  let text = "";
  for (let i = 0; i < bestStart; i++) {
    text += (i > 0 ? ":" : "") + group(bytes, at + 2 * i);
  }
  const tail = bestStart < 0 ? 0 : bestStart + bestLength;
  if (bestStart >= 0) text += "::";
  for (let i = tail; i < 8; i++) {
    text += (i > tail ? ":" : "") + group(bytes, at + 2 * i);
  }
  return text;
}

function group(bytes: Uint8Array, at: number): string {
  return (bytes[at]! << 8 | bytes[at + 1]!).toString(16);
}

function port(bytes: Uint8Array, at: number): number {
  return bytes[at]! << 8 | bytes[at + 1]!;
}

/** What encodeProxyV2 writes. */
export interface ProxyV2Fields {
  /** @default "proxy" */
  command?: ProxyV2Command;
  /** @default "dgram" */
  protocol?: ProxyV2Protocol;
  /**
   * Both or neither; their kind sets the family (inet or inet6), and
   * without them the family is unspec and the address block empty.
   */
  source?: ProxyV2Endpoint;
  destination?: ProxyV2Endpoint;
  tlvs?: ProxyV2Tlv[];
}

/**
 * A v2 header as a sender such as dnsdist writes it: for tests, and for
 * checking a listener by hand.
 */
export function encodeProxyV2(fields: ProxyV2Fields): Uint8Array {
  const { source, destination, tlvs = [] } = fields;
  let family = 0;
  let addresses: number[] = [];
  if (source !== undefined && destination !== undefined) {
    const from = ipaddr.parse(source.address);
    const to = ipaddr.parse(destination.address);
    if (from.kind() !== to.kind()) {
      throw new Error("source and destination must be of one family");
    }
    family = from.kind() === "ipv4" ? 1 : 2;
    addresses = [
      ...from.toByteArray(),
      ...to.toByteArray(),
      source.port >> 8,
      source.port & 0xff,
      destination.port >> 8,
      destination.port & 0xff,
    ];
  }
  const tlvLength = tlvs.reduce((sum, tlv) => sum + 3 + tlv.value.length, 0);
  const length = addresses.length + tlvLength;
  const bytes = new Uint8Array(PROXY_V2_FIXED_LENGTH + length);
  bytes.set(PROXY_V2_SIGNATURE);
  bytes[12] = 0x20 | (fields.command === "local" ? 0 : 1);
  bytes[13] = family << 4 | PROTOCOLS.indexOf(fields.protocol ?? "dgram");
  bytes[14] = length >> 8;
  bytes[15] = length & 0xff;
  bytes.set(addresses, PROXY_V2_FIXED_LENGTH);
  let at = PROXY_V2_FIXED_LENGTH + addresses.length;
  for (const tlv of tlvs) {
    bytes[at] = tlv.type;
    bytes[at + 1] = tlv.value.length >> 8;
    bytes[at + 2] = tlv.value.length & 0xff;
    bytes.set(tlv.value, at + 3);
    at += 3 + tlv.value.length;
  }
  return bytes;
}
