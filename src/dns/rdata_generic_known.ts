/**
 * RFC 3597 §5: the data of a known type may be written in the generic
 * form, `TYPE1 \# 4 c0000201`. Taken as opaque octets, an empty CNAME or a
 * three-octet A would be served as answers no client can read, and would
 * slip past the rules of its type. So the octets are read as the type's
 * wire data and become its structured form, checks and all; types whose
 * wire form is not read here are refused with a pointer to their syntax.
 */
import type { Rdata } from "./rdata.ts";
import { RdataSyntaxError } from "./rdata_text_fields.ts";
import { ipv4Text, ipv6Text } from "./wire/address_text.ts";
import { readName } from "./wire/read_name.ts";
import { WireFormatError } from "./wire/wire_format_error.ts";

/** The structured data of type `name` whose wire octets are `data`. */
export function knownFromGeneric(
  written: string,
  name: string,
  data: Uint8Array,
): Rdata {
  const bad = (why: string) =>
    new RdataSyntaxError(`${written} \\# data is not ${name} data: ${why}`);
  const u16 = (at: number) => (data[at]! << 8) | data[at + 1]!;
  /** A name that fills data[at, end) exactly; no compression in RDATA. */
  const nameAt = (at: number): string => {
    let read;
    try {
      read = readName(data, at);
    } catch (error) {
      if (error instanceof WireFormatError) throw bad(error.reason);
      throw error;
    }
    if (read.end !== data.length) throw bad("octets after the name");
    for (let i = at; i < read.end; i += data[i]! + 1) {
      if ((data[i]! & 0xc0) !== 0) throw bad("a compressed name");
      if (data[i] === 0) break;
    }
    return read.name;
  };
  switch (name) {
    case "A":
      if (data.length !== 4) throw bad("an address is 4 octets");
      return { type: "A", address: ipv4Text(data, 0) };
    case "AAAA":
      if (data.length !== 16) throw bad("an address is 16 octets");
      return { type: "AAAA", address: ipv6Text(data, 0) };
    case "CNAME":
    case "DNAME":
    case "NS":
    case "PTR":
      return { type: name, target: nameAt(0) };
    case "MX":
      if (data.length < 3) throw bad("a preference and a name");
      return { type: "MX", preference: u16(0), exchange: nameAt(2) };
    case "SRV":
      if (data.length < 7) throw bad("priority, weight, port and a name");
      return {
        type: "SRV",
        priority: u16(0),
        weight: u16(2),
        port: u16(4),
        target: nameAt(6),
      };
    case "TXT": {
      const strings: Uint8Array[] = [];
      for (let at = 0; at < data.length;) {
        const end = at + 1 + data[at]!;
        if (end > data.length) throw bad("a character-string runs off");
        strings.push(data.slice(at + 1, end));
        at = end;
      }
      if (strings.length === 0) throw bad("no character-string");
      return { type: "TXT", strings };
    }
    default:
      throw new RdataSyntaxError(
        `${written} is ${name}: write it as ${name} with its own data (its \\# form is not read here)`,
      );
  }
}
