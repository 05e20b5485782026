/**
 * dns-packet with the types our tests need: it decodes what we encode (it
 * follows compression pointers) and encodes the queries we parse.
 */
import dnsPacket from "dns-packet";
import { Buffer } from "node:buffer";

/** One decoded record; `data` is type-specific. */
export interface DecodedRecord {
  name: string;
  type: string;
  class: string;
  ttl: number;
  data: unknown;
  // OPT only
  udpPayloadSize?: number;
  extendedRcode?: number;
  ednsVersion?: number;
  flag_do?: boolean;
  options?: { code: number; data: Buffer }[];
}

/** A decoded message. */
export interface DecodedMessage {
  id: number;
  type: "query" | "response";
  flags: number;
  flag_aa: boolean;
  flag_tc: boolean;
  flag_rd: boolean;
  flag_ra: boolean;
  flag_ad: boolean;
  flag_cd: boolean;
  opcode: string;
  rcode: string;
  questions: { name: string; type: string; class: string }[];
  answers: DecodedRecord[];
  authorities: DecodedRecord[];
  additionals: DecodedRecord[];
}

/** Decodes a message with dns-packet. */
export function decodeMessage(bytes: Uint8Array): DecodedMessage {
  return dnsPacket.decode(Buffer.from(bytes)) as DecodedMessage;
}

/** Encodes a dns-packet message object (names without escapes). */
export function encodeMessage(packet: Record<string, unknown>): Uint8Array {
  return new Uint8Array(dnsPacket.encode(packet));
}

/** dns-packet's flag constants. */
export const RECURSION_DESIRED: number = dnsPacket.RECURSION_DESIRED;
export const DNSSEC_OK: number = dnsPacket.DNSSEC_OK;
export const CHECKING_DISABLED: number = dnsPacket.CHECKING_DISABLED;
export const AUTHENTIC_DATA: number = dnsPacket.AUTHENTIC_DATA;

/** Octets to a `Buffer`, for comparing with what dns-packet decoded. */
export function buffer(octets: Uint8Array | number[]): Buffer {
  return Buffer.from(octets);
}
