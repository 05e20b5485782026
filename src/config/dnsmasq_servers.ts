/**
 * Import of dnsmasq's forwarding lines (`server=`, `local=`, `rev-server=`)
 * into `upstreams` fragments: the groups and conditional entries they mean.
 * Pi-hole and many routers write their conditional forwarding this way.
 */
import ipaddr from "ipaddr.js";

/** What a dnsmasq file says about forwarding, as `upstreams` fragments. */
export interface DnsmasqServers {
  /** Groups to merge into `upstreams.groups` ("default" from `server=<ip>`). */
  groups: Record<string, { servers: string[] }>;
  /** Entries to merge into `upstreams.conditional` (FQDN → group). */
  conditional: Record<string, string>;
  /**
   * Domains dnsmasq answers only from local data and never forwards
   * (`server=/local/`, `local=/lan/`). kudurru has no "never forward" rule
   * yet: serve these as primary zones, or they go to the default group.
   */
  localOnly: string[];
  /** Lines that are neither comments, blank, nor forwarding lines. */
  ignored: number;
}

/** A dnsmasq line that cannot be imported; the message names the source and line. */
export class DnsmasqImportError extends Error {
  constructor(source: string, line: number, reason: string) {
    super(
      `Cannot import dnsmasq servers from "${source}": line ${line}: ${reason}`,
    );
    this.name = "DnsmasqImportError";
  }
}

/** "Use the default servers" for a domain (`server=/example/#`). */
const DEFAULT_SERVERS = "#";

/**
 * Parses dnsmasq configuration text. Understood:
 *
 * - `server=<ip>[#port]`: a server of the default group;
 * - `server=/d1/[d2/…]<ip>[#port]`: conditional forwarding of d1, d2… (a
 *   domain on several lines gets all their servers, as in dnsmasq); domains
 *   with the same servers share one group, named after the first domain;
 * - `server=/d/#`: d goes to the default group;
 * - `server=/d/` and `local=/d/`: never forwarded (see `localOnly`);
 * - `rev-server=<prefix>,<ip>[#port]`: conditional forwarding of the
 *   reverse zone of an IPv4 prefix on an octet boundary or an IPv6 prefix on
 *   a nibble boundary.
 *
 * @param source named in errors (a file name)
 * @throws {DnsmasqImportError} for forwarding lines kudurru cannot express
 *   (source addresses or interfaces after `@`, `//` for unqualified names,
 *   wildcard domains) or with a bad address, port or prefix
 */
export function parseDnsmasqServers(
  text: string,
  source = "dnsmasq.conf",
): DnsmasqServers {
  const defaults: string[] = [];
  const byDomain = new Map<string, string[]>();
  const localOnly: string[] = [];
  let ignored = 0;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const fail = (reason: string) => {
      throw new DnsmasqImportError(source, index + 1, reason);
    };
    const eq = line.indexOf("=");
    const option = eq < 0 ? line : line.slice(0, eq).trim();
    const value = eq < 0 ? "" : line.slice(eq + 1).trim();
    if (option === "rev-server") {
      const [domain, server] = reverseServer(value, fail);
      addServer(byDomain, domain, server);
    } else if (option === "server" || option === "local") {
      const { domains, server } = serverLine(value, fail);
      if (domains.length === 0) {
        if (server === undefined) fail(`"${option}=" names no server`);
        else defaults.push(server);
      } else if (server === undefined) {
        localOnly.push(...domains);
      } else {
        for (const d of domains) addServer(byDomain, d, server);
      }
    } else {
      ignored++;
    }
  });
  return { ...groupsOf(defaults, byDomain), localOnly, ignored };
}

function addServer(
  byDomain: Map<string, string[]>,
  domain: string,
  server: string,
): void {
  const servers = byDomain.get(domain) ?? [];
  if (!servers.includes(server)) servers.push(server);
  byDomain.set(domain, servers);
}

/** One group per distinct server list, named after its first domain. */
function groupsOf(
  defaults: string[],
  byDomain: Map<string, string[]>,
): Pick<DnsmasqServers, "groups" | "conditional"> {
  const groups: Record<string, { servers: string[] }> = {};
  if (defaults.length > 0) groups.default = { servers: [...new Set(defaults)] };
  const nameByServers = new Map<string, string>();
  const conditional: Record<string, string> = {};
  for (const [domain, servers] of byDomain) {
    if (servers.includes(DEFAULT_SERVERS)) {
      conditional[domain] = "default";
      continue;
    }
    const key = servers.join(" ");
    let name = nameByServers.get(key);
    if (name === undefined) {
      name = uniqueName(groupSlug(domain), groups);
      groups[name] = { servers };
      nameByServers.set(key, name);
    }
    conditional[domain] = name;
  }
  return { groups, conditional };
}

/** A group name (`[a-z0-9-]`, no dash at either end) from a domain. */
function groupSlug(domain: string): string {
  const slug = domain.replace(/\.$/, "").replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug === "" ? "dnsmasq" : slug.slice(0, 50).replace(/-+$/, "");
}

function uniqueName(base: string, taken: Record<string, unknown>): string {
  if (base !== "default" && !(base in taken)) return base;
  for (let i = 2;; i++) {
    if (!(`${base}-${i}` in taken)) return `${base}-${i}`;
  }
}

/** `/d1/d2/server`, `/d/`, `/d/#` or `server`. */
function serverLine(
  value: string,
  fail: (reason: string) => never,
): { domains: string[]; server?: string } {
  if (!value.startsWith("/")) {
    return value === ""
      ? { domains: [] }
      : { domains: [], server: serverAddress(value, fail) };
  }
  const parts = value.split("/");
  const server = parts.pop()!;
  const domains = parts.slice(1).map((d) => {
    if (d === "") fail("forwarding of unqualified names (//) is not supported");
    if (d.includes("*")) fail(`wildcard domain "${d}" is not supported`);
    return fqdn(d);
  });
  if (server === "") return { domains };
  if (server === DEFAULT_SERVERS) return { domains, server: DEFAULT_SERVERS };
  return { domains, server: serverAddress(server, fail) };
}

/** `ip[#port]` as kudurru writes it: `ip`, `ip:port` or `[ipv6]:port`. */
function serverAddress(text: string, fail: (reason: string) => never): string {
  if (text.includes("@")) {
    fail(`source address or interface in "${text}" is not supported`);
  }
  const [address = "", port] = text.split("#");
  if (!ipaddr.isValid(address)) fail(`"${address}" is not an IP address`);
  if (port === undefined || port === "53") return address;
  const number = Number(port);
  if (!/^\d+$/.test(port) || number < 1 || number > 65535) {
    fail(`port "${port}" is not a number from 1 to 65535`);
  }
  return address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
}

/** `rev-server=<prefix>,<server>`: the reverse zone's name and the server. */
function reverseServer(
  value: string,
  fail: (reason: string) => never,
): [string, string] {
  const [prefix = "", server = ""] = value.split(",").map((p) => p.trim());
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  let length: number;
  try {
    [address, length] = ipaddr.parseCIDR(prefix);
  } catch {
    return fail(`"${prefix}" is not a CIDR prefix`);
  }
  return [reverseZone(address, length, fail), serverAddress(server, fail)];
}

function reverseZone(
  address: ipaddr.IPv4 | ipaddr.IPv6,
  length: number,
  fail: (reason: string) => never,
): string {
  const bytes = address.toByteArray();
  if (address.kind() === "ipv4") {
    if (length % 8 !== 0) {
      fail(`reverse prefix /${length} is not on an octet boundary`);
    }
    return [...bytes.slice(0, length / 8).reverse(), "in-addr.arpa."].join(".");
  }
  if (length % 4 !== 0) {
    fail(`reverse prefix /${length} is not on a nibble boundary`);
  }
  const nibbles = bytes.flatMap((b) => [b >> 4, b & 0xf]).slice(0, length / 4);
  return [...nibbles.reverse().map((n) => n.toString(16)), "ip6.arpa."].join(
    ".",
  );
}

function fqdn(domain: string): string {
  const lower = domain.toLowerCase();
  return lower.endsWith(".") ? lower : `${lower}.`;
}
