/**
 * Parses the upstream server strings of `upstreams.groups.*.servers` and
 * `upstreams.bootstrap`: "1.2.3.4", "1.2.3.4:53", "[2001:db8::1]:53",
 * "2001:db8::1", "udp://…", "tcp://host[:53]", "tls://host[:853]" (with
 * "#name" to give the TLS name of an IP), "https://host[:443]/dns-query".
 */
import ipaddr from "ipaddr.js";

/** How a server is spoken to: Do53 over UDP or TCP, DoT, DoH. */
export type UpstreamScheme = "udp" | "tcp" | "tls" | "https";

/** One upstream server as configured, split into what a transport needs. */
export interface UpstreamServer {
  /** The text as configured ("tls://1.1.1.1"): what logs and the query log show. */
  raw: string;
  scheme: UpstreamScheme;
  /** An IP address (IPv6 without brackets) or a host name (no trailing dot). */
  host: string;
  port: number;
  /** The HTTP path of a DoH server, with its leading slash. */
  path?: string;
  /** The name the server's certificate must carry (SNI): the host name, or "#name" after an IP. */
  tlsServerName?: string;
}

/** The port each scheme uses when the text gives none. */
export const DEFAULT_PORTS: Readonly<Record<UpstreamScheme, number>> = {
  udp: 53,
  tcp: 53,
  tls: 853,
  https: 443,
};

const SCHEMES = new Set<string>(["udp", "tcp", "tls", "https"]);
const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/i;

/**
 * Splits a server string into scheme, host, port, DoH path and TLS name.
 *
 * @throws {Error} naming the text when it is none of the accepted forms
 */
export function parseUpstreamServer(text: string): UpstreamServer {
  const raw = text.trim();
  const fail = (why: string): never => {
    throw new Error(
      `Cannot parse upstream server "${withoutCredentials(text)}": ${why}`,
    );
  };
  if (raw === "") fail("empty");
  const schemeMatch = /^([a-z0-9+.-]+):\/\//i.exec(raw);
  if (schemeMatch === null) return withoutScheme(raw, fail);
  const scheme = schemeMatch[1]!.toLowerCase();
  if (!SCHEMES.has(scheme)) {
    fail(`unknown scheme "${scheme}" (expected udp, tcp, tls or https)`);
  }
  if (scheme === "https") return parseHttps(raw, fail);
  return parseAuthority(
    raw,
    scheme as UpstreamScheme,
    raw.slice(schemeMatch[0].length),
    fail,
  );
}

/** `text` with any "user:password@" after the scheme masked: errors are logged. */
function withoutCredentials(text: string): string {
  return text.replace(/^(\s*[a-z0-9+.-]+:\/\/)[^/?#@]*@/i, "$1***@");
}

/** True when `host` is an IP address literal rather than a name to resolve. */
export function isIpAddress(host: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(host) || ipaddr.IPv6.isValid(host);
}

/** "host:port", bracketing IPv6 hosts. */
export function formatHostPort(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

type Fail = (why: string) => never;

/** Plain Do53: "1.2.3.4", "1.2.3.4:53", "[v6]:53", bare "v6", "host[:port]". */
function withoutScheme(raw: string, fail: Fail): UpstreamServer {
  if (ipaddr.IPv6.isValid(raw)) {
    return { raw, scheme: "udp", host: raw, port: DEFAULT_PORTS.udp };
  }
  return parseAuthority(raw, "udp", raw, fail);
}

/** "host", "host:port", "[v6]", "[v6]:port", with "#name" for tls only. */
function parseAuthority(
  raw: string,
  scheme: UpstreamScheme,
  rest: string,
  fail: Fail,
): UpstreamServer {
  let authority = rest;
  let tlsName: string | undefined;
  const hash = authority.indexOf("#");
  if (hash >= 0) {
    if (scheme !== "tls") fail('a "#name" suffix is only for tls:// servers');
    tlsName = checkHostName(authority.slice(hash + 1), fail);
    authority = authority.slice(0, hash);
  }
  if (authority.endsWith("/")) authority = authority.slice(0, -1);
  if (authority.includes("/")) fail(`a ${scheme}:// server has no path`);
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*))(?::(\d{1,5}))?$/.exec(authority);
  if (m === null) fail("expected host or host:port, IPv6 in brackets");
  const bracketed = m![1];
  let host = bracketed ?? m![2]!;
  if (bracketed !== undefined) {
    if (!ipaddr.IPv6.isValid(bracketed)) {
      fail(`"${bracketed}" is not an IPv6 address`);
    }
  } else if (!ipaddr.IPv4.isValidFourPartDecimal(host)) {
    host = checkHostName(host, fail);
  }
  const port = parsePort(m![3], scheme, fail);
  const server: UpstreamServer = { raw, scheme, host, port };
  const serverName = tlsName ?? (isIpAddress(host) ? undefined : host);
  if (scheme === "tls" && serverName !== undefined) {
    server.tlsServerName = serverName;
  }
  return server;
}

function parseHttps(raw: string, fail: Fail): UpstreamServer {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail("not a valid URL");
  }
  if (url.username !== "" || url.password !== "") {
    fail("credentials in the URL are not supported");
  }
  if (url.search !== "") fail("a query string is not supported");
  const bracketed = /^\[(.*)\]$/.exec(url.hostname);
  const host = bracketed
    ? bracketed[1]!
    : ipaddr.IPv4.isValidFourPartDecimal(url.hostname)
    ? url.hostname
    : checkHostName(url.hostname, fail);
  const port = url.port === "" ? DEFAULT_PORTS.https : Number(url.port);
  const path = url.pathname === "/" ? "/dns-query" : url.pathname;
  const server: UpstreamServer = { raw, scheme: "https", host, port, path };
  const fragment = url.hash.slice(1);
  const serverName = fragment !== ""
    ? checkHostName(fragment, fail)
    : isIpAddress(host)
    ? undefined
    : host;
  if (serverName !== undefined) server.tlsServerName = serverName;
  return server;
}

function parsePort(
  text: string | undefined,
  scheme: UpstreamScheme,
  fail: Fail,
): number {
  if (text === undefined) return DEFAULT_PORTS[scheme];
  const port = Number(text);
  if (port < 1 || port > 65535) fail(`port ${text} is not 1-65535`);
  return port;
}

/** A host name lower-cased without its trailing dot, or a failure. */
function checkHostName(name: string, fail: Fail): string {
  const bare = name.endsWith(".") ? name.slice(0, -1) : name;
  if (bare === "") fail("missing host");
  if (bare.length > 253 || !bare.split(".").every((l) => LABEL.test(l))) {
    fail(`"${name}" is neither an IP address nor a host name`);
  }
  if (/^[0-9.]+$/.test(bare)) fail(`"${name}" is not an IPv4 address`);
  return bare.toLowerCase();
}

/**
 * Parses an `upstreams.bootstrap` entry: plain DNS to an IP address, with
 * an optional port ("1.1.1.1:53", "udp://[2001:db8::1]:53"). A host name
 * would need resolving itself, and the bootstrap never asks the system
 * resolver (which may be kudurru).
 *
 * @throws {Error} naming the entry when it is anything else or no server
 */
export function parseBootstrapServer(text: string): UpstreamServer & {
  address: string;
} {
  const server = parseUpstreamServer(text);
  if (server.scheme !== "udp" || !isIpAddress(server.host)) {
    throw new Error(
      `Cannot use bootstrap server "${text}": it must be a plain IP address with an optional port, such as "1.1.1.1:53"`,
    );
  }
  return { ...server, address: server.host };
}
