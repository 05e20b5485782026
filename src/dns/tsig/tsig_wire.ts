/**
 * The TSIG record (RFC 8945 §4.2) on the wire, and the primitives signing
 * and checking need (tsig.ts): finding and reading the record, what is
 * digested, the HMAC by WebCrypto, canonical names, and octet helpers.
 */
import { labelOctets } from "../name.ts";
import { CLASS, TYPE } from "../wire/constants.ts";
import { HEADER_OCTETS } from "../wire/query.ts";
import { skipName } from "../wire/read_name.ts";
import { WireFormatError } from "../wire/wire_format_error.ts";
import { TSIG_ALGORITHMS, type TsigKey } from "./tsig.ts";

/** Owner aside, a record's type, class, TTL and RDLENGTH. */
export const RR_FIXED_OCTETS = 10;

/** A message's TSIG record, read, and the message as it was signed. */
export interface ReadTsig {
  keyName: Uint8Array;
  algorithm: Uint8Array;
  /** Time Signed and Fudge, as sent. */
  timers: Uint8Array;
  timeSigned: number;
  fudge: number;
  mac: Uint8Array<ArrayBuffer>;
  error: number;
  other: Uint8Array;
  /** Without its TSIG record, with its original ID and ARCOUNT. */
  unsigned: Uint8Array<ArrayBuffer>;
}

/** The TSIG of `message`, if it has one. @throws {WireFormatError} */
export function readTsig(message: Uint8Array): ReadTsig | undefined {
  const found = findTsig(message);
  if (found === undefined) return undefined;
  const { start, rdata, end } = found;
  const keyName = uncompressed(message, start);
  const algorithm = uncompressed(message, rdata);
  let at = rdata + algorithm.length;
  need(message, at + 10);
  const timers = message.subarray(at, at + 8);
  const macSize = u16at(message, at + 8);
  at += 10;
  need(message, at + macSize + 6);
  const mac = message.slice(at, at + macSize);
  at += macSize;
  const originalId = message.subarray(at, at + 2);
  const error = u16at(message, at + 2);
  const otherLen = u16at(message, at + 4);
  at += 6;
  if (at + otherLen !== end) {
    throw new WireFormatError("TSIG RDATA does not add up");
  }
  const unsigned = message.slice(0, start);
  unsigned.set(originalId, 0);
  new DataView(unsigned.buffer).setUint16(10, arcount(message) - 1);
  return {
    keyName,
    algorithm,
    timers,
    timeSigned: readTime(timers),
    fudge: (timers[6]! << 8) | timers[7]!,
    mac,
    error,
    other: message.subarray(at, end),
    unsigned,
  };
}

/** Where the TSIG record is, if the last additional record is one. */
export function findTsig(
  message: Uint8Array,
): { start: number; rdata: number; end: number } | undefined {
  need(message, HEADER_OCTETS);
  const counts = [4, 6, 8, 10].map((at) => u16at(message, at));
  let at = HEADER_OCTETS;
  for (let q = 0; q < counts[0]!; q++) {
    at = skipName(message, at) + 4;
  }
  const records = counts[1]! + counts[2]! + counts[3]!;
  let last:
    | { start: number; rdata: number; end: number; type: number }
    | undefined;
  for (let r = 0; r < records; r++) {
    const start = at;
    const owner = skipName(message, at);
    need(message, owner + RR_FIXED_OCTETS);
    const type = u16at(message, owner);
    const rdata = owner + RR_FIXED_OCTETS;
    const end = rdata + u16at(message, owner + 8);
    need(message, end);
    if (type === TYPE.TSIG && r !== records - 1) {
      throw new WireFormatError("TSIG is not the last record");
    }
    last = { start, rdata, end, type };
    at = end;
  }
  if (last === undefined || last.type !== TYPE.TSIG) return undefined;
  if (counts[3] === 0) throw new WireFormatError("TSIG outside additional");
  return last;
}

export function digestInput(
  requestMac: Uint8Array | undefined,
  message: Uint8Array,
  keyName: Uint8Array,
  algorithm: Uint8Array,
  timers: Uint8Array,
  error: number,
  other: Uint8Array,
): Uint8Array {
  return concat(
    ...(requestMac ? [u16(requestMac.length), requestMac] : []),
    message,
    keyName,
    u16(CLASS.ANY),
    new Uint8Array(4), // TTL 0
    algorithm,
    timers,
    u16(error),
    u16(other.length),
    other,
  );
}

export const importedKeys = new WeakMap<TsigKey, Promise<CryptoKey>>();

export function hmacKey(key: TsigKey): Promise<CryptoKey> {
  let imported = importedKeys.get(key);
  if (imported === undefined) {
    imported = crypto.subtle.importKey(
      "raw",
      key.secret as Uint8Array<ArrayBuffer>,
      { name: "HMAC", hash: TSIG_ALGORITHMS[key.algorithm].hash },
      false,
      ["sign", "verify"],
    );
    importedKeys.set(key, imported);
  }
  return imported;
}

export async function hmac(
  key: TsigKey,
  input: Uint8Array,
): Promise<Uint8Array> {
  return new Uint8Array(
    await crypto.subtle.sign(
      "HMAC",
      await hmacKey(key),
      input as Uint8Array<ArrayBuffer>,
    ),
  );
}

/** A name's canonical wire form: labels lowercased, uncompressed. */
export function canonicalWire(name: string): Uint8Array {
  const labels = labelOctets(name.endsWith(".") ? name : `${name}.`);
  return lower(
    concat(
      ...labels.flatMap((l) => [Uint8Array.of(l.length), l]),
      Uint8Array.of(0),
    ),
  );
}

/**
 * The name at `at`, which must not be compressed: TSIG's key and algorithm
 * names are signed as they stand (RFC 8945 §4.2).
 */
export function uncompressed(message: Uint8Array, at: number): Uint8Array {
  const end = skipName(message, at);
  for (let i = at; i < end - 1; i += message[i]! + 1) {
    if (message[i]! >= 0xc0) {
      throw new WireFormatError("a TSIG name is compressed");
    }
  }
  return message.subarray(at, end);
}

/** ASCII letters lowercased, in a copy. */
export function lower(octets: Uint8Array): Uint8Array {
  return octets.map((o) => (o >= 0x41 && o <= 0x5a ? o + 0x20 : o));
}

/** The presentation text of an uncompressed wire name, lowercased. */
export function nameText(wire: Uint8Array): string {
  const labels: string[] = [];
  let at = 0;
  while (at < wire.length && wire[at] !== 0) {
    const length = wire[at]!;
    labels.push(
      String.fromCharCode(...lower(wire.subarray(at + 1, at + 1 + length))),
    );
    at += 1 + length;
  }
  return labels.length === 0 ? "." : `${labels.join(".")}.`;
}

/** Time Signed (48 bits) and Fudge. */
export function timersOf(now: number, fudge: number): Uint8Array {
  const out = new Uint8Array(8);
  const seconds = Math.floor(now);
  const view = new DataView(out.buffer);
  view.setUint16(0, Math.floor(seconds / 2 ** 32));
  view.setUint32(2, seconds % 2 ** 32);
  view.setUint16(6, fudge);
  return out;
}

export function readTime(timers: Uint8Array): number {
  const view = new DataView(timers.buffer, timers.byteOffset, 6);
  return view.getUint16(0) * 2 ** 32 + view.getUint32(2);
}

export function arcount(message: Uint8Array): number {
  return u16at(message, 10);
}

export function u16(value: number): Uint8Array {
  return Uint8Array.of(value >> 8, value & 0xff);
}

export function u16at(bytes: Uint8Array, at: number): number {
  need(bytes, at + 2);
  return (bytes[at]! << 8) | bytes[at + 1]!;
}

export function need(bytes: Uint8Array, end: number): void {
  if (end > bytes.length) throw new WireFormatError("TSIG message truncated");
}

export function sameOctets(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
