/**
 * Reads domain names from DNS messages (RFC 1035 §3.1, §4.1.4): labels and
 * compression pointers, with the checks that keep a hostile message from
 * looping, reading out of bounds or producing an oversized name.
 */
import { WireFormatError } from "./wire_format_error.ts";

/** Longest name in wire form, length octets and root included. */
const MAX_NAME_OCTETS = 255;
/**
 * Pointers must point strictly before the segment they are found in, which
 * alone guarantees termination; the bound stops chains of pointer-to-pointer
 * from costing more than a valid name ever needs.
 */
const MAX_POINTER_JUMPS = 127;
/** A message's header, where no name is (RFC 1035 §4.1.1). */
const HEADER_OCTETS = 12;

const BACKSLASH = 0x5c;
const DOT = 0x2e;
const ZERO = 0x30;
const STAR = 0x2a;

/**
 * Character codes of the name being built. Presentation text is at most
 * four characters per octet (`\DDD`) plus the dots, so this never overflows.
 */
const chars = new Uint16Array(4 * MAX_NAME_OCTETS + 4);
let charCount = 0;

/** A name read from a message. */
export interface ReadName {
  /** Presentation form, case as sent, trailing dot (see {@linkcode readName}). */
  name: string;
  /** Offset just after the name where it was found (not where a pointer led). */
  end: number;
}

/**
 * Reads the name at `offset` and renders it in presentation format: original
 * case, a trailing dot, `.` and `\` inside a label as `\.` and `\\`, octets
 * outside printable ASCII as `\DDD`, and `*` as `\*` except when it is the
 * whole leftmost label (a wildcard, as `name.ts` wants it). Every octet
 * string has exactly one rendering, so equal names differ at most in ASCII
 * case, and `labelOctets(name, { allowWildcard: true })` accepts them all.
 *
 * @throws {WireFormatError} on a truncated name, a label over 63 octets, a
 *   name over 255 octets, an extended label type or a bad pointer
 */
export function readName(bytes: Uint8Array, offset: number): ReadName {
  charCount = 0;
  const end = walkName(bytes, offset, true);
  if (charCount === 0) return { name: ".", end };
  return {
    name: String.fromCharCode.apply(
      null,
      chars.subarray(0, charCount) as unknown as number[],
    ),
    end,
  };
}

/**
 * Checks the name at `offset` like {@linkcode readName} without rendering it.
 *
 * @returns the offset just after the name
 */
export function skipName(bytes: Uint8Array, offset: number): number {
  return walkName(bytes, offset, false);
}

function walkName(bytes: Uint8Array, offset: number, render: boolean): number {
  let pos = offset;
  let end = -1;
  let segmentStart = offset;
  let nameOctets = 1;
  let jumps = 0;
  for (;;) {
    if (pos >= bytes.length) throw new WireFormatError("name truncated");
    const len = bytes[pos]!;
    if (len === 0) return end === -1 ? pos + 1 : end;
    const kind = len & 0xc0;
    if (kind === 0xc0) {
      if (pos + 1 >= bytes.length) throw new WireFormatError("name truncated");
      const target = ((len & 0x3f) << 8) | bytes[pos + 1]!;
      // The header holds no names (NSD answers FORMERR too).
      if (target < HEADER_OCTETS) {
        throw new WireFormatError("compression pointer into the header");
      }
      if (target >= segmentStart) {
        throw new WireFormatError(
          "compression pointer does not point backwards",
        );
      }
      if (++jumps > MAX_POINTER_JUMPS) {
        throw new WireFormatError("too many compression pointers");
      }
      if (end === -1) end = pos + 2;
      pos = segmentStart = target;
      continue;
    }
    if (kind !== 0) {
      // 0x40-0xbf: a length over 63 or an extended label type (RFC 6891 §5).
      throw new WireFormatError(
        "label longer than 63 octets or of an unsupported type",
      );
    }
    nameOctets += len + 1;
    if (nameOctets > MAX_NAME_OCTETS) {
      throw new WireFormatError("name longer than 255 octets");
    }
    if (pos + 1 + len > bytes.length) {
      throw new WireFormatError("name truncated");
    }
    if (render) renderLabel(bytes, pos + 1, len);
    pos += 1 + len;
  }
}

function renderLabel(bytes: Uint8Array, start: number, len: number): void {
  // A bare `*` is a wildcard only as the whole leftmost label (name.ts).
  const wildcard = len === 1 && bytes[start] === STAR && charCount === 0;
  for (let i = start; i < start + len; i++) {
    const octet = bytes[i]!;
    if (octet === DOT || octet === BACKSLASH || (octet === STAR && !wildcard)) {
      chars[charCount++] = BACKSLASH;
      chars[charCount++] = octet;
    } else if (octet > 0x20 && octet < 0x7f) {
      chars[charCount++] = octet;
    } else {
      chars[charCount++] = BACKSLASH;
      chars[charCount++] = ZERO + Math.floor(octet / 100);
      chars[charCount++] = ZERO + (Math.floor(octet / 10) % 10);
      chars[charCount++] = ZERO + (octet % 10);
    }
  }
  chars[charCount++] = DOT;
}
