/**
 * Import of dnsmasq's forwarding lines (`server=`, `local=`, `rev-server=`)
 * into `upstreams` fragments: the groups and conditional entries they mean.
 * Pi-hole and many routers write their conditional forwarding this way.
 */
import ipaddr from "ipaddr.js";
import { checkDomainName } from "../dns/name.ts";

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
 *   `/.d/` is d, as dnsmasq reads that "historical" form;
 * - `server=/d/#`: d goes to the default group;
 * - `server=/d/` and `local=/d/`: never forwarded (see `localOnly`);
 * - `rev-server=<prefix>,<ip>[#port]`: conditional forwarding of the
 *   reverse zone of an IPv4 prefix on an octet boundary or an IPv6 prefix on
 *   a nibble boundary; a bare address is its /32 or /128, as in dnsmasq.
 *
 * Lines are read as dnsmasq reads them: a `#` at the start of a line or
 * after whitespace, outside double quotes, starts a comment (`#` right after
 * an address is its port), and quotes are removed.
 *
 * @param source named in errors (a file name)
 * @throws {DnsmasqImportError} for forwarding lines kudurru cannot express
 *   (source addresses or interfaces after `@`, `//` for unqualified names,
 *   wildcard domains, quoted `#` or `,`) or with a bad domain, address,
 *   port or prefix
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
    const fail = (reason: string) => {
      throw new DnsmasqImportError(source, index + 1, reason);
    };
    const { text: line, quotedMeta } = readLine(raw, fail);
    if (line === "") return;
    const eq = line.indexOf("=");
    const option = eq < 0 ? line : line.slice(0, eq).trim();
    const value = eq < 0 ? "" : line.slice(eq + 1).trim();
    if (quotedMeta && FORWARDING_OPTIONS.has(option)) {
      // dnsmasq hides a quoted "#" or "," from its parser; a quoted port or
      // list is too rare to copy that for.
      fail('a quoted "#" or "," is not supported; remove the quotes');
    }
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

const FORWARDING_OPTIONS = new Set(["server", "local", "rev-server"]);

/** Escapes dnsmasq decodes between quotes (dnsmasq(8), CONFIG FILE). */
const QUOTED_ESCAPES: Record<string, string> = {
  "\\": "\\",
  '"': '"',
  t: "\t",
  e: "\x1b",
  b: "\b",
  r: "\r",
  n: "\n",
};

/**
 * A line as dnsmasq's parser sees it: the comment cut off, quotes removed,
 * whitespace trimmed ("" for blank and comment lines). `quotedMeta` says a
 * quoted `#` or `,` was kept, which dnsmasq would not read as a separator.
 */
function readLine(
  raw: string,
  fail: (reason: string) => never,
): { text: string; quotedMeta: boolean } {
  let text = "";
  let quotedMeta = false;
  let afterSpace = true; // a "#" first on the line is a comment too
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '"') {
      const end = readQuoted(raw, i + 1);
      if (end === undefined) fail('a quote (") is not closed');
      text += end.text;
      quotedMeta ||= /[#,]/.test(end.text);
      i = end.next - 1;
      afterSpace = false;
    } else if (/\s/.test(ch)) {
      text += " ";
      afterSpace = true;
    } else if (ch === "#" && afterSpace) {
      break;
    } else {
      text += ch;
      afterSpace = false;
    }
  }
  return { text: text.trim(), quotedMeta };
}

/** The text of a quoted part starting at `from`, and where it ends. */
function readQuoted(
  raw: string,
  from: number,
): { text: string; next: number } | undefined {
  let text = "";
  for (let i = from; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '"') return { text, next: i + 1 };
    const escaped = ch === "\\" ? QUOTED_ESCAPES[raw[i + 1] ?? ""] : undefined;
    if (escaped !== undefined) {
      text += escaped;
      i++;
    } else {
      text += ch;
    }
  }
  return undefined;
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
    return domainOf(d, fail);
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
  const [address, length] = reversePrefix(prefix, fail);
  return [reverseZone(address, length, fail), serverAddress(server, fail)];
}

/** `ip/len`, or a bare `ip` as its /32 or /128 the way dnsmasq takes it. */
function reversePrefix(
  prefix: string,
  fail: (reason: string) => never,
): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number];
  try {
    if (prefix.includes("/")) parsed = ipaddr.parseCIDR(prefix);
    else {
      const address = ipaddr.parse(prefix);
      parsed = [address, address.kind() === "ipv4" ? 32 : 128];
    }
  } catch {
    return fail(`"${prefix}" is not an IP address or CIDR prefix`);
  }
  // dnsmasq refuses /0 too: a reverse "zone" of every address is none.
  if (parsed[1] === 0) fail(`reverse prefix "${prefix}" is /0`);
  return parsed;
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

/**
 * `d` as a lowercase FQDN. One leading dot goes: dnsmasq reads `/.d/` as
 * `/d/`, and kept it would make an entry no name ever matches.
 */
function domainOf(d: string, fail: (reason: string) => never): string {
  const name = d.length > 1 && d.startsWith(".") ? d.slice(1) : d;
  const problem = checkDomainName(name);
  if (problem !== null) fail(`"${d}" is not a domain name: ${problem}`);
  const lower = name.toLowerCase();
  return lower.endsWith(".") ? lower : `${lower}.`;
}
