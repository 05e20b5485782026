/**
 * The key a client address is counted under by the login limits. One IPv6
 * host usually holds a whole /64 and can pick any address in it, so IPv6
 * clients are counted per /64; IPv4 clients per address, and an
 * IPv4-mapped IPv6 address (::ffff:192.0.2.1, from a dual-stack socket) as
 * the IPv4 address it is.
 */
import ipaddr from "ipaddr.js";

/** Longest key kept for an address that does not parse (a Unix socket path, say). */
const MAX_OTHER_LENGTH = 128;

/**
 * "192.0.2.1" for an IPv4 (or IPv4-mapped) address, "2001:db8:1:2::/64"
 * for any IPv6 address in that /64. Brackets and a zone ("%eth0") are
 * dropped. Anything else is its own key, cut to 128 characters.
 */
export function clientAddressKey(address: string): string {
  const host = address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return host;
  if (host.includes(":") && ipaddr.IPv6.isValid(host)) {
    const ip = ipaddr.IPv6.parse(host);
    if (ip.isIPv4MappedAddress()) return ip.toIPv4Address().toString();
    const prefix = new ipaddr.IPv6([...ip.parts.slice(0, 4), 0, 0, 0, 0]);
    return `${prefix.toString()}/64`;
  }
  return address.slice(0, MAX_OTHER_LENGTH);
}
