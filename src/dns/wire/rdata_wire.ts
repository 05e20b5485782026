/**
 * Record data in wire format, one case per {@linkcode RecordData} shape.
 * Names in NS, CNAME, PTR, MX and SOA data are compressed; every other name
 * (DNAME, SRV, NAPTR, SVCB/HTTPS targets) goes out whole, as RFC 3597 §4
 * requires for types defined after RFC 1035 (RFC 6672 §2.5 for DNAME, RFC
 * 2782 for SRV, RFC 9460 §2.2 for SVCB).
 */
import type { RecordData } from "../rrset.ts";
import { writeIpv4, writeIpv6 } from "./address_wire.ts";
import {
  COMPRESSED,
  type MessageWriter,
  UNCOMPRESSED,
} from "./message_writer.ts";
import { writeSvcbRdata } from "./svcb_wire.ts";

const ascii = new TextEncoder();

/** Writes one record's data (without RDLENGTH). */
export function writeRdata(w: MessageWriter, rdata: RecordData): void {
  switch (rdata.type) {
    case "A":
      return writeIpv4(w, rdata.address);
    case "AAAA":
      return writeIpv6(w, rdata.address);
    case "NS":
    case "CNAME":
    case "PTR":
      return w.name(rdata.target, COMPRESSED);
    case "DNAME":
      return w.name(rdata.target, UNCOMPRESSED);
    case "MX":
      w.u16(rdata.preference);
      return w.name(rdata.exchange, COMPRESSED);
    case "SRV":
      w.u16(rdata.priority);
      w.u16(rdata.weight);
      w.u16(rdata.port);
      return w.name(rdata.target, UNCOMPRESSED);
    case "NAPTR":
      w.u16(rdata.order);
      w.u16(rdata.preference);
      w.charString(rdata.flags, "NAPTR flags");
      w.charString(rdata.service, "NAPTR service");
      w.charString(rdata.regexp, "NAPTR regexp");
      return w.name(rdata.replacement, UNCOMPRESSED);
    case "TLSA":
      w.u8(rdata.usage);
      w.u8(rdata.selector);
      w.u8(rdata.matchingType);
      return w.bytes(rdata.data);
    case "SSHFP":
      w.u8(rdata.algorithm);
      w.u8(rdata.fingerprintType);
      return w.bytes(rdata.fingerprint);
    case "CAA":
      w.u8(rdata.flags);
      w.charString(ascii.encode(rdata.tag), "CAA tag");
      return w.bytes(rdata.value);
    case "TXT":
      for (const text of rdata.strings) w.charString(text, "TXT string");
      return;
    case "SVCB":
    case "HTTPS":
      return writeSvcbRdata(w, rdata);
    case "SOA":
      w.name(rdata.mname, COMPRESSED);
      w.name(rdata.rname, COMPRESSED);
      w.u32(rdata.serial);
      w.u32(rdata.refresh);
      w.u32(rdata.retry);
      w.u32(rdata.expire);
      return w.u32(rdata.minimum);
    case "unknown":
      return w.bytes(rdata.data);
  }
}
