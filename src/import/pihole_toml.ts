/**
 * Pi-hole v6's `pihole.toml` as kudurru settings: `dns.upstreams`
 * (`ip#port`) → `upstreams.groups.default`; `dns.revServers`
 * (`enabled,cidr,server#port,domain`) → an upstream group each and
 * `upstreams.conditional` entries for the reverse zone and the domain;
 * `dns.blocking.*`, `dns.reply.blocking.*` and `dns.blockTTL` →
 * `blocking.*`; `dns.cache.size` → `cache.maxEntries`. The key meanings are
 * the comments pihole-FTL writes into the file. Local records (`dns.hosts`,
 * `dns.cnameRecords`, `dns.domain`) are pihole_records.ts's; every other
 * section is reported skipped, one note per section.
 */
import { parse, TomlError } from "smol-toml";
import ipaddr from "ipaddr.js";
import { parseUpstreamServer } from "../config/upstream_server.ts";
import { isIpAddress } from "../dns/ip_text.ts";
import { normalizeName } from "../blocking/parse/names.ts";
import { type ImportContext, isMap, type YamlMap } from "./import_context.ts";
import { ImportError } from "./import_result.ts";

export type Toml = YamlMap;

/**
 * Parses the text as a `pihole.toml`.
 *
 * @throws {ImportError} when it is not TOML or has no `[dns]` table
 */
export function parsePiholeToml(where: string, text: string): Toml {
  let doc: Toml;
  try {
    doc = parse(text) as Toml;
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    throw new ImportError(
      `${where} is not valid TOML, so not Pi-hole's pihole.toml: ${
        error.message.split("\n")[0]
      }`,
      { cause: error },
    );
  }
  if (!isMap(doc.dns)) {
    throw new ImportError(
      `${where} is not Pi-hole's pihole.toml: it has no [dns] table (top-level keys: ${
        Object.keys(doc).slice(0, 12).join(", ") || "none"
      })`,
    );
  }
  return doc;
}

export interface TomlSettings {
  upstreams?: Record<string, unknown>;
  blocking?: Record<string, unknown>;
  cache?: Record<string, unknown>;
  /** Domains (no trailing dot) sent to a rev-server: no local zone for them. */
  forwardedDomains: string[];
}

/** dns keys handled here or in pihole_records.ts. */
export const HANDLED_DNS_KEYS = new Set([
  "upstreams",
  "revServers",
  "blockTTL",
  "blocking",
  "reply",
  "cache",
  "hosts",
  "cnameRecords",
  "domain",
  "hostRecord",
]);

export function mapTomlSettings(ctx: ImportContext, doc: Toml): TomlSettings {
  const dns = doc.dns as Toml;
  const out: TomlSettings = { forwardedDomains: [] };
  const groups: Record<string, { servers: string[] }> = {};
  const conditional: Record<string, string> = {};

  const defaults = serversOf(ctx, "dns.upstreams", list(dns.upstreams));
  if (defaults.length > 0) {
    groups.default = { servers: defaults };
    ctx.mapped(
      "dns.upstreams",
      list(dns.upstreams).join(", "),
      `upstreams.groups.default: ${defaults.join(", ")}`,
    );
  }
  list(dns.revServers).forEach((line, i) => {
    mapRevServer(ctx, `dns.revServers[${i}]`, line, groups, conditional, out);
  });
  if (Object.keys(groups).length > 0) {
    out.upstreams = {
      groups,
      ...(Object.keys(conditional).length > 0 && { conditional }),
    };
  }
  out.blocking = mapBlocking(ctx, dns);
  if (Object.keys(out.blocking).length === 0) delete out.blocking;
  const cache = isMap(dns.cache) ? dns.cache : {};
  if (typeof cache.size === "number" && Number.isInteger(cache.size)) {
    out.cache = { maxEntries: Math.max(0, cache.size) };
    ctx.mapped(
      "dns.cache.size",
      `cache size ${cache.size}`,
      `cache.maxEntries: ${Math.max(0, cache.size)}`,
    );
  }
  const rest = Object.keys(cache).filter((k) => k !== "size");
  if (rest.length > 0) {
    ctx.skipped(
      "dns.cache",
      rest.map((k) => `cache.${k}`).join(", "),
      "dnsmasq's cache optimizer and upstream-blocked TTL have no counterpart in kudurru's cache",
    );
  }
  reportSkipped(ctx, doc);
  return out;
}

/** `ip`, `ip#port` or a host name as kudurru upstream strings. */
function serversOf(ctx: ImportContext, where: string, lines: string[]) {
  const out: string[] = [];
  for (const line of lines) {
    const server = upstreamOf(line);
    try {
      if (server === undefined) throw new Error("not ip, ip#port or a name");
      parseUpstreamServer(server);
    } catch (error) {
      ctx.skipped(
        where,
        `upstream ${line}`,
        error instanceof Error ? error.message : String(error),
      );
      continue;
    }
    if (!out.includes(server)) out.push(server);
  }
  return out;
}

/** Pi-hole (dnsmasq) writes the port after "#": `1.2.3.4#5353`, `::1#53`. */
export function upstreamOf(text: string): string | undefined {
  const [host, port, ...more] = text.trim().split("#");
  if (host === undefined || host === "" || more.length > 0) return undefined;
  if (port === undefined) return host;
  if (!/^\d{1,5}$/.test(port)) return undefined;
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

function mapRevServer(
  ctx: ImportContext,
  where: string,
  line: string,
  groups: Record<string, { servers: string[] }>,
  conditional: Record<string, string>,
  out: TomlSettings,
): void {
  const [enabled, cidr, server, domain, ...more] = line.split(",").map((s) =>
    s.trim()
  );
  const what = `reverse server ${line}`;
  if (more.length > 0 || cidr === undefined || server === undefined) {
    ctx.skipped(where, what, 'not "enabled,cidr,server[#port][,domain]"');
    return;
  }
  if (enabled !== "true") {
    ctx.skipped(where, what, "disabled in Pi-hole");
    return;
  }
  const upstream = upstreamOf(server);
  const zone = reverseZone(cidr);
  if (upstream === undefined || zone === undefined) {
    ctx.skipped(
      where,
      what,
      upstream === undefined
        ? `"${server}" is not ip[#port]`
        : `"${cidr}" is not an address range`,
    );
    return;
  }
  const local = domain === undefined || domain === ""
    ? undefined
    : normalizeName(domain) ?? undefined;
  let name = `rev-${(local ?? zone.zone).replace(/[^a-z0-9]+/g, "-")}`
    .replace(/-+$/, "").slice(0, 50);
  for (let i = 2; name in groups; i++) name = `${name}-${i}`;
  groups[name] = { servers: [upstream] };
  conditional[zone.zone] = name;
  if (local !== undefined) {
    conditional[`${local}.`] = name;
    out.forwardedDomains.push(local);
  }
  ctx.mapped(
    where,
    what,
    `upstreams.groups.${name} (${upstream}) with upstreams.conditional for ${zone.zone}${
      local === undefined ? "" : ` and ${local}.`
    }${
      zone.widened
        ? ` (the prefix is not on an octet/nibble boundary: the reverse zone covers the enclosing /${zone.prefix})`
        : ""
    }`,
  );
}

/** The reverse zone of a CIDR (or one address), on an octet/nibble boundary. */
export function reverseZone(
  cidr: string,
): { zone: string; prefix: number; widened: boolean } | undefined {
  const [address, length] = cidr.split("/");
  if (address === undefined || !isIpAddress(address)) return undefined;
  const ip = ipaddr.parse(address);
  const bits = ip.kind() === "ipv4" ? 32 : 128;
  const prefix = length === undefined ? bits : Number(length);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) {
    return undefined;
  }
  if (ip.kind() === "ipv4") {
    const octets = Math.floor(prefix / 8);
    const labels = (ip as ipaddr.IPv4).octets.slice(0, octets).reverse();
    return {
      zone: [...labels, "in-addr", "arpa", ""].join("."),
      prefix: octets * 8,
      widened: octets * 8 !== prefix,
    };
  }
  const nibbleCount = Math.floor(prefix / 4);
  const hex = (ip as ipaddr.IPv6).toByteArray()
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  const labels = [...hex.slice(0, nibbleCount)].reverse();
  return {
    zone: [...labels, "ip6", "arpa", ""].join("."),
    prefix: nibbleCount * 4,
    widened: nibbleCount * 4 !== prefix,
  };
}

/** `dns.blocking.mode` → `blocking.defaultResponse` (Pi-hole's own words in the comments). */
function mapBlocking(ctx: ImportContext, dns: Toml): Record<string, unknown> {
  const blocking: Record<string, unknown> = {};
  const section = isMap(dns.blocking) ? dns.blocking : {};
  if (section.active === false) {
    blocking.enabled = false;
    ctx.mapped("dns.blocking.active", "false", "blocking.enabled: false");
  }
  const reply = isMap(dns.reply) && isMap(dns.reply.blocking)
    ? dns.reply.blocking
    : {};
  const forced = [
    reply.force4 === true ? reply.IPv4 : undefined,
    reply.force6 === true ? reply.IPv6 : undefined,
  ].filter((ip): ip is string => typeof ip === "string" && isIpAddress(ip));
  const mode = typeof section.mode === "string" ? section.mode : undefined;
  const at = "dns.blocking.mode";
  if (mode === "NULL") {
    blocking.defaultResponse = "zeroIP";
    ctx.mapped(at, mode, "blocking.defaultResponse: zeroIP (0.0.0.0 / ::)");
  } else if (mode === "NX") {
    blocking.defaultResponse = "nxdomain";
    ctx.mapped(at, mode, "blocking.defaultResponse: nxdomain");
  } else if (mode === "IP" || mode === "IP_NODATA_AAAA") {
    if (forced.length > 0) {
      blocking.defaultResponse = "customIP";
      blocking.customIPs = forced;
      ctx.mapped(
        at,
        mode,
        `blocking.defaultResponse: customIP, customIPs: ${
          forced.join(", ")
        } (from dns.reply.blocking)${
          mode === "IP_NODATA_AAAA"
            ? "; AAAA questions get the custom IPv6 address or no records, not Pi-hole's NODATA"
            : ""
        }`,
      );
    } else {
      ctx.skipped(
        at,
        mode,
        "Pi-hole answers with its own interface addresses, which the file does not name; set blocking.defaultResponse: customIP with this host's addresses",
      );
    }
  } else if (mode !== undefined) {
    ctx.skipped(
      at,
      mode,
      mode === "NODATA"
        ? "kudurru has no NODATA answer for blocked names; zeroIP (the default) or nxdomain are the nearest"
        : "unknown blocking mode",
    );
  }
  if (
    forced.length > 0 && mode !== "IP" && mode !== "IP_NODATA_AAAA"
  ) {
    ctx.skipped(
      "dns.reply.blocking",
      `forced blocking addresses ${forced.join(", ")}`,
      `Pi-hole uses them only in the IP blocking modes; the mode is ${
        mode ?? "unset"
      }`,
    );
  }
  if (section.edns !== undefined) {
    ctx.skipped(
      "dns.blocking.edns",
      String(section.edns),
      "kudurru marks every blocked answer with Extended DNS Error 15 Blocked (RFC 8914) and its list",
    );
  }
  const ttl = dns.blockTTL;
  if (typeof ttl === "number" && Number.isInteger(ttl) && ttl >= 0) {
    blocking.blockTTL = `${ttl}s`;
    ctx.mapped("dns.blockTTL", String(ttl), `blocking.blockTTL: ${ttl}s`);
  }
  return blocking;
}

/** Why each section is left out: one note per section. */
const SECTION_REASONS: Record<string, string> = {
  dhcp: "kudurru is not a DHCP server",
  ntp: "kudurru is not an NTP server",
  resolver: "client names come from kudurru's own PTR lookups",
  database: "kudurru keeps its own query log (querylog settings)",
  webserver:
    "kudurru's API and web UI have their own listeners and users; Pi-hole's password hash cannot become an Argon2id hash",
  files: "Pi-hole's file locations mean nothing to kudurru",
  misc: "process and logging settings of pihole-FTL",
  debug: "pihole-FTL's debug logging",
};

function reportSkipped(ctx: ImportContext, doc: Toml): void {
  const dns = doc.dns as Toml;
  const rest = Object.keys(dns).filter((k) => !HANDLED_DNS_KEYS.has(k));
  if (rest.length > 0) {
    ctx.skipped(
      "dns",
      rest.map((k) => `dns.${k}`).join(", "),
      "listener, DNSSEC, rate-limit, special-domain and dnsmasq options with no kudurru setting of the same meaning (set the like under listeners, upstreams or the API as needed)",
    );
  }
  const misc = isMap(doc.misc) ? doc.misc : {};
  if (list(misc.dnsmasq_lines).length > 0) {
    ctx.skipped(
      "misc.dnsmasq_lines",
      `${list(misc.dnsmasq_lines).length} dnsmasq line(s)`,
      "raw dnsmasq options: save them to a file and run `kudurru import dnsmasq` on it",
    );
  }
  for (const key of Object.keys(doc)) {
    if (key === "dns") continue;
    ctx.skipped(
      key,
      `[${key}]`,
      SECTION_REASONS[key] ?? "a section this importer does not know",
    );
  }
}

function list(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((v): v is string => typeof v === "string")
    : [];
}
