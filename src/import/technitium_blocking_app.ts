/**
 * Technitium's Advanced Blocking app (`AdvancedBlockingApp/dnsApp.config`,
 * its README describes every key) as ClientGroups, BlockLists and
 * Policies. `networkGroupMap` (IP or network → group name) gives each
 * group its clients; each group's lists become BlockLists and one Policy.
 * Technitium picks the most specific network for a client; kudurru picks
 * the matching Policy of highest priority, so a Policy's priority is one
 * more than the longest prefix among its group's networks (above the
 * default Policy's 0). The app blocks on its own beside the server's
 * built-in blocking, so the server's lists (`serverLists`) go into every
 * group's Policy too.
 */
import type { KObject } from "../api/v1alpha1/meta.ts";
import { isCidr, isIpAddress } from "../dns/ip_text.ts";
import {
  type ImportContext,
  isMap,
  namespaced,
  stringList,
  type YamlMap,
} from "./import_context.ts";
import { listName, type ServerLists } from "./technitium_settings.ts";

/** True for a JSON object that is the app's config. */
export function isBlockingAppConfig(json: unknown): json is YamlMap {
  return isMap(json) && Array.isArray(json.groups) &&
    ("networkGroupMap" in json || "localEndPointGroupMap" in json) &&
    json.groups.some((g) =>
      isMap(g) && ("blockListUrls" in g || "blocked" in g)
    );
}

/** A `networkGroupMap` key as a ClientGroup entry, and its prefix length. */
function networkEntry(
  key: string,
): { client: { ip: string } | { cidr: string }; prefix: number } | undefined {
  // Technitium writes IPv6 networks bracketed: "[::]/0".
  const text = key.trim().replace(/^\[([^\]]+)\]/, "$1");
  if (isIpAddress(text)) {
    return { client: { ip: text }, prefix: text.includes(":") ? 128 : 32 };
  }
  if (isCidr(text)) {
    return { client: { cidr: text }, prefix: Number(text.split("/")[1]) };
  }
  return undefined;
}

/** The answer of a blocking group or list: NXDOMAIN, or its addresses. */
function responseOf(
  nx: unknown,
  addresses: unknown,
): { mode: string; customIPs?: string[] } {
  if (nx !== false) return { mode: "nxdomain" };
  const ips = stringList(addresses).filter((ip) => isIpAddress(ip));
  const zero = ips.every((ip) => ip === "0.0.0.0" || ip === "::");
  return zero ? { mode: "zeroIP" } : { mode: "customIP", customIPs: ips };
}

/** Domains as adblock rules: Technitium's entries cover the name and every name below it. */
function adblockRules(domains: string[]): string {
  return domains.map((d) => `||${d.replace(/\.$/, "")}^`).join("\n") + "\n";
}

export function mapBlockingApp(
  ctx: ImportContext,
  label: string,
  config: YamlMap,
  serverLists: ServerLists,
): KObject[] {
  const objects: KObject[] = [];
  if (config.enableBlocking === false) {
    ctx.skipped(
      label,
      "Advanced Blocking app",
      "its enableBlocking is false: Technitium does not use it, so nothing is imported",
    );
    return objects;
  }
  const networks = new Map<string, { clients: object[]; prefix: number }>();
  const map = isMap(config.networkGroupMap) ? config.networkGroupMap : {};
  for (const [key, group] of Object.entries(map)) {
    const entry = networkEntry(key);
    if (entry === undefined || typeof group !== "string") {
      ctx.skipped(
        `${label} networkGroupMap`,
        `${key} → ${String(group)}`,
        "not an IP address or network",
      );
      continue;
    }
    const n = networks.get(group) ?? { clients: [], prefix: -1 };
    n.clients.push(entry.client);
    n.prefix = Math.max(n.prefix, entry.prefix);
    networks.set(group, n);
  }
  const endpoints = isMap(config.localEndPointGroupMap)
    ? config.localEndPointGroupMap
    : {};
  for (const [key, group] of Object.entries(endpoints)) {
    ctx.skipped(
      `${label} localEndPointGroupMap`,
      `${key} → ${String(group)}`,
      "groups by the listener address or DoT/DoH name a client used: a kudurru ClientGroup matches the client (address, MAC, ClientID, name), not the listener",
    );
  }
  const ttl = typeof config.blockingAnswerTtl === "number"
    ? `${config.blockingAnswerTtl}s`
    : undefined;
  const interval = (Number(config.blockListUrlUpdateIntervalHours ?? 0) * 60 +
    Number(config.blockListUrlUpdateIntervalMinutes ?? 0)) * 60_000;
  const refresh = interval >= 60_000 ? `${interval / 60_000}m` : undefined;
  const groups = Array.isArray(config.groups) ? config.groups : [];
  groups.forEach((g, i) => {
    const where = `${label} groups[${i}]`;
    if (!isMap(g) || typeof g.name !== "string") {
      ctx.skipped(where, "group", "not a group with a name");
      return;
    }
    const net = networks.get(g.name);
    if (net === undefined) {
      ctx.skipped(
        where,
        `group "${g.name}"`,
        "no networkGroupMap entry names it, so no client kudurru can match is in it",
      );
      return;
    }
    objects.push(
      ...mapGroup(ctx, where, g, net, { ttl, refresh }, serverLists),
    );
  });
  return objects;
}

function mapGroup(
  ctx: ImportContext,
  where: string,
  g: YamlMap,
  net: { clients: object[]; prefix: number },
  opts: { ttl?: string | undefined; refresh?: string | undefined },
  serverLists: ServerLists,
): KObject[] {
  const label = g.name as string;
  const objects: KObject[] = [];
  const group = ctx.uniqueName("ClientGroup", label, "group");
  objects.push(namespaced("ClientGroup", group, { clients: net.clients }));
  const block: string[] = [];
  const allow: string[] = [];
  const refresh = opts.refresh !== undefined
    ? { refreshInterval: opts.refresh }
    : {};
  const addList = (
    mode: "block" | "allow",
    base: string,
    source: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) => {
    const name = source.url !== undefined
      ? listName(ctx, source.url as string, `${label}`)
      : ctx.uniqueName("BlockList", `${label}-${base}`, base);
    objects.push(
      namespaced("BlockList", name, {
        mode,
        sources: [source],
        ...(source.url !== undefined && refresh),
        ...extra,
      }),
    );
    (mode === "block" ? block : allow).push(name);
    return name;
  };
  const inline = (
    key: string,
    mode: "block" | "allow",
    format: string,
    text: (items: string[]) => string,
  ) => {
    const items = stringList(g[key]);
    if (items.length === 0) return;
    const name = addList(mode, key, {
      inline: text(items),
      format,
      name: `Technitium ${label} ${key}`,
    });
    ctx.mapped(
      `${where}.${key}`,
      `${items.length} ${key} entr${
        items.length === 1 ? "y" : "ies"
      } of group "${label}"`,
      `BlockList ${name} (mode ${mode}, inline ${format})`,
    );
  };
  inline("blocked", "block", "adblock", adblockRules);
  inline("allowed", "allow", "adblock", adblockRules);
  inline("blockedRegex", "block", "regex", (r) => r.join("\n") + "\n");
  inline("allowedRegex", "allow", "regex", (r) => r.join("\n") + "\n");
  const urls = (
    key: string,
    mode: "block" | "allow",
    format: string | undefined,
  ) => {
    const list = Array.isArray(g[key]) ? g[key] as unknown[] : [];
    list.forEach((entry, j) => {
      const at = `${where}.${key}[${j}]`;
      const url = typeof entry === "string"
        ? entry
        : isMap(entry) && typeof entry.url === "string"
        ? entry.url
        : undefined;
      if (url === undefined) {
        ctx.skipped(at, JSON.stringify(entry), "not a URL or {url, …}");
        return;
      }
      // The object form carries its own answer (the app's README).
      const own = isMap(entry) &&
          ("blockAsNxDomain" in entry || "blockingAddresses" in entry)
        ? {
          response: responseOf(
            entry.blockAsNxDomain,
            entry.blockingAddresses,
          ),
        }
        : {};
      const name = addList(mode, key, {
        url,
        ...(format !== undefined && { format }),
      }, mode === "block" ? own : {});
      ctx.mapped(
        at,
        `${mode} list ${url} of group "${label}"`,
        `BlockList ${name} (mode ${mode}${
          "response" in own ? `, response ${own.response.mode}` : ""
        })`,
      );
    });
  };
  urls("blockListUrls", "block", undefined);
  urls("allowListUrls", "allow", undefined);
  urls("regexBlockListUrls", "block", "regex");
  urls("regexAllowListUrls", "allow", "regex");
  urls("adblockListUrls", "block", "adblock");
  const enabled = g.enableBlocking !== false;
  const response = responseOf(g.blockAsNxDomain, g.blockingAddresses);
  const policy = ctx.uniqueName("Policy", label, "group");
  const blockRefs = enabled
    ? [...block, ...serverLists.blockListRefs]
    : serverLists.blockListRefs;
  const allowRefs = [...allow, ...serverLists.allowListRefs];
  objects.push(namespaced("Policy", policy, {
    clientGroupRefs: [group],
    ...(blockRefs.length > 0 && { blockListRefs: blockRefs }),
    ...(allowRefs.length > 0 && { allowListRefs: allowRefs }),
    blockMode: response.mode,
    ...(response.customIPs !== undefined && { customIPs: response.customIPs }),
    ...(opts.ttl !== undefined && { blockTTL: opts.ttl }),
    priority: net.prefix + 1,
  }));
  ctx.mapped(
    where,
    `group "${label}"`,
    `ClientGroup ${group} (${net.clients.length} network(s)) and Policy ${policy} (priority ${
      net.prefix + 1
    }, blockMode ${response.mode}${
      enabled ? "" : ", the group's own lists off as enableBlocking is false"
    }${
      serverLists.blockListRefs.length + serverLists.allowListRefs.length > 0
        ? ", with the server's lists too"
        : ""
    })`,
  );
  return objects;
}
