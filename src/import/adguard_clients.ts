/**
 * AdGuard Home's persistent clients and global filtering choices as
 * ClientGroups and Policies (docs/blocking.md). The global settings become
 * `Policy/default/default` over `ClientGroup/default/default` (everyone),
 * taking over the first-boot policy. Each persistent client gets a
 * ClientGroup from its `ids` (IP, CIDR, MAC, ClientID, as AdGuard Home's
 * "Clients" wiki page lists them). A client's own group takes it out of
 * the catch-all group, so a client that follows the global settings joins
 * the default Policy, and one with settings of its own gets a Policy of
 * its own.
 */
import { CLIENT_ID_RE } from "../api/v1alpha1/clientgroup.ts";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { isCidr, isIpAddress } from "../dns/ip_text.ts";
import {
  type ImportContext,
  isMap,
  namespaced,
  stringList,
  type YamlMap,
} from "./import_context.ts";
import {
  clientUpstreamGroup,
  uniqueGroup,
  type UpstreamSettings,
} from "./adguard_upstreams.ts";

/** What applies to a client that uses the global settings. */
export interface GlobalFiltering {
  filteringEnabled: boolean;
  blockListRefs: string[];
  allowListRefs: string[];
  blockedServices: string[];
  safeSearch: boolean | undefined;
}

/** Blocked services as `filtering.blocked_services` (or older forms) give them. */
export function blockedServiceIds(value: unknown): string[] {
  // Before schema 21 a plain list of ids; since, { ids, schedule }.
  if (Array.isArray(value)) return stringList(value);
  return isMap(value) ? stringList(value.ids) : [];
}

/** `safe_search` as `{ enabled }` (schema 23 on) or a boolean before. */
export function safeSearchOf(
  value: unknown,
  legacy: unknown,
): boolean | undefined {
  if (isMap(value) && typeof value.enabled === "boolean") return value.enabled;
  return typeof legacy === "boolean" ? legacy : undefined;
}

/** The Policy spec of settings, without unset fields. */
function policySpec(
  groups: string[],
  s: GlobalFiltering,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    clientGroupRefs: groups,
    ...(s.filteringEnabled && s.blockListRefs.length > 0 &&
      { blockListRefs: s.blockListRefs }),
    ...(s.filteringEnabled && s.allowListRefs.length > 0 &&
      { allowListRefs: s.allowListRefs }),
    ...(s.blockedServices.length > 0 &&
      { blockedServices: s.blockedServices }),
    ...(s.safeSearch !== undefined && { safeSearch: s.safeSearch }),
    ...extra,
  };
}

/**
 * The default ClientGroup and Policy, and a ClientGroup (and Policy when
 * needed) per persistent client. Per-client upstreams add groups to
 * `upstreams`.
 */
export function mapClients(
  ctx: ImportContext,
  clients: unknown,
  global: GlobalFiltering,
  upstreams: UpstreamSettings,
): KObject[] {
  ctx.handle("clients");
  const persistent = Array.isArray(clients)
    ? clients // before schema 20 `clients` was the list itself
    : isMap(clients)
    ? clients.persistent
    : undefined;
  if (isMap(clients) && isMap(clients.runtime_sources)) {
    ctx.skipped(
      "clients.runtime_sources",
      "runtime client sources (whois, arp, rdns, dhcp, hosts)",
      "kudurru names clients by PTR lookups through itself (ClientGroup hostname entries); the other sources have no counterpart",
    );
  }
  const objects: KObject[] = [];
  const defaultGroups = ["default"];
  objects.push(namespaced("ClientGroup", "default", {
    clients: [{ cidr: "0.0.0.0/0" }, { cidr: "::/0" }],
  }));
  ctx.uniqueName("ClientGroup", "default", "default");
  ctx.uniqueName("Policy", "default", "default");
  const defaultPolicy = namespaced("Policy", "default", {});
  objects.push(defaultPolicy);
  if (Array.isArray(persistent)) {
    persistent.forEach((entry: unknown, i) => {
      const where = `clients.persistent[${i}]`;
      if (!isMap(entry)) {
        ctx.skipped(where, "client", "not a mapping");
        return;
      }
      const made = mapClient(ctx, entry, where, global, upstreams);
      if (made === undefined) return;
      objects.push(...made.objects);
      if (made.usesDefault) defaultGroups.push(made.group);
    });
  }
  defaultPolicy.spec = policySpec(defaultGroups, global);
  ctx.mapped(
    "filtering",
    "global filtering settings",
    `Policy default (replaces the first-boot default policy and its starter list) for ClientGroup ${
      defaultGroups.join(", ")
    }${
      global.blockedServices.length > 0 || global.safeSearch !== undefined
        ? "; blockedServices and safeSearch are accepted but not applied by this version of kudurru"
        : ""
    }`,
  );
  return objects;
}

function mapClient(
  ctx: ImportContext,
  entry: YamlMap,
  where: string,
  global: GlobalFiltering,
  upstreams: UpstreamSettings,
): { objects: KObject[]; group: string; usesDefault: boolean } | undefined {
  const label = typeof entry.name === "string" ? entry.name : `client ${where}`;
  const clients = stringList(entry.ids).flatMap((id, j) => {
    const client = clientEntry(id);
    if (client === undefined) {
      ctx.skipped(
        `${where}.ids[${j}]`,
        `id ${id} of client "${label}"`,
        "not an IP address, CIDR, MAC address or ClientID",
      );
      return [];
    }
    return [{ ...client, name: label }];
  });
  if (clients.length === 0) {
    ctx.skipped(where, `client "${label}"`, "no id kudurru can match");
    return undefined;
  }
  const group = ctx.uniqueName("ClientGroup", label, "client");
  const objects: KObject[] = [namespaced("ClientGroup", group, { clients })];
  const own = ownSettings(ctx, entry, where, label, global, upstreams);
  if (own === undefined) {
    ctx.mapped(
      where,
      `client "${label}"`,
      `ClientGroup ${group}, under Policy default (it uses the global settings)`,
    );
    return { objects, group, usesDefault: true };
  }
  const policy = ctx.uniqueName("Policy", label, "client");
  objects.push(
    namespaced("Policy", policy, policySpec([group], own.filtering, own.extra)),
  );
  ctx.mapped(
    where,
    `client "${label}"`,
    `ClientGroup ${group} and its own Policy ${policy} (${own.why.join(", ")})`,
  );
  return { objects, group, usesDefault: false };
}

/** The settings of a client that has its own, or undefined. */
function ownSettings(
  ctx: ImportContext,
  entry: YamlMap,
  where: string,
  label: string,
  global: GlobalFiltering,
  upstreams: UpstreamSettings,
):
  | {
    filtering: GlobalFiltering;
    extra: Record<string, unknown>;
    why: string[];
  }
  | undefined {
  const why: string[] = [];
  const filtering = { ...global };
  const extra: Record<string, unknown> = {};
  if (entry.use_global_settings === false) {
    why.push("use_global_settings: false");
    filtering.filteringEnabled = entry.filtering_enabled !== false;
    filtering.safeSearch = safeSearchOf(
      entry.safe_search,
      entry.safesearch_enabled,
    ) ?? false;
    for (const key of ["parental_enabled", "safebrowsing_enabled"]) {
      if (entry[key] === true) {
        ctx.skipped(
          `${where}.${key}`,
          `${key} for client "${label}"`,
          "AdGuard's cloud parental control and safe browsing have no counterpart",
        );
      }
    }
  }
  if (entry.use_global_blocked_services === false) {
    why.push("own blocked services");
    filtering.blockedServices = blockedServiceIds(entry.blocked_services);
    if (
      isMap(entry.blocked_services) &&
      Object.keys(entry.blocked_services.schedule ?? {}).some((k) =>
        k !== "time_zone"
      )
    ) {
      ctx.skipped(
        `${where}.blocked_services.schedule`,
        `blocked services pause schedule of client "${label}"`,
        "a pause window (services allowed in the listed hours) cannot be written as a Policy schedule",
      );
    }
  }
  const servers = clientUpstreamGroup(
    ctx,
    `${where}.upstreams`,
    stringList(entry.upstreams),
  );
  if (servers.length > 0) {
    const name = uniqueGroup(upstreams.groups, `client-${groupBase(label)}`);
    upstreams.groups[name] = { servers };
    extra.upstreamGroup = name;
    why.push(`own upstreams (upstreams.groups.${name})`);
  }
  if (entry.ignore_querylog === true) {
    extra.queryLog = false;
    why.push("ignore_querylog");
  }
  for (const key of ["tags", "ignore_statistics", "upstreams_cache_enabled"]) {
    if (
      entry[key] === true ||
      (Array.isArray(entry[key]) && entry[key].length > 0)
    ) {
      ctx.skipped(
        `${where}.${key}`,
        `${key} of client "${label}"`,
        key === "tags"
          ? "client tags only select $ctag rules, which kudurru does not apply"
          : key === "ignore_statistics"
          ? "kudurru's statistics come from the query log; Policy.queryLog: false leaves a client out of both"
          : "kudurru has one answer cache for every client",
      );
    }
  }
  return why.length === 0 ? undefined : { filtering, extra, why };
}

function groupBase(label: string): string {
  const slug = label.toLowerCase().replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "").slice(0, 40).replace(/-+$/, "");
  return slug === "" ? "client" : slug;
}

/** A MAC with separators (a bare hex string may be a ClientID). */
const MAC_RE =
  /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$|^[0-9a-f]{2}(-[0-9a-f]{2}){5}$|^([0-9a-f]{4}\.){2}[0-9a-f]{4}$/i;

/** One id as a ClientGroup client entry. */
export function clientEntry(
  id: string,
): { ip: string } | { cidr: string } | { mac: string } | {
  clientID: string;
} | undefined {
  const text = id.trim();
  if (isIpAddress(text)) return { ip: text };
  if (isCidr(text)) return { cidr: text };
  if (MAC_RE.test(text)) {
    const hex = text.replace(/[^0-9a-f]/gi, "").toLowerCase();
    return { mac: hex.match(/../g)!.join(":") };
  }
  if (CLIENT_ID_RE.test(text)) return { clientID: text };
  return undefined;
}
