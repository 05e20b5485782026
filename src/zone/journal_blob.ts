/**
 * One zone difference as the journal stores it: a compact binary blob of
 * the records in wire form with names whole (rdata_canonical.ts),
 * grouped by RRset, rather than JSON of the rdata objects (whose octet
 * fields JSON cannot hold). Decoding gives back RRSet/RecordData objects
 * the answer encoder writes as they were (rdata_read.ts).
 *
 * Layout, integers big-endian:
 *
 *     "KJ" version(u8 = 1)
 *     rrset fromSoa, rrset toSoa
 *     u32 count, rrset × count    (removed)
 *     u32 count, rrset × count    (added)
 *
 *     rrset = owner (wire name) type(u16) class(u16) ttl(u32)
 *             u32 records, (u16 rdlength, rdata) × records
 *
 * The serials are the SOAs'. Owners and names in the data keep their case.
 */
import type { RRSet } from "../dns/rrset.ts";
import { readName } from "../dns/wire/read_name.ts";
import { readRdata } from "../dns/wire/rdata_read.ts";
import { writeRdata } from "../dns/wire/rdata_wire.ts";
import { UNCOMPRESSED } from "../dns/wire/message_writer.ts";
import { UncompressedWriter } from "../dns/wire/rdata_canonical.ts";
import { WireFormatError } from "../dns/wire/wire_format_error.ts";
import type { ZoneDiff } from "./zone_diff.ts";

const MAGIC_K = 0x4b;
const MAGIC_J = 0x4a;
const VERSION = 1;
const SOA = 6;
const IN = 1;

/** A byte buffer that grows by doubling. */
class ByteSink {
  buf = new Uint8Array(4096);
  pos = 0;

  #room(n: number): number {
    if (this.pos + n > this.buf.length) {
      let size = this.buf.length * 2;
      while (size < this.pos + n) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.buf.subarray(0, this.pos));
      this.buf = grown;
    }
    const at = this.pos;
    this.pos += n;
    return at;
  }

  u8(value: number): void {
    this.buf[this.#room(1)] = value;
  }

  u16(value: number): void {
    const at = this.#room(2);
    this.buf[at] = value >>> 8;
    this.buf[at + 1] = value;
  }

  u32(value: number): void {
    const at = this.#room(4);
    this.buf[at] = value >>> 24;
    this.buf[at + 1] = value >>> 16;
    this.buf[at + 2] = value >>> 8;
    this.buf[at + 3] = value;
  }

  bytes(data: Uint8Array): void {
    const at = this.#room(data.length);
    this.buf.set(data, at);
  }
}

const writer = new UncompressedWriter();

/** The blob of one difference. */
export function encodeDiff(diff: ZoneDiff): Uint8Array {
  const out = new ByteSink();
  out.u8(MAGIC_K);
  out.u8(MAGIC_J);
  out.u8(VERSION);
  writeRRSet(out, diff.fromSoa);
  writeRRSet(out, diff.toSoa);
  for (const list of [diff.removed, diff.added]) {
    out.u32(list.length);
    for (const rrset of list) writeRRSet(out, rrset);
  }
  return out.buf.slice(0, out.pos);
}

function writeRRSet(out: ByteSink, rrset: RRSet): void {
  writer.reset();
  writer.name(rrset.name, UNCOMPRESSED);
  out.bytes(writer.buf.subarray(0, writer.pos));
  out.u16(rrset.type);
  out.u16(rrset.class ?? IN);
  out.u32(rrset.ttl);
  out.u32(rrset.rdata.length);
  for (const rdata of rrset.rdata) {
    writer.reset();
    writeRdata(writer, rdata);
    out.u16(writer.pos);
    out.bytes(writer.buf.subarray(0, writer.pos));
  }
}

/**
 * The difference a blob from {@linkcode encodeDiff} holds.
 *
 * @throws {WireFormatError} when the blob is damaged or not one of ours
 */
export function decodeDiff(blob: Uint8Array): ZoneDiff {
  const r = new BlobReader(blob);
  if (r.u8() !== MAGIC_K || r.u8() !== MAGIC_J) {
    throw new WireFormatError("not a zone journal entry");
  }
  const version = r.u8();
  if (version !== VERSION) {
    throw new WireFormatError(`zone journal entry version ${version}`);
  }
  const fromSoa = readRRSet(r);
  const toSoa = readRRSet(r);
  const removed = readRRSets(r);
  const added = readRRSets(r);
  if (r.pos !== blob.length) {
    throw new WireFormatError("octets after the zone journal entry");
  }
  return {
    fromSerial: soaSerial(fromSoa),
    toSerial: soaSerial(toSoa),
    fromSoa,
    toSoa,
    removed,
    added,
  };
}

function soaSerial(rrset: RRSet): number {
  const rdata = rrset.rdata[0];
  if (rrset.type !== SOA || rrset.rdata.length !== 1 || rdata?.type !== "SOA") {
    throw new WireFormatError("zone journal entry without its SOA");
  }
  return rdata.serial;
}

class BlobReader {
  pos = 0;
  constructor(readonly bytes: Uint8Array) {}

  take(n: number): number {
    const at = this.pos;
    if (at + n > this.bytes.length) {
      throw new WireFormatError("zone journal entry truncated");
    }
    this.pos = at + n;
    return at;
  }

  u8(): number {
    return this.bytes[this.take(1)]!;
  }

  u16(): number {
    const at = this.take(2);
    return (this.bytes[at]! << 8) | this.bytes[at + 1]!;
  }

  u32(): number {
    const at = this.take(4);
    return ((this.bytes[at]! << 24) >>> 0) + (this.bytes[at + 1]! << 16) +
      (this.bytes[at + 2]! << 8) + this.bytes[at + 3]!;
  }
}

function readRRSets(r: BlobReader): RRSet[] {
  const count = r.u32();
  // Each RRset takes at least 13 octets: a bound before allocating.
  if (count > (r.bytes.length - r.pos) / 13) {
    throw new WireFormatError("zone journal entry truncated");
  }
  const rrsets: RRSet[] = [];
  for (let i = 0; i < count; i++) rrsets.push(readRRSet(r));
  return rrsets;
}

function readRRSet(r: BlobReader): RRSet {
  // Whole labels only: a pointer means a damaged blob.
  for (let at = r.pos; r.bytes[at] !== 0; at += 1 + r.bytes[at]!) {
    if (at >= r.bytes.length || r.bytes[at]! > 63) {
      throw new WireFormatError("damaged owner name in zone journal entry");
    }
  }
  const owner = readName(r.bytes, r.pos);
  r.pos = owner.end;
  const type = r.u16();
  const rrclass = r.u16();
  const ttl = r.u32();
  const count = r.u32();
  if (count > (r.bytes.length - r.pos) / 2) {
    throw new WireFormatError("zone journal entry truncated");
  }
  const rdata = [];
  for (let i = 0; i < count; i++) {
    const length = r.u16();
    const start = r.take(length);
    rdata.push(readRdata(type, r.bytes, start, start + length));
  }
  return {
    name: owner.name,
    type,
    ttl,
    rdata,
    ...(rrclass !== IN && { class: rrclass }),
  };
}
