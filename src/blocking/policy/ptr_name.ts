/**
 * The reverse-lookup name of an address, for whoever wires the identify
 * stage's `resolvePtr` to a resolver: "7.2.0.192.in-addr.arpa." for
 * 192.0.2.7, the nibble form under "ip6.arpa." for IPv6. An IPv4-mapped
 * IPv6 address gets the IPv4 name, as it is matched as IPv4.
 */
import { parseNumericAddress } from "../../dns/numeric_address.ts";

/**
 * The PTR query name (fully qualified, with the trailing dot).
 *
 * @throws Error when `address` is not an IP address
 */
export function ptrName(address: string): string {
  const parsed = parseNumericAddress(address);
  if (parsed === undefined) {
    throw new Error(`not an IP address: ${JSON.stringify(address)}`);
  }
  if (parsed.v4) {
    const v = parsed.value;
    return `${v & 255}.${(v >>> 8) & 255}.${(v >>> 16) & 255}.${
      v >>> 24
    }.in-addr.arpa.`;
  }
  const nibbles = parsed.value.toString(16).padStart(32, "0");
  return `${[...nibbles].reverse().join(".")}.ip6.arpa.`;
}
