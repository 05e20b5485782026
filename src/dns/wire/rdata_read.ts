/**
 * Record data from wire format back to {@linkcode RecordData}: the reverse
 * of rdata_wire.ts for data whose names are written whole (no compression
 * pointers), as rdata_canonical.ts writes them. The zone journal reads
 * its stored records with it, and what comes back is what writeRdata
 * encodes into answers. Types without a structured shape here come back
 * as `unknown` (RFC 3597 §5) with their octets.
 *
 * Round trips keep the wire octets, not always the spelling: names come
 * back as readName renders them (`\065` as `A`), SVCB params in key order.
 */
import type { SvcParam } from "../rdata.ts";
import { paramFromWire } from "../rdata_text_svcb_wire.ts";
import type { RecordData } from "../rrset.ts";
import { ipv4Text, ipv6Text } from "./address_text.ts";
import { TYPE } from "./constants.ts";
import { readName } from "./read_name.ts";
import { WireFormatError } from "./wire_format_error.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A cursor over one record's data, `bytes[pos..end)`. */
class RdataReader {
  constructor(
    readonly bytes: Uint8Array,
    public pos: number,
    readonly end: number,
    /** Names may point back into the message (`bytes` is all of it). */
    readonly compressed = false,
  ) {}

  #take(n: number): number {
    const at = this.pos;
    if (at + n > this.end) throw new WireFormatError("record data truncated");
    this.pos = at + n;
    return at;
  }

  u8(): number {
    return this.bytes[this.#take(1)]!;
  }

  u16(): number {
    const at = this.#take(2);
    return (this.bytes[at]! << 8) | this.bytes[at + 1]!;
  }

  u32(): number {
    const at = this.#take(4);
    return ((this.bytes[at]! << 24) >>> 0) + (this.bytes[at + 1]! << 16) +
      (this.bytes[at + 2]! << 8) + this.bytes[at + 3]!;
  }

  /** `n` octets, copied so they do not keep the whole buffer alive. */
  octets(n: number): Uint8Array {
    const at = this.#take(n);
    return this.bytes.slice(at, at + n);
  }

  rest(): Uint8Array {
    return this.octets(this.end - this.pos);
  }

  charString(): Uint8Array {
    return this.octets(this.u8());
  }

  /** A name written whole: labels only, inside the record data. */
  name(): string {
    if (this.compressed) {
      const read = readName(this.bytes, this.pos);
      if (read.end > this.end) throw new WireFormatError("name truncated");
      this.pos = read.end;
      return read.name;
    }
    for (let at = this.pos;;) {
      if (at >= this.end) throw new WireFormatError("name truncated");
      const length = this.bytes[at]!;
      if (length === 0) break;
      if (length > 63) {
        throw new WireFormatError(
          "compressed or overlong label in record data",
        );
      }
      at += 1 + length;
    }
    const read = readName(this.bytes, this.pos);
    this.pos = read.end;
    return read.name;
  }
}

/**
 * The record data of type `type` in `bytes[start..end)`. With
 * `compressed`, `bytes` is a whole message whose names in record data may
 * be compression pointers (RFC 1035 §4.1.4; a transfer from another
 * server compresses NS, SOA, MX and others, RFC 3597 §4).
 *
 * @throws {WireFormatError} when the octets are not data of that type
 */
export function readRdata(
  type: number,
  bytes: Uint8Array,
  start = 0,
  end = bytes.length,
  compressed = false,
): RecordData {
  const r = new RdataReader(bytes, start, end, compressed);
  const rdata = readFields(type, r);
  if (r.pos !== end) throw new WireFormatError("octets after the record data");
  return rdata;
}

function readFields(type: number, r: RdataReader): RecordData {
  switch (type) {
    case TYPE.A:
      return { type: "A", address: ipv4Text(r.bytes, fixed(r, 4)) };
    case TYPE.AAAA:
      return { type: "AAAA", address: ipv6Text(r.bytes, fixed(r, 16)) };
    case TYPE.NS:
      return { type: "NS", target: r.name() };
    case TYPE.CNAME:
      return { type: "CNAME", target: r.name() };
    case TYPE.PTR:
      return { type: "PTR", target: r.name() };
    case TYPE.DNAME:
      return { type: "DNAME", target: r.name() };
    case TYPE.MX:
      return { type: "MX", preference: r.u16(), exchange: r.name() };
    case TYPE.SRV:
      return {
        type: "SRV",
        priority: r.u16(),
        weight: r.u16(),
        port: r.u16(),
        target: r.name(),
      };
    case TYPE.NAPTR:
      return {
        type: "NAPTR",
        order: r.u16(),
        preference: r.u16(),
        flags: r.charString(),
        service: r.charString(),
        regexp: r.charString(),
        replacement: r.name(),
      };
    case TYPE.TLSA:
      return {
        type: "TLSA",
        usage: r.u8(),
        selector: r.u8(),
        matchingType: r.u8(),
        data: r.rest(),
      };
    case TYPE.SSHFP:
      return {
        type: "SSHFP",
        algorithm: r.u8(),
        fingerprintType: r.u8(),
        fingerprint: r.rest(),
      };
    case TYPE.CAA:
      return {
        type: "CAA",
        flags: r.u8(),
        tag: String.fromCharCode(...r.charString()),
        value: r.rest(),
      };
    case TYPE.TXT: {
      const strings: Uint8Array[] = [];
      while (r.pos < r.end) strings.push(r.charString());
      if (strings.length === 0) {
        throw new WireFormatError("TXT data without a character-string");
      }
      return { type: "TXT", strings };
    }
    case TYPE.SVCB:
    case TYPE.HTTPS:
      return {
        type: type === TYPE.SVCB ? "SVCB" : "HTTPS",
        priority: r.u16(),
        target: r.name(),
        params: svcParams(r),
      };
    case TYPE.SOA:
      return {
        type: "SOA",
        mname: r.name(),
        rname: r.name(),
        serial: r.u32(),
        refresh: r.u32(),
        retry: r.u32(),
        expire: r.u32(),
        minimum: r.u32(),
      };
    default:
      return { type: "unknown", code: type, data: r.rest() };
  }
}

/** Checks that the data is exactly `n` octets; returns where it starts. */
function fixed(r: RdataReader, n: number): number {
  if (r.end - r.pos !== n) {
    throw new WireFormatError(`record data is not ${n} octets`);
  }
  const at = r.pos;
  r.pos += n;
  return at;
}

/** SvcParams (RFC 9460 §2.2) up to the end of the data. */
function svcParams(r: RdataReader): SvcParam[] {
  const params: SvcParam[] = [];
  while (r.pos < r.end) {
    const code = r.u16();
    const value = r.octets(r.u16());
    params.push(svcParam(code, value));
  }
  return params;
}

function svcParam(code: number, value: Uint8Array): SvcParam {
  if (code === 7) {
    // dohpath (RFC 9461): the URI template's UTF-8 octets.
    try {
      return { key: "dohpath", template: utf8.decode(value) };
    } catch {
      return { key: "generic", code, value };
    }
  }
  try {
    return paramFromWire(`SvcParam key${code}`, code, value);
  } catch (error) {
    throw new WireFormatError(
      `SvcParam key${code}: ${
        error instanceof Error ? error.message : String(error)
      }`,
      { cause: error },
    );
  }
}
