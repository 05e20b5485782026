/**
 * A SvcParam written `keyNNNNN="…"` (RFC 9460 §2.1): the value is the
 * key's wire-format octets, whatever the key. For the keys with a meaning
 * here those octets must be well formed (a port of three octets is one no
 * client can read: dig reports FORMERR and every SVCB record at the name is
 * lost), and they are kept as the structured param, so the record is
 * written back in the key's own syntax.
 */
import { ipv4Text, ipv6Text } from "./wire/address_text.ts";
import type { SvcParam } from "./rdata.ts";
import { RdataSyntaxError } from "./rdata_text_fields.ts";

/** The param `code` with wire value `value`; generic for keys with no meaning here. */
export function paramFromWire(
  what: string,
  code: number,
  value: Uint8Array,
): SvcParam {
  const bad = (why: string) =>
    new RdataSyntaxError(`${what} is not a valid wire value: ${why}`);
  const u16 = (at: number) => (value[at]! << 8) | value[at + 1]!;
  switch (code) {
    case 0: {
      if (value.length === 0 || value.length % 2 !== 0) {
        throw bad("mandatory is a list of 2-octet keys");
      }
      const keys: number[] = [];
      for (let at = 0; at < value.length; at += 2) keys.push(u16(at));
      return { key: "mandatory", keys };
    }
    case 1: {
      const ids: Uint8Array[] = [];
      for (let at = 0; at < value.length;) {
        const length = value[at]!;
        if (length === 0 || at + 1 + length > value.length) {
          throw bad("alpn is a list of length-prefixed ids");
        }
        ids.push(value.slice(at + 1, at + 1 + length));
        at += 1 + length;
      }
      if (ids.length === 0) throw bad("alpn needs at least one id");
      return { key: "alpn", ids };
    }
    case 2:
      if (value.length !== 0) throw bad("no-default-alpn has no value");
      return { key: "no-default-alpn" };
    case 3:
      if (value.length !== 2) throw bad("port is 2 octets");
      return { key: "port", port: u16(0) };
    case 4:
    case 6: {
      const size = code === 4 ? 4 : 16;
      if (value.length === 0 || value.length % size !== 0) {
        throw bad(
          `${code === 4 ? "ipv4hint" : "ipv6hint"} is ${size}-octet addresses`,
        );
      }
      const addresses: string[] = [];
      for (let at = 0; at < value.length; at += size) {
        addresses.push(code === 4 ? ipv4Text(value, at) : ipv6Text(value, at));
      }
      return code === 4
        ? { key: "ipv4hint", addresses }
        : { key: "ipv6hint", addresses };
    }
    case 5:
      return { key: "ech", config: value };
    default:
      // dohpath (7) included: its syntax checks live with the named form.
      return { key: "generic", code, value };
  }
}
