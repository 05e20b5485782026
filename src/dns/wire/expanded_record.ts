/**
 * Records copied out of one message so they can stand in another: owner
 * name and the names inside RDATA written out whole, since a compression
 * pointer means nothing outside the message it points into (RFC 1035
 * §4.1.4). Used to join answers from two sources into one message.
 */
import { RDATA_LAYOUTS } from "./rdata_check.ts";
import { skipName } from "./read_name.ts";
import { WireFormatError } from "./wire_format_error.ts";

/** Type, class and TTL: the fixed octets copied as they are. */
const TYPE_CLASS_TTL_OCTETS = 8;
/** Owner name excluded: type, class, TTL, RDLENGTH. */
const RR_FIXED_OCTETS = 10;

/**
 * The name at `offset` in wire form without compression, and where it
 * ends in `bytes`.
 *
 * @throws {WireFormatError} when the name is malformed (see skipName)
 */
export function expandedName(
  bytes: Uint8Array,
  offset: number,
): { wire: Uint8Array; end: number } {
  // skipName checks bounds, label and name lengths and that pointers only
  // go backwards, so the walk below ends and stays inside `bytes`.
  const end = skipName(bytes, offset);
  const out: number[] = [];
  let pos = offset;
  for (;;) {
    const len = bytes[pos]!;
    if ((len & 0xc0) === 0xc0) {
      pos = ((len & 0x3f) << 8) | bytes[pos + 1]!;
      continue;
    }
    out.push(len);
    if (len === 0) break;
    for (let i = 1; i <= len; i++) out.push(bytes[pos + i]!);
    pos += len + 1;
  }
  return { wire: Uint8Array.from(out), end };
}

/**
 * The record starting at `start` in `message`, with its owner and every
 * name its type may compress written out whole (RDLENGTH adjusted).
 * Types whose names are never compressed are copied as they are.
 *
 * @throws {WireFormatError} when the record is malformed or cut short
 */
export function expandedRecord(
  message: Uint8Array,
  start: number,
): { bytes: Uint8Array; end: number } {
  const owner = expandedName(message, start);
  const fixed = owner.end;
  const rdata = fixed + RR_FIXED_OCTETS;
  if (rdata > message.length) throw new WireFormatError("record truncated");
  const end = rdata + ((message[fixed + 8]! << 8) | message[fixed + 9]!);
  if (end > message.length) throw new WireFormatError("record truncated");
  const type = (message[fixed]! << 8) | message[fixed + 1]!;
  const data = expandedRdata(message, type, rdata, end);
  const out = new Uint8Array(
    owner.wire.length + RR_FIXED_OCTETS + data.length,
  );
  out.set(owner.wire, 0);
  let pos = owner.wire.length;
  out.set(message.subarray(fixed, fixed + TYPE_CLASS_TTL_OCTETS), pos);
  pos += TYPE_CLASS_TTL_OCTETS;
  out[pos] = data.length >> 8;
  out[pos + 1] = data.length & 0xff;
  out.set(data, pos + 2);
  return { bytes: out, end };
}

function expandedRdata(
  message: Uint8Array,
  type: number,
  start: number,
  end: number,
): Uint8Array {
  const layout = RDATA_LAYOUTS.get(type);
  if (layout === undefined || !layout.compressed) {
    return message.subarray(start, end);
  }
  const parts: Uint8Array[] = [];
  let pos = start + layout.skip;
  for (let i = 0; i < (layout.strings ?? 0); i++) {
    if (pos >= end) throw new WireFormatError("RDATA too short");
    pos += 1 + message[pos]!;
  }
  if (pos > end) throw new WireFormatError("RDATA too short");
  parts.push(message.subarray(start, pos));
  for (let i = 0; i < layout.names; i++) {
    if (pos >= end) throw new WireFormatError("RDATA too short");
    const name = expandedName(message, pos);
    if (name.end > end) throw new WireFormatError("name runs past its RDATA");
    parts.push(name.wire);
    pos = name.end;
  }
  parts.push(message.subarray(pos, end));
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
