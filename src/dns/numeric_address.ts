/**
 * Addresses as numbers, so a client group index or an access list can mask
 * them to any prefix length and look the result up in a Map: IPv4 as an
 * unsigned 32-bit number, IPv6 as a 128-bit bigint (Map compares bigints by value).
 * IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) become IPv4, because that is
 * the client a dual-stack socket reports that way.
 */
import ipaddr from "ipaddr.js";

/** An address reduced to its family and numeric value. */
export type NumericAddress =
  | { v4: true; value: number }
  | { v4: false; value: bigint };

/** A network: the masked address and the prefix length. */
export type NumericPrefix = NumericAddress & { length: number };

const V6_ALL = (1n << 128n) - 1n;

/** The IPv4 mask for `length` (0-32); `<< 32` is `<< 0` in JS, hence the special case. */
export function maskV4(value: number, length: number): number {
  if (length === 0) return 0;
  return (value & (0xffffffff << (32 - length))) >>> 0;
}

const V6_MASKS: bigint[] = Array.from(
  { length: 129 },
  (_, length) => V6_ALL ^ ((1n << BigInt(128 - length)) - 1n),
);

/** The IPv6 network of `value` at `length` (0-128). */
export function maskV6(value: bigint, length: number): bigint {
  return value & V6_MASKS[length]!;
}

/** Parses an address; undefined for anything that is not one (never throws). */
export function parseNumericAddress(text: string): NumericAddress | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(text);
  } catch {
    return undefined;
  }
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddr.IPv6;
    if (!v6.isIPv4MappedAddress()) {
      let value = 0n;
      for (const part of v6.parts) value = (value << 16n) | BigInt(part);
      return { v4: false, value };
    }
    parsed = v6.toIPv4Address();
  }
  const [a, b, c, d] = (parsed as ipaddr.IPv4).octets as number[];
  return { v4: true, value: ((a! << 24) | (b! << 16) | (c! << 8) | d!) >>> 0 };
}

/**
 * Parses "10.0.0.0/8", "fd00::/8" or a bare address (a /32 or /128) into its
 * network; host bits are cleared. An IPv4-mapped network (::ffff:0:0/96 and
 * longer) becomes the IPv4 network it covers. Undefined when not parseable.
 */
export function parseNumericPrefix(text: string): NumericPrefix | undefined {
  const slash = text.indexOf("/");
  const address = parseNumericAddress(slash < 0 ? text : text.slice(0, slash));
  if (address === undefined) return undefined;
  const mapped = address.v4 && text.includes(":");
  let length = address.v4 ? 32 : 128;
  if (slash >= 0) {
    const digits = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(digits)) return undefined;
    length = Number(digits);
    if (mapped) length -= 96;
    if (length < 0 || length > (address.v4 ? 32 : 128)) return undefined;
  }
  return address.v4
    ? { v4: true, value: maskV4(address.value, length), length }
    : { v4: false, value: maskV6(address.value, length), length };
}

/** Presentation form of a network, for diagnoses ("10.0.0.0/24", "fd00::/8"). */
export function formatPrefix(prefix: NumericPrefix): string {
  if (prefix.v4) {
    const v = prefix.value;
    return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${
      v & 255
    }/${prefix.length}`;
  }
  const parts: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) {
    parts.push(Number((prefix.value >> shift) & 0xffffn));
  }
  return `${new ipaddr.IPv6(parts).toString()}/${prefix.length}`;
}
