/**
 * IP addresses, networks and address:port pairs written as text, checked
 * the strict way a configuration means them: no inet_aton forms ("10",
 * "0x0a.1"), no IPv6 zone identifiers.
 */
import ipaddr from "ipaddr.js";

/**
 * True for a dotted-quad IPv4 or an IPv6 address. ipaddr.isValid alone also
 * takes "10" and "0x0a.1" (inet_aton forms), which nobody means in a config.
 */
export function isIpAddress(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text) ||
    (text.includes(":") && ipaddr.IPv6.isValid(text) && !text.includes("%"));
}

/** True for "10.0.0.0/8" or "fd00::/8" (host bits may be set). */
export function isCidr(text: string): boolean {
  const slash = text.indexOf("/");
  if (slash < 0 || !isIpAddress(text.slice(0, slash))) return false;
  if (!/^\d{1,3}$/.test(text.slice(slash + 1))) return false;
  try {
    ipaddr.parseCIDR(text);
    return true;
  } catch {
    return false;
  }
}

/** True for "192.0.2.1", "192.0.2.1:5353", "2001:db8::1" or "[2001:db8::1]:5353". */
export function isHostPort(text: string): boolean {
  if (isIpAddress(text)) return true;
  const m = /^(?:\[([^\]]+)\]|([0-9.]+)):(\d{1,5})$/.exec(text);
  if (!m) return false;
  const host = m[1] ?? m[2] ?? "";
  const port = Number(m[3]);
  const hostOk = m[1] !== undefined
    ? host.includes(":") && isIpAddress(host)
    : ipaddr.IPv4.isValidFourPartDecimal(host);
  return hostOk && port >= 1 && port <= 65535;
}

/**
 * An address and port from "192.0.2.1", "192.0.2.1:5353", "2001:db8::1"
 * or "[2001:db8::1]:5353" (what isHostPort accepts), `defaultPort` when
 * none is written.
 */
export function splitHostPort(
  text: string,
  defaultPort = 53,
): { address: string; port: number } {
  const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(text);
  if (bracketed) return { address: bracketed[1]!, port: Number(bracketed[2]) };
  const v4 = /^([0-9.]+):(\d+)$/.exec(text);
  if (v4) return { address: v4[1]!, port: Number(v4[2]) };
  return { address: text, port: defaultPort };
}
