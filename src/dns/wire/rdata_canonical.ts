/**
 * Record data in the canonical wire form of RFC 4034 §6.2: every name
 * written whole, and lowercased for the types that section lists; two
 * records are the same record exactly when these octets are equal. Without
 * the lowercasing it is the form a record keeps outside a message (the zone
 * journal stores it). The answer encoder (rdata_wire.ts) compresses the
 * names of NS, CNAME, PTR, MX and SOA data against the message; out of a
 * message a pointer means nothing, and would also hide the case of the name
 * it replaces, since the compression table folds case.
 */
import type { RecordData } from "../rrset.ts";
import { MessageWriter, type NameMode } from "./message_writer.ts";
import { writeRdata } from "./rdata_wire.ts";

/**
 * Names whole and not offered for compression; not cached, so a whole zone
 * of names does not push the answer path's names out of the name cache.
 */
const WHOLE: NameMode = { compress: false, register: false, cacheable: false };
const MAX_LABEL_OCTETS = 63;
const MAX_NAME_OCTETS = 255;
const DOT = 0x2e;

/**
 * A MessageWriter that writes every name whole, whatever mode the caller
 * asks for, and with {@linkcode foldCase} lowercases ASCII letters in them.
 * Names without escapes (nearly all) are written straight from the string,
 * skipping the suffix keys toWireName builds for compression: the journal
 * writes every record of a diff, a zone's worth at worst.
 */
export class UncompressedWriter extends MessageWriter {
  /** Lowercase the ASCII letters of the names written (RFC 4034 §6.2). */
  foldCase = false;

  override name(name: string, _mode: NameMode): void {
    if (name.includes("\\")) return this.#escapedName(name);
    const end = name.endsWith(".") ? name.length - 1 : name.length;
    if (end + 2 > MAX_NAME_OCTETS) {
      throw new TypeError(
        `Cannot encode name "${name}": longer than ${MAX_NAME_OCTETS} octets`,
      );
    }
    if (end <= 0) return this.u8(0);
    // Each dot becomes the length octet of the label after it.
    const at = this.reserve(end + 2);
    const buf = this.buf;
    let lengthAt = at;
    for (let i = 0; i <= end; i++) {
      const code = i < end ? name.charCodeAt(i) : DOT;
      if (code === DOT) {
        const length = at + i - lengthAt;
        if (length === 0 || length > MAX_LABEL_OCTETS) {
          throw new TypeError(
            `Cannot encode name "${name}": labels must be 1-${MAX_LABEL_OCTETS} octets`,
          );
        }
        buf[lengthAt] = length;
        lengthAt = at + i + 1;
      } else if (code < 0x21 || code > 0x7e) {
        throw new TypeError(
          `Cannot encode name "${name}": characters outside printable ASCII must be escaped as \\DDD`,
        );
      } else {
        buf[at + i + 1] = this.foldCase && code >= 0x41 && code <= 0x5a
          ? code + 0x20
          : code;
      }
    }
    buf[at + end + 1] = 0;
  }

  /**
   * Label length octets are at most 63, below "A" (65), so folding the
   * whole name's octets touches only label characters.
   */
  #escapedName(name: string): void {
    const start = this.pos;
    super.name(name, WHOLE);
    if (!this.foldCase) return;
    const buf = this.buf;
    for (let i = start; i < this.pos; i++) {
      const octet = buf[i]!;
      if (octet >= 0x41 && octet <= 0x5a) buf[i] = octet + 0x20;
    }
  }
}

/**
 * True when the names in `rdata` are lowercased in canonical form. RFC 4034
 * §6.2 lists the types (NS, CNAME, SOA, PTR, MX, SRV, NAPTR, DNAME among
 * ours); types defined later keep their case (RFC 3597 §7), which leaves
 * SVCB and HTTPS targets (RFC 9460) as written. Knot 3.2.6 agrees: an
 * HTTPS target that changes only in case is a change in its IXFR, an MX or
 * SRV target is not.
 */
function foldsNames(rdata: RecordData): boolean {
  return rdata.type !== "SVCB" && rdata.type !== "HTTPS";
}

const canonical = new UncompressedWriter();

/**
 * The canonical wire form of `rdata` (RFC 4034 §6.2) as a binary string
 * (one character per octet), for use as a Map key: two records of one
 * owner, type and class are the same record exactly when these are equal.
 */
export function canonicalRdataKey(rdata: RecordData): string {
  canonical.reset();
  canonical.foldCase = foldsNames(rdata);
  writeRdata(canonical, rdata);
  return binaryString(canonical.buf, canonical.pos);
}

/** Octets `rdata` takes with its names whole (its RDLENGTH out of a message). */
export function uncompressedRdataLength(rdata: RecordData): number {
  canonical.reset();
  canonical.foldCase = false;
  writeRdata(canonical, rdata);
  return canonical.pos;
}

/** Octets `name` takes on the wire, written whole. */
export function uncompressedNameLength(name: string): number {
  canonical.reset();
  canonical.name(name, WHOLE);
  return canonical.pos;
}

/** `bytes[0..length)` as a binary string, in chunks the argument list takes. */
function binaryString(bytes: Uint8Array, length: number): string {
  const CHUNK = 8192;
  if (length <= CHUNK) {
    return String.fromCharCode.apply(
      null,
      bytes.subarray(0, length) as unknown as number[],
    );
  }
  let out = "";
  for (let at = 0; at < length; at += CHUNK) {
    out += String.fromCharCode.apply(
      null,
      bytes.subarray(at, Math.min(at + CHUNK, length)) as unknown as number[],
    );
  }
  return out;
}
