/**
 * Reads the A or AAAA records of an answer section, for bootstrap
 * resolution. Owner names are not compared: a CNAME chain's final records
 * carry another owner, and the answer has already been checked against the
 * question.
 */
import ipaddr from "ipaddr.js";
import { CLASS, TYPE } from "../dns/wire/constants.ts";
import { skipName } from "../dns/wire/read_name.ts";
import { WireFormatError } from "../dns/wire/wire_format_error.ts";

/** The addresses found and the smallest TTL among them (seconds). */
export interface AddressRecords {
  addresses: string[];
  ttl: number;
}

/**
 * The `type` (A or AAAA) addresses in the answer section of `message`.
 *
 * @throws {WireFormatError} when the message is malformed
 */
export function readAddressRecords(
  message: Uint8Array,
  type: typeof TYPE.A | typeof TYPE.AAAA,
): AddressRecords {
  const view = new DataView(message.buffer, message.byteOffset);
  if (message.length < 12) throw new WireFormatError("message too short");
  const qdcount = view.getUint16(4);
  const ancount = view.getUint16(6);
  let pos = 12;
  for (let i = 0; i < qdcount; i++) pos = skipName(message, pos) + 4;
  const addresses: string[] = [];
  let ttl = Infinity;
  for (let i = 0; i < ancount; i++) {
    pos = skipName(message, pos);
    if (pos + 10 > message.length) {
      throw new WireFormatError("record truncated");
    }
    const rrtype = view.getUint16(pos);
    const rrclass = view.getUint16(pos + 2);
    const rrttl = view.getUint32(pos + 4);
    const length = view.getUint16(pos + 8);
    const data = pos + 10;
    pos = data + length;
    if (pos > message.length) {
      throw new WireFormatError("record data truncated");
    }
    const size = type === TYPE.A ? 4 : 16;
    if (rrtype !== type || rrclass !== CLASS.IN || length !== size) continue;
    const octets = Array.from(message.subarray(data, pos));
    addresses.push(ipaddr.fromByteArray(octets).toString());
    ttl = Math.min(ttl, rrttl);
  }
  return { addresses, ttl: addresses.length > 0 ? ttl : 0 };
}
