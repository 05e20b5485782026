/**
 * Technitium's Advanced Forwarding app (`AdvancedForwardingApp/
 * dnsApp.config`, described by its README) as `upstreams` settings. Each
 * named forwarder becomes an upstream group; a group's `forwardings`
 * (domains → forwarders) become `upstreams.conditional` entries, `*` the
 * default group. kudurru's conditional forwarding is the same for every
 * client, so only groups that `networkGroupMap` gives every network
 * (`0.0.0.0/0` and `[::]/0`) are imported; proxies and AdGuard-style
 * upstream files are skipped with the reason.
 */
import { checkDomainName, normalizeName, toFqdn } from "../dns/name.ts";
import {
  groupName,
  type ImportContext,
  isMap,
  stringList,
  type YamlMap,
} from "./import_context.ts";
import { uniqueGroup, type UpstreamSettings } from "./adguard_upstreams.ts";
import { forwarderServer } from "./technitium_forwarders.ts";

/** True for a JSON object that is the app's config. */
export function isForwardingAppConfig(json: unknown): json is YamlMap {
  return isMap(json) && Array.isArray(json.groups) &&
    json.groups.some((g) => isMap(g) && Array.isArray(g.forwardings));
}

const EVERYONE = new Set(["0.0.0.0/0", "[::]/0", "::/0"]);

export function mapForwardingApp(
  ctx: ImportContext,
  label: string,
  config: YamlMap,
  upstreams: UpstreamSettings,
): void {
  if (config.enableForwarding === false) {
    ctx.skipped(
      label,
      "Advanced Forwarding app",
      "its enableForwarding is false: Technitium does not use it, so nothing is imported (set it to true to import it)",
    );
    return;
  }
  for (
    const p of Array.isArray(config.proxyServers) ? config.proxyServers : []
  ) {
    if (!isMap(p)) continue;
    ctx.skipped(
      `${label} proxyServers`,
      `proxy ${String(p.name)} (${String(p.type)} ${String(p.proxyAddress)}:${
        String(p.proxyPort)
      })`,
      "kudurru reaches upstreams directly, never through a proxy",
    );
  }
  // Forwarder name → kudurru servers.
  const forwarders = new Map<string, string[]>();
  (Array.isArray(config.forwarders) ? config.forwarders : []).forEach(
    (f, i) => {
      const where = `${label} forwarders[${i}]`;
      if (!isMap(f) || typeof f.name !== "string") {
        ctx.skipped(where, "forwarder", "not a forwarder with a name");
        return;
      }
      const protocol = typeof f.forwarderProtocol === "string"
        ? f.forwarderProtocol
        : "Udp";
      if (typeof f.proxy === "string") {
        ctx.skipped(
          where,
          `proxy ${f.proxy} of forwarder "${f.name}"`,
          "kudurru reaches upstreams directly: the forwarder is imported without its proxy",
        );
      }
      const servers: string[] = [];
      for (const address of stringList(f.forwarderAddresses)) {
        const result = forwarderServer(address, protocol);
        if ("why" in result) {
          ctx.skipped(
            where,
            `${address} (${protocol}) of forwarder "${f.name}"`,
            result.why,
          );
        } else if (!servers.includes(result.server)) {
          servers.push(result.server);
        }
      }
      forwarders.set(f.name, servers);
    },
  );
  const map = isMap(config.networkGroupMap) ? config.networkGroupMap : {};
  const networksOf = (group: string) =>
    Object.entries(map).filter(([, g]) => g === group).map(([n]) => n.trim());
  const made = new Map<string, string>();
  (Array.isArray(config.groups) ? config.groups : []).forEach((g, i) => {
    const where = `${label} groups[${i}]`;
    if (!isMap(g) || typeof g.name !== "string") return;
    if (g.enableForwarding === false) {
      ctx.skipped(where, `group "${g.name}"`, "its enableForwarding is false");
      return;
    }
    const networks = networksOf(g.name);
    if (!networks.some((n) => EVERYONE.has(n))) {
      ctx.skipped(
        where,
        `group "${g.name}" (networks ${networks.join(", ") || "none"})`,
        "per-network forwarding: kudurru's upstreams.conditional applies to every client",
      );
      return;
    }
    (Array.isArray(g.forwardings) ? g.forwardings : []).forEach((fw, j) => {
      if (!isMap(fw)) return;
      mapForwarding(
        ctx,
        `${where}.forwardings[${j}]`,
        fw,
        forwarders,
        made,
        upstreams,
      );
    });
    for (
      const a of Array.isArray(g.adguardUpstreams) ? g.adguardUpstreams : []
    ) {
      if (!isMap(a)) continue;
      ctx.skipped(
        `${where}.adguardUpstreams`,
        `AdGuard-style upstreams file ${String(a.configFile)}`,
        "the file lives in the app's folder, not in the export: add its lines to upstreams by hand",
      );
    }
  });
}

function mapForwarding(
  ctx: ImportContext,
  where: string,
  fw: YamlMap,
  forwarders: Map<string, string[]>,
  made: Map<string, string>,
  upstreams: UpstreamSettings,
): void {
  const names = stringList(fw.forwarders);
  const servers = [...new Set(names.flatMap((n) => forwarders.get(n) ?? []))];
  const domains = stringList(fw.domains);
  const what = `${domains.join(", ")} → ${names.join(", ")}`;
  if (servers.length === 0) {
    ctx.skipped(
      where,
      what,
      "none of its forwarders has a server kudurru can use",
    );
    return;
  }
  const key = servers.join(" ");
  const group = () => {
    let name = made.get(key);
    if (name === undefined) {
      name = uniqueGroup(
        upstreams.groups,
        groupName(names.join("-")) ?? "forwarding",
      );
      upstreams.groups[name] = { servers };
      made.set(key, name);
    }
    return name;
  };
  for (const domain of domains) {
    if (domain.trim() === "*") {
      const replaced = upstreams.groups.default !== undefined;
      upstreams.groups.default = { servers };
      ctx.mapped(
        where,
        `* → ${names.join(", ")}`,
        `upstreams.groups.default: ${servers.join(", ")}${
          replaced
            ? " (in place of the settings' forwarders: the app answers first)"
            : ""
        }`,
      );
      continue;
    }
    const fqdn = normalizeName(toFqdn(domain.trim().replace(/^\*\./, "")));
    if (checkDomainName(fqdn) !== null) {
      ctx.skipped(where, domain, "not a domain name");
      continue;
    }
    const name = group();
    upstreams.conditional[fqdn] = name;
    ctx.mapped(
      where,
      `${domain} → ${names.join(", ")}`,
      `upstreams.conditional["${fqdn}"]: ${name} (upstreams.groups.${name}: ${
        servers.join(", ")
      })`,
    );
  }
}
