/**
 * A message without some of its records. Records are otherwise copied as
 * they are, but a record after a dropped one may hold a compression pointer
 * into it or past it: so every record kept is written with its names
 * expanded (owner, and the names inside the RDATA of the types that may be
 * compressed, RFC 3597 §4). The question stays where it was.
 */
import { HEADER_OCTETS } from "./query.ts";
import { skipName } from "./read_name.ts";
import { WireFormatError } from "./wire_format_error.ts";

/** Owner name excluded: type, class, TTL, RDLENGTH. */
const RR_FIXED_OCTETS = 10;
const MAX_MESSAGE_OCTETS = 65535;

/**
 * Where the names are in the RDATA of the types that may carry compressed
 * names: octets before the first name, then character-strings before it
 * (NAPTR), then how many names follow one another (whatever comes after
 * them is copied as it is). RFC 1035's types, and those RFC 3597 §4 asks
 * receivers to decompress too (RP, AFSDB, RT, SIG, PX, NXT, NAPTR, SRV),
 * plus KX and DNAME. A compressed name in any other type would be copied
 * pointing nowhere; no server compresses those (RFC 3597 §4 forbids it).
 */
const RDATA_NAMES: ReadonlyMap<
  number,
  { skip: number; strings?: number; names: number }
> = new Map([
  [2, { skip: 0, names: 1 }], // NS
  [3, { skip: 0, names: 1 }], // MD
  [4, { skip: 0, names: 1 }], // MF
  [5, { skip: 0, names: 1 }], // CNAME
  [6, { skip: 0, names: 2 }], // SOA: MNAME, RNAME, then five numbers
  [7, { skip: 0, names: 1 }], // MB
  [8, { skip: 0, names: 1 }], // MG
  [9, { skip: 0, names: 1 }], // MR
  [12, { skip: 0, names: 1 }], // PTR
  [14, { skip: 0, names: 2 }], // MINFO
  [15, { skip: 2, names: 1 }], // MX
  [17, { skip: 0, names: 2 }], // RP
  [18, { skip: 2, names: 1 }], // AFSDB
  [21, { skip: 2, names: 1 }], // RT
  [24, { skip: 18, names: 1 }], // SIG: signer after 18 octets
  [26, { skip: 2, names: 2 }], // PX
  [30, { skip: 0, names: 1 }], // NXT: next name, then the type bitmap
  [33, { skip: 6, names: 1 }], // SRV
  [35, { skip: 4, strings: 3, names: 1 }], // NAPTR: flags, services, regexp
  [36, { skip: 2, names: 1 }], // KX
  [39, { skip: 0, names: 1 }], // DNAME
]);

/**
 * `message` without the records whose indexes (counted over the answer,
 * authority and additional sections together, from 0) are in `drop`, with
 * the section counts to match.
 *
 * @throws {WireFormatError} when the message is malformed or the rewrite
 *   would not fit in a DNS message
 */
export function dropRecords(
  message: Uint8Array,
  drop: ReadonlySet<number>,
): Uint8Array {
  if (message.length < HEADER_OCTETS) {
    throw new WireFormatError("message shorter than 12 octets");
  }
  const counts = [u16(message, 6), u16(message, 8), u16(message, 10)];
  let pos = HEADER_OCTETS;
  for (let i = u16(message, 4); i > 0; i--) pos = skipName(message, pos) + 4;
  if (pos > message.length) throw new WireFormatError("question truncated");
  const out: number[] = Array.from(message.subarray(0, pos));
  let index = 0;
  for (let section = 0; section < 3; section++) {
    let kept = 0;
    for (let i = 0; i < counts[section]!; i++, index++) {
      const fixed = skipName(message, pos);
      if (fixed + RR_FIXED_OCTETS > message.length) {
        throw new WireFormatError("record truncated");
      }
      const rdataStart = fixed + RR_FIXED_OCTETS;
      const end = rdataStart + u16(message, fixed + 8);
      if (end > message.length) throw new WireFormatError("record truncated");
      if (!drop.has(index)) {
        kept++;
        writeRecord(out, message, pos, fixed, end);
      }
      pos = end;
    }
    out[6 + 2 * section] = kept >> 8;
    out[7 + 2 * section] = kept & 0xff;
  }
  if (out.length > MAX_MESSAGE_OCTETS) {
    throw new WireFormatError("message too long once names are expanded");
  }
  return Uint8Array.from(out);
}

/** Appends the record at `start` (fixed part at `fixed`, end `end`), names expanded. */
function writeRecord(
  out: number[],
  message: Uint8Array,
  start: number,
  fixed: number,
  end: number,
): void {
  appendName(out, message, start);
  for (let i = fixed; i < fixed + 8; i++) out.push(message[i]!);
  const lengthAt = out.length;
  out.push(0, 0);
  const rdataStart = fixed + RR_FIXED_OCTETS;
  const layout = RDATA_NAMES.get(u16(message, fixed));
  let pos = rdataStart;
  let namesAt = rdataStart + (layout?.skip ?? 0);
  for (let n = 0; n < (layout?.strings ?? 0) && namesAt < end; n++) {
    namesAt += 1 + message[namesAt]!;
  }
  if (layout !== undefined && namesAt <= end) {
    for (; pos < namesAt; pos++) out.push(message[pos]!);
    for (let n = 0; n < layout.names; n++) {
      const after = skipName(message, pos);
      if (after > end) throw new WireFormatError("name runs past its RDATA");
      appendName(out, message, pos);
      pos = after;
    }
  }
  for (; pos < end; pos++) out.push(message[pos]!);
  const length = out.length - lengthAt - 2;
  out[lengthAt] = length >> 8;
  out[lengthAt + 1] = length & 0xff;
}

/** Appends the name at `at` with every compression pointer followed. */
function appendName(out: number[], message: Uint8Array, at: number): void {
  skipName(message, at); // the checks: no loop, no overrun, ≤ 255 octets
  let pos = at;
  for (;;) {
    const len = message[pos]!;
    if ((len & 0xc0) === 0xc0) {
      pos = ((len & 0x3f) << 8) | message[pos + 1]!;
      continue;
    }
    for (let i = pos; i <= pos + len; i++) out.push(message[i]!);
    if (len === 0) return;
    pos += 1 + len;
  }
}

function u16(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}
