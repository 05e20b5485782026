/**
 * Addresses in the edge topology: "host:port" where host is an IP literal
 * ("10.0.0.1:53", "[2001:db8::1]:53"). dnsdist 1.7's newServer, setLocal and
 * webserver take addresses, never names (dnsdist docs: newServer "address"),
 * so a host name is refused here with a message that says so, rather than by
 * dnsdist at start.
 */
import ipaddr from "ipaddr.js";

/** An IP address (IPv6 without brackets, in RFC 5952 form) and a port. */
export interface Endpoint {
  host: string;
  port: number;
}

/**
 * Parses "a.b.c.d:port", "[v6]:port", or, when `defaultPort` is given, a
 * bare address ("a.b.c.d", "v6", "[v6]").
 *
 * @returns the endpoint, or a sentence saying what is wrong
 */
export function parseEndpoint(
  text: string,
  defaultPort?: number,
): Endpoint | string {
  const raw = text.trim();
  if (raw === "") return "an address is empty";
  let host: string;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(raw);
  if (bracketed) {
    host = bracketed[1]!;
    portText = bracketed[2];
  } else if (ipaddr.IPv6.isValid(raw)) {
    host = raw; // bare IPv6: its colons are not a port separator
  } else {
    const colon = raw.lastIndexOf(":");
    host = colon < 0 ? raw : raw.slice(0, colon);
    portText = colon < 0 ? undefined : raw.slice(colon + 1);
  }
  let port: number;
  if (portText === undefined) {
    if (defaultPort === undefined) {
      return `"${raw}" needs a port, as in "${raw}:53"`;
    }
    port = defaultPort;
  } else if (/^\d{1,5}$/.test(portText) && Number(portText) <= 65535) {
    port = Number(portText);
  } else {
    return `"${raw}" has no valid port (1-65535)`;
  }
  if (port === 0) return `"${raw}" has port 0`;
  const canonical = canonicalIp(host, bracketed !== null);
  if (canonical === undefined) {
    return `"${raw}" is not an IP address and port; dnsdist takes addresses, not host names`;
  }
  return { host: canonical, port };
}

/** The address in RFC 5952 form, or undefined when `host` is not an IP. */
function canonicalIp(host: string, bracketed: boolean): string | undefined {
  if (bracketed) {
    return ipaddr.IPv6.isValid(host)
      ? ipaddr.IPv6.parse(host).toString()
      : undefined;
  }
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) {
    return ipaddr.IPv4.parse(host).toString();
  }
  return ipaddr.IPv6.isValid(host)
    ? ipaddr.IPv6.parse(host).toString()
    : undefined;
}

/** "host:port", IPv6 in brackets: the form dnsdist and URLs take. */
export function formatEndpoint(e: Endpoint): string {
  return `${e.host.includes(":") ? `[${e.host}]` : e.host}:${e.port}`;
}

/** True for 127.0.0.0/8 and ::1 (and ::ffff:127.x.y.z). */
export function isLoopback(host: string): boolean {
  if (!ipaddr.isValid(host)) return false;
  const ip = ipaddr.process(host);
  return ip.range() === "loopback";
}

/** True for 0.0.0.0 and ::, which bind every address of their family. */
export function isWildcard(host: string): boolean {
  if (!ipaddr.isValid(host)) return false;
  return ipaddr.process(host).range() === "unspecified";
}

/**
 * True when two listeners would fight over a socket: the same port, and the
 * same host or a wildcard of that family.
 */
export function endpointsClash(a: Endpoint, b: Endpoint): boolean {
  if (a.port !== b.port) return false;
  if (a.host === b.host) return true;
  const v6a = a.host.includes(":");
  const v6b = b.host.includes(":");
  if (v6a !== v6b) return false;
  return isWildcard(a.host) || isWildcard(b.host);
}

/** True for an address or CIDR prefix ("10.0.0.0/8", "::1/128", "192.0.2.1"). */
export function isPrefix(text: string): boolean {
  return ipaddr.isValidCIDR(text) || ipaddr.isValid(text);
}
