/**
 * The TSIG record of an unsigned error answer (RFC 8945 §5.3.2): what a
 * server sends back to a signed query whose key it does not know (BADKEY,
 * §5.2.2). kudurru verifies no TSIG yet, so every signed query gets this
 * with RCODE NOTAUTH, as NSD and Knot answer a key they do not have,
 * instead of an unsigned answer the client cannot verify.
 */
import { CLASS, TYPE } from "./constants.ts";
import { WireFormatError } from "./wire_format_error.ts";

/** TSIG error codes (RFC 8945 §4.3, IANA "TSIG/TKEY RR error"). */
export const TSIG_ERROR = { BADSIG: 16, BADKEY: 17, BADTIME: 18 } as const;

const MAX_NAME_OCTETS = 255;
const MAX_POINTERS = 127;

/**
 * The whole TSIG record (owner to RDATA) answering the request's TSIG at
 * `tsig` in `message` with `error`: key and algorithm names uncompressed,
 * Time Signed, Fudge and Original ID copied, no MAC, no Other Data.
 *
 * @throws {WireFormatError} when the request's TSIG RDATA is malformed
 */
export function unsignedTsigError(
  message: Uint8Array,
  tsig: { start: number; end: number },
  error: number,
): Uint8Array {
  const owner = nameAt(message, tsig.start, tsig.end);
  need(owner.end + 10 <= tsig.end);
  const rdlength = u16(message, owner.end + 8);
  const rdata = owner.end + 10;
  if (rdata + rdlength !== tsig.end) {
    throw new WireFormatError("TSIG RDLENGTH does not match the record");
  }
  const algorithm = nameAt(message, rdata, tsig.end);
  let at = algorithm.end;
  need(at + 10 <= tsig.end);
  const timeAndFudge = message.subarray(at, at + 8);
  at += 8;
  at += 2 + u16(message, at); // MAC size, MAC
  need(at + 6 <= tsig.end);
  const originalId = message.subarray(at, at + 2);
  at += 4; // Original ID, Error
  at += 2 + u16(message, at); // Other Len, Other Data
  need(at === tsig.end);

  const rdataOctets = algorithm.wire.length + 8 + 2 + 2 + 2 + 2;
  const out = new Uint8Array(owner.wire.length + 10 + rdataOctets);
  const view = new DataView(out.buffer);
  let w = 0;
  out.set(owner.wire, w);
  w += owner.wire.length;
  view.setUint16(w, TYPE.TSIG);
  view.setUint16(w + 2, CLASS.ANY);
  view.setUint32(w + 4, 0); // TTL
  view.setUint16(w + 8, rdataOctets);
  w += 10;
  out.set(algorithm.wire, w);
  w += algorithm.wire.length;
  out.set(timeAndFudge, w);
  w += 8;
  view.setUint16(w, 0); // MAC Size: unsigned
  out.set(originalId, w + 2);
  view.setUint16(w + 4, error);
  view.setUint16(w + 6, 0); // Other Len
  return out;
}

/**
 * The name at `offset` in uncompressed wire form (pointers followed), and
 * where it ends in place; every octet read lies before `limit`.
 */
function nameAt(
  message: Uint8Array,
  offset: number,
  limit: number,
): { wire: Uint8Array; end: number } {
  const labels: number[] = [];
  let at = offset;
  let end = -1;
  for (let hops = 0; hops <= MAX_POINTERS;) {
    need(at < limit);
    const length = message[at]!;
    if ((length & 0xc0) === 0xc0) {
      need(at + 1 < limit);
      if (end < 0) end = at + 2;
      at = ((length & 0x3f) << 8) | message[at + 1]!;
      hops++;
      continue;
    }
    need((length & 0xc0) === 0 && at + 1 + length <= limit);
    labels.push(...message.subarray(at, at + 1 + length));
    need(labels.length <= MAX_NAME_OCTETS);
    if (length === 0) {
      return { wire: new Uint8Array(labels), end: end < 0 ? at + 1 : end };
    }
    at += 1 + length;
  }
  throw new WireFormatError("TSIG name has a pointer loop");
}

function need(ok: boolean): void {
  if (!ok) throw new WireFormatError("TSIG record malformed");
}

function u16(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}
