/**
 * AdGuard Home's upstream settings (`dns.upstream_dns`, `bootstrap_dns`,
 * `upstream_mode`, `local_ptr_upstreams`) as kudurru's `upstreams`
 * settings. The line syntax is the one AdGuard Home's "Configuration" wiki
 * page specifies ("Specifying upstreams for domains"): plain servers go to
 * the default group; `[/d1/d2/]server…` sends d1 and d2 (and the names
 * below them) elsewhere, which becomes `upstreams.conditional` plus one
 * upstream group per distinct server set; `#` as the server means "the
 * default servers".
 */
import ipaddr from "ipaddr.js";
import {
  parseBootstrapServer,
  parseUpstreamServer,
} from "../config/upstream_server.ts";
import { parseDuration } from "../config/duration.ts";
import {
  groupName,
  hostName,
  type ImportContext,
  stringList,
  type YamlMap,
} from "./import_context.ts";

/** One group of `upstreams.groups`, as kudurru.yaml writes it. */
export interface UpstreamGroup {
  servers: string[];
  strategy?: string;
  timeout?: string;
}

/** The `upstreams` settings section being built. */
export interface UpstreamSettings {
  groups: Record<string, UpstreamGroup>;
  conditional: Record<string, string>;
  bootstrap?: string[];
}

/** AdGuard Home's `upstream_timeout` when unset: not worth carrying over. */
const AGH_DEFAULT_TIMEOUT_MS = 10_000;

/** `upstream_mode` → kudurru group strategy (AdGuard Home's wiki describes the modes). */
const STRATEGIES: Record<string, string | undefined> = {
  load_balance: "rtt_weighted",
  parallel: "parallel_best",
};

/** One `[/domains/]servers` or plain line, split. */
interface UpstreamLine {
  /** Undefined for a plain line (default servers). */
  domains?: string[];
  servers: string[];
}

/** Splits an upstream line; undefined for blanks and `#` comments. */
export function splitUpstreamLine(line: string): UpstreamLine | undefined {
  const text = line.trim();
  if (text === "" || text.startsWith("#")) return undefined;
  if (!text.startsWith("[/")) return { servers: text.split(/\s+/) };
  const end = text.indexOf("/]");
  if (end < 0) return { domains: [], servers: [] };
  const domains = end === 1 ? [""] : text.slice(2, end).split("/");
  const rest = text.slice(end + 2).trim();
  return { domains, servers: rest === "" ? [] : rest.split(/\s+/) };
}

/**
 * An AdGuard Home upstream as a kudurru server string, or undefined (and
 * a skipped note) for the forms kudurru does not speak.
 */
export function convertServer(
  ctx: ImportContext,
  where: string,
  text: string,
): string | undefined {
  const lower = text.toLowerCase();
  const skip = (why: string) => {
    ctx.skipped(where, `upstream ${text}`, why);
    return undefined;
  };
  if (lower.startsWith("quic://")) {
    return skip(
      "DNS-over-QUIC: kudurru speaks udp, tcp://, tls:// and https:// to upstreams",
    );
  }
  if (lower.startsWith("sdns://")) {
    return skip(
      "a DNS stamp (DNSCrypt or DoH): kudurru does not decode stamps or speak DNSCrypt; write the server as tls:// or https://",
    );
  }
  let server = text;
  if (lower.startsWith("h3://")) server = `https://${text.slice(5)}`;
  try {
    parseUpstreamServer(server);
  } catch (error) {
    return skip(error instanceof Error ? error.message : String(error));
  }
  if (server !== text) {
    ctx.mapped(
      where,
      `upstream ${text}`,
      `${server} (DNS-over-HTTP/3 as DNS-over-HTTPS: kudurru's DoH client does not speak HTTP/3)`,
    );
  }
  return server;
}

/** Servers of one group, deduplicated, in order. */
function convertAll(
  ctx: ImportContext,
  where: string,
  servers: string[],
): string[] {
  const out: string[] = [];
  for (const s of servers) {
    const server = convertServer(ctx, where, s);
    if (server !== undefined && !out.includes(server)) out.push(server);
  }
  return out;
}

/**
 * Maps `dns.upstream_dns` (or the lines of `upstream_dns_file`), the
 * bootstrap servers, the mode and the private PTR upstreams. `lines` are
 * the upstream lines already read (from the file when one is set).
 */
export function mapUpstreams(
  ctx: ImportContext,
  dns: YamlMap,
  lines: { where: string; lines: string[] },
): UpstreamSettings | undefined {
  ctx.handle(
    "dns.upstream_dns",
    "dns.upstream_dns_file",
    "dns.bootstrap_dns",
    "dns.upstream_mode",
    "dns.all_servers",
    "dns.fastest_addr",
    "dns.upstream_timeout",
    "dns.local_ptr_upstreams",
    "dns.private_networks",
  );
  const settings: UpstreamSettings = { groups: {}, conditional: {} };
  const defaults: string[] = [];
  /** Domain (FQDN) → servers as written, or "#" for the default group. */
  const byDomain = new Map<string, { where: string; servers: string[] }>();
  const wildcards: { where: string; domain: string; servers: string[] }[] = [];
  lines.lines.forEach((raw, i) => {
    const where = `${lines.where}[${i}]`;
    const line = splitUpstreamLine(raw);
    if (line === undefined) return;
    if (line.domains === undefined) {
      defaults.push(...convertAll(ctx, where, line.servers));
      return;
    }
    if (line.servers.length === 0) {
      ctx.skipped(where, raw, "no upstream server after the domains");
      return;
    }
    for (const written of line.domains) {
      if (written === "") {
        ctx.skipped(
          where,
          raw,
          "[//] (unqualified names, those without a dot) has no counterpart: kudurru's conditional forwarding matches domain suffixes",
        );
        continue;
      }
      const wildcard = written.startsWith("*.");
      const domain = hostName(wildcard ? written.slice(2) : written);
      if (domain === undefined) {
        ctx.skipped(where, raw, `"${written}" is not a domain name`);
        continue;
      }
      if (wildcard) {
        wildcards.push({ where, domain: `${domain}.`, servers: line.servers });
      } else {
        byDomain.set(`${domain}.`, { where, servers: line.servers });
      }
    }
  });
  for (const w of wildcards) {
    if (byDomain.has(w.domain)) {
      ctx.skipped(
        w.where,
        `[/*.${w.domain.slice(0, -1)}/]`,
        `subdomains only: kudurru's conditional entry for ${w.domain} covers the domain and every name below it, and ${w.domain} already has its own line`,
      );
      continue;
    }
    byDomain.set(w.domain, { where: w.where, servers: w.servers });
    ctx.mapped(
      w.where,
      `[/*.${w.domain.slice(0, -1)}/]`,
      `imported as ${w.domain}: kudurru's conditional entry also covers ${w.domain} itself, which AdGuard Home sent to the default upstreams`,
    );
  }

  const strategy = strategyOf(ctx, dns);
  const timeout = timeoutOf(ctx, dns);
  const group = (servers: string[]): UpstreamGroup => ({
    servers,
    ...(strategy !== undefined && { strategy }),
    ...(timeout !== undefined && { timeout }),
  });
  if (defaults.length > 0) {
    settings.groups.default = group(defaults);
    ctx.mapped(
      lines.where,
      `${defaults.length} default upstream(s)`,
      `upstreams.groups.default.servers: ${defaults.join(", ")}`,
    );
  }
  const groupByServers = new Map<string, string>();
  for (const [domain, { where, servers: written }] of byDomain) {
    const what = `[/${domain.slice(0, -1)}/]${written.join(" ")}`;
    if (written.includes("#")) {
      settings.conditional[domain] = "default";
      ctx.mapped(where, what, `upstreams.conditional["${domain}"]: default`);
      continue;
    }
    const servers = convertAll(ctx, where, written);
    if (servers.length === 0) {
      ctx.skipped(where, what, "none of its servers is one kudurru can use");
      continue;
    }
    const key = servers.join(" ");
    let name = groupByServers.get(key);
    if (name === undefined) {
      name = uniqueGroup(settings.groups, groupName(domain) ?? "conditional");
      settings.groups[name] = group(servers);
      groupByServers.set(key, name);
    }
    settings.conditional[domain] = name;
    ctx.mapped(
      where,
      what,
      `upstreams.conditional["${domain}"]: ${name} (upstreams.groups.${name})`,
    );
  }
  mapPrivatePtr(ctx, dns, settings, group);
  mapBootstrap(ctx, dns, settings);
  const empty = Object.keys(settings.groups).length === 0 &&
    settings.bootstrap === undefined;
  return empty ? undefined : settings;
}

/** An unused group name from `base` ("default" is the plain servers'). */
export function uniqueGroup(
  groups: Record<string, unknown>,
  base: string,
): string {
  if (base !== "default" && !(base in groups)) return base;
  for (let i = 2;; i++) {
    if (!(`${base}-${i}` in groups)) return `${base}-${i}`;
  }
}

function strategyOf(ctx: ImportContext, dns: YamlMap): string | undefined {
  const mode = typeof dns.upstream_mode === "string"
    ? dns.upstream_mode
    // Before schema 28 two booleans said it (AdGuard Home's wiki).
    : dns.fastest_addr === true
    ? "fastest_addr"
    : dns.all_servers === true
    ? "parallel"
    : undefined;
  if (mode === undefined || mode === "") return undefined;
  const where = typeof dns.upstream_mode === "string"
    ? "dns.upstream_mode"
    : dns.fastest_addr === true
    ? "dns.fastest_addr"
    : "dns.all_servers";
  const strategy = STRATEGIES[mode];
  if (strategy === undefined) {
    ctx.skipped(
      where,
      `upstream mode ${mode}`,
      mode === "fastest_addr"
        ? "no counterpart (it probes the answer's addresses); kudurru's parallel_best strategy is the closest"
        : "unknown upstream mode",
    );
    return undefined;
  }
  ctx.mapped(where, `upstream mode ${mode}`, `strategy ${strategy}`);
  return strategy;
}

function timeoutOf(ctx: ImportContext, dns: YamlMap): string | undefined {
  if (typeof dns.upstream_timeout !== "string") return undefined;
  const ms = parseDuration(dns.upstream_timeout);
  if (ms === undefined || ms === AGH_DEFAULT_TIMEOUT_MS) {
    if (ms === undefined) {
      ctx.skipped(
        "dns.upstream_timeout",
        dns.upstream_timeout,
        "not a duration",
      );
    }
    return undefined;
  }
  if (ms < 50 || ms > 60_000) {
    ctx.skipped(
      "dns.upstream_timeout",
      dns.upstream_timeout,
      "outside the 50ms–60s a kudurru group timeout takes",
    );
    return undefined;
  }
  ctx.mapped(
    "dns.upstream_timeout",
    dns.upstream_timeout,
    `timeout ${dns.upstream_timeout} of every upstream group`,
  );
  return dns.upstream_timeout;
}

function mapBootstrap(
  ctx: ImportContext,
  dns: YamlMap,
  settings: UpstreamSettings,
): void {
  const bootstrap: string[] = [];
  stringList(dns.bootstrap_dns).forEach((text, i) => {
    const where = `dns.bootstrap_dns[${i}]`;
    try {
      parseBootstrapServer(text);
      bootstrap.push(text);
    } catch (error) {
      ctx.skipped(
        where,
        `bootstrap ${text}`,
        error instanceof Error ? error.message : String(error),
      );
    }
  });
  if (bootstrap.length === 0) return;
  settings.bootstrap = bootstrap;
  ctx.mapped(
    "dns.bootstrap_dns",
    `bootstrap ${bootstrap.join(", ")}`,
    "upstreams.bootstrap",
  );
}

/** Locally-served networks AdGuard Home uses when `private_networks` is empty (RFC 6303). */
const DEFAULT_PRIVATE_NETWORKS = [
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "169.254.0.0/16",
  "fd00::/8",
  "fe80::/10",
];

/**
 * `local_ptr_upstreams`: PTR queries for locally-served networks go to
 * these servers; as conditional entries for those networks' reverse zones.
 */
function mapPrivatePtr(
  ctx: ImportContext,
  dns: YamlMap,
  settings: UpstreamSettings,
  group: (servers: string[]) => UpstreamGroup,
): void {
  const lines = stringList(dns.local_ptr_upstreams);
  if (lines.length === 0) return;
  if (dns.use_private_ptr_resolvers === false) {
    ctx.skipped(
      "dns.local_ptr_upstreams",
      "private PTR upstreams",
      "use_private_ptr_resolvers is false, so AdGuard Home does not use them",
    );
    return;
  }
  const servers: string[] = [];
  lines.forEach((raw, i) => {
    const where = `dns.local_ptr_upstreams[${i}]`;
    const line = splitUpstreamLine(raw);
    if (line === undefined) return;
    if (line.domains !== undefined) {
      ctx.skipped(
        where,
        raw,
        "domain-specific private PTR upstreams are not imported; add them to upstreams.conditional",
      );
      return;
    }
    for (const s of convertAll(ctx, where, line.servers)) {
      if (!servers.includes(s)) servers.push(s);
    }
  });
  if (servers.length === 0) return;
  const name = uniqueGroup(settings.groups, "private-ptr");
  settings.groups[name] = group(servers);
  const custom = stringList(dns.private_networks);
  const networks = custom.length > 0 ? custom : DEFAULT_PRIVATE_NETWORKS;
  const zones: string[] = [];
  for (const network of networks) {
    const reverse = reverseZones(network);
    if (reverse === undefined) {
      ctx.skipped(
        "dns.private_networks",
        network,
        "not a network whose reverse zones can be listed",
      );
      continue;
    }
    for (const zone of reverse) {
      if (settings.conditional[zone] !== undefined) continue;
      settings.conditional[zone] = name;
      zones.push(zone);
    }
  }
  ctx.mapped(
    "dns.local_ptr_upstreams",
    `private PTR upstreams ${servers.join(", ")}`,
    `upstreams.groups.${name}, conditional for ${zones.length} reverse zone(s) of ${
      custom.length > 0 ? "private_networks" : "the RFC 6303 private networks"
    }`,
  );
}

/**
 * The reverse zones that cover a network: one zone when the prefix falls
 * on a label boundary (8 bits for IPv4, 4 for IPv6), else the zones one
 * label deeper (at most 256).
 */
export function reverseZones(cidr: string): string[] | undefined {
  let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number];
  try {
    parsed = ipaddr.parseCIDR(cidr);
  } catch {
    return undefined;
  }
  const [address, prefix] = parsed;
  const v4 = address.kind() === "ipv4";
  const step = v4 ? 8 : 4;
  const aligned = Math.ceil(prefix / step) * step;
  const count = 2 ** (aligned - prefix);
  if (count > 256) return undefined;
  const bytes = address.toByteArray();
  const zones: string[] = [];
  for (let i = 0; i < count; i++) {
    // The network's bits, then i in the bits up to the aligned prefix.
    const units = v4 ? bytes : bytes.flatMap((b) => [b >> 4, b & 15]);
    const n = aligned / step;
    const kept = units.slice(0, n);
    if (aligned > prefix) kept[n - 1] = (kept[n - 1]! & ~(count - 1)) + i;
    const labels = kept.reverse().map((u) => u.toString(v4 ? 10 : 16));
    zones.push(
      `${labels.join(".")}${labels.length ? "." : ""}${
        v4 ? "in-addr.arpa." : "ip6.arpa."
      }`,
    );
  }
  return zones;
}

/**
 * A persistent client's own `upstreams` as a group; domain lines are
 * skipped (kudurru's conditional forwarding is the same for every client).
 */
export function clientUpstreamGroup(
  ctx: ImportContext,
  where: string,
  lines: string[],
): string[] {
  const servers: string[] = [];
  lines.forEach((raw, i) => {
    const line = splitUpstreamLine(raw);
    if (line === undefined) return;
    if (line.domains !== undefined) {
      ctx.skipped(
        `${where}[${i}]`,
        raw,
        "per-client domain-specific upstreams have no counterpart: kudurru's upstreams.conditional applies to every client",
      );
      return;
    }
    for (const s of convertAll(ctx, `${where}[${i}]`, line.servers)) {
      if (!servers.includes(s)) servers.push(s);
    }
  });
  return servers;
}
