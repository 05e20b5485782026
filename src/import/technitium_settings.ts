/**
 * Technitium's DNS settings (the JSON of `GET /api/settings/get`, "Get DNS
 * Settings" in Technitium's API documentation; the meaning of each key is
 * under "Set DNS Settings") as kudurru settings and BlockLists:
 * `forwarders` + `forwarderProtocol` → `upstreams.groups.default`,
 * `blockListUrls` → BlockLists, `blockingType` and friends → `blocking.*`,
 * `blockingBypassList` → a ClientGroup whose Policy names no lists. The
 * lists end up in the default Policy the caller writes. Keys with no
 * counterpart that change answers are reported as skipped; listener,
 * web-service and logging keys are counted in one note.
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
import type { UpstreamSettings } from "./adguard_upstreams.ts";
import { forwarderServer } from "./technitium_forwarders.ts";

/** What the server-wide settings give the default Policy. */
export interface ServerLists {
  blockListRefs: string[];
  allowListRefs: string[];
}

/** The settings object: the API's `response`, or the object itself when saved without the envelope. */
export function settingsOf(json: unknown): YamlMap | undefined {
  const body = isMap(json) && isMap(json.response) ? json.response : json;
  if (!isMap(body)) return undefined;
  const keys = [
    "forwarders",
    "blockListUrls",
    "blockingType",
    "dnsServerDomain",
    "forwarderProtocol",
  ];
  return keys.filter((k) => k in body).length >= 2 ? body : undefined;
}

const RESPONSES: Record<string, string> = {
  AnyAddress: "zeroIP",
  NxDomain: "nxdomain",
  CustomAddress: "customIP",
};

/** Keys that change answers and that kudurru does not take, with why. */
const UNMAPPED: Record<string, string> = {
  recursion:
    "kudurru forwards what it does not serve; it does not resolve recursively, so there are no recursion ACLs",
  dnssecValidation:
    "DNSSEC validation of forwarded answers is per forward zone in kudurru (DNSZone forward.dnssecValidation)",
  qpmPrefixLimitsIPv4:
    "per-prefix query rate limits: set kudurru's rateLimit settings by hand",
  qpmPrefixLimitsIPv6:
    "per-prefix query rate limits: set kudurru's rateLimit settings by hand",
  eDnsClientSubnet:
    "set upstreams.ecs by hand (kudurru strips client subnets by default)",
  serveStale: "set cache.serveStale by hand",
  proxy: "kudurru reaches upstreams directly, never through a proxy",
  allowTxtBlockingReport:
    "kudurru answers blocked TXT queries like the others, with no report",
};

/** Maps the settings; returns the BlockLists and ClientGroups/Policies made. */
export function mapSettings(
  ctx: ImportContext,
  label: string,
  s: YamlMap,
  upstreams: UpstreamSettings,
  blocking: Record<string, unknown>,
  lists: ServerLists,
): KObject[] {
  mapForwarders(ctx, label, s, upstreams);
  mapBlocking(ctx, label, s, blocking);
  const objects = mapBlockListUrls(ctx, label, s, lists);
  objects.push(...mapBypass(ctx, label, s));
  for (const [key, why] of Object.entries(UNMAPPED)) {
    const value = s[key];
    const set = Array.isArray(value)
      ? value.length > 0
      : value !== undefined && value !== null && value !== false;
    if (set && !(key === "recursion" && value === "Deny")) {
      ctx.skipped(`${label} ${key}`, `${key}: ${JSON.stringify(value)}`, why);
    }
  }
  const keys = Array.isArray(s.tsigKeys)
    ? s.tsigKeys.flatMap((k) =>
      isMap(k) && typeof k.keyName === "string" ? [k.keyName] : []
    )
    : [];
  if (keys.length > 0) {
    ctx.skipped(
      `${label} tsigKeys`,
      `TSIG keys ${keys.join(", ")}`,
      'kudurru keeps TSIG keys as files under <dataDir>/keys/tsig/ (docs/design.md "TSIG keys"); the secrets are not copied into the import',
    );
  }
  return objects;
}

function mapForwarders(
  ctx: ImportContext,
  label: string,
  s: YamlMap,
  upstreams: UpstreamSettings,
): void {
  const forwarders = stringList(s.forwarders);
  const protocol = typeof s.forwarderProtocol === "string"
    ? s.forwarderProtocol
    : "Udp";
  if (forwarders.length === 0) {
    ctx.skipped(
      `${label} forwarders`,
      "no forwarders",
      "Technitium resolves recursively without forwarders; kudurru forwards to upstreams.groups.default, which is left as it is",
    );
    return;
  }
  const servers: string[] = [];
  for (const f of forwarders) {
    const result = forwarderServer(f, protocol);
    if ("why" in result) {
      ctx.skipped(
        `${label} forwarders`,
        `forwarder ${f} (${protocol})`,
        result.why,
      );
    } else if (!servers.includes(result.server)) servers.push(result.server);
  }
  if (servers.length === 0) return;
  const strategy = s.concurrentForwarding === true ? "parallel_best" : "strict";
  const timeout =
    typeof s.forwarderTimeout === "number" && s.forwarderTimeout >= 50 &&
      s.forwarderTimeout <= 60_000
      ? `${s.forwarderTimeout}ms`
      : undefined;
  upstreams.groups.default = {
    servers,
    strategy,
    ...(timeout !== undefined && { timeout }),
  };
  ctx.mapped(
    `${label} forwarders`,
    `forwarders ${forwarders.join(", ")} over ${protocol}`,
    `upstreams.groups.default: ${
      servers.join(", ")
    }, strategy ${strategy} (concurrentForwarding ${
      s.concurrentForwarding === true
    })${timeout !== undefined ? `, timeout ${timeout}` : ""}`,
  );
}

function mapBlocking(
  ctx: ImportContext,
  label: string,
  s: YamlMap,
  blocking: Record<string, unknown>,
): void {
  if (s.enableBlocking === false) {
    blocking.enabled = false;
    ctx.mapped(
      `${label} enableBlocking`,
      "blocking off",
      "blocking.enabled: false",
    );
  }
  if (typeof s.blockingType === "string") {
    const where = `${label} blockingType`;
    const response = RESPONSES[s.blockingType];
    const ips = stringList(s.customBlockingAddresses).filter((ip) =>
      isIpAddress(ip)
    );
    if (response === undefined) {
      ctx.skipped(
        where,
        `blockingType ${s.blockingType}`,
        "unknown blocking type",
      );
    } else if (response === "customIP" && ips.length === 0) {
      ctx.skipped(
        where,
        "blockingType CustomAddress",
        "no customBlockingAddresses that are IP addresses",
      );
    } else {
      blocking.defaultResponse = response;
      if (response === "customIP") blocking.customIPs = ips;
      ctx.mapped(
        where,
        `blockingType ${s.blockingType}`,
        `blocking.defaultResponse: ${response}${
          response === "customIP" ? `, customIPs: ${ips.join(", ")}` : ""
        }`,
      );
    }
  }
  const ttl = s.blockingAnswerTtl;
  if (typeof ttl === "number" && Number.isInteger(ttl) && ttl >= 0) {
    blocking.blockTTL = `${ttl}s`;
    ctx.mapped(
      `${label} blockingAnswerTtl`,
      `blocking answer TTL ${ttl}`,
      `blocking.blockTTL: ${ttl}s`,
    );
  }
  const hours = s.blockListUpdateIntervalHours;
  if (typeof hours === "number" && Number.isInteger(hours) && hours > 0) {
    blocking.refreshInterval = `${hours}h`;
    ctx.mapped(
      `${label} blockListUpdateIntervalHours`,
      `block lists updated every ${hours}h`,
      `blocking.refreshInterval: ${hours}h`,
    );
  }
}

/** A list name from its URL: "technitium-" and the host and path, readable. */
export function listName(
  ctx: ImportContext,
  url: string,
  prefix: string,
): string {
  let base = url;
  try {
    const u = new URL(url);
    base = `${u.hostname}${u.pathname}`;
  } catch {
    // Not a URL: the text itself.
  }
  return ctx.uniqueName("BlockList", `${prefix}-${base}`, prefix);
}

function mapBlockListUrls(
  ctx: ImportContext,
  label: string,
  s: YamlMap,
  lists: ServerLists,
): KObject[] {
  const objects: KObject[] = [];
  stringList(s.blockListUrls).forEach((raw, i) => {
    const where = `${label} blockListUrls[${i}]`;
    // A leading "!" makes the URL an allow list (Technitium's settings page).
    const allow = raw.startsWith("!");
    const url = allow ? raw.slice(1).trim() : raw.trim();
    const name = listName(ctx, url, "technitium");
    const mode = allow ? "allow" : "block";
    objects.push(namespaced("BlockList", name, { mode, sources: [{ url }] }));
    (allow ? lists.allowListRefs : lists.blockListRefs).push(name);
    ctx.mapped(
      where,
      `${mode} list ${url}`,
      `BlockList ${name} (mode ${mode}) in Policy default`,
    );
  });
  return objects;
}

/** `blockingBypassList`: clients that skip blocking, a group whose Policy names no lists. */
function mapBypass(ctx: ImportContext, label: string, s: YamlMap): KObject[] {
  const entries = stringList(s.blockingBypassList);
  if (entries.length === 0) return [];
  const clients = entries.flatMap((e): Record<string, string>[] => {
    if (isIpAddress(e)) return [{ ip: e }];
    if (isCidr(e)) return [{ cidr: e }];
    ctx.skipped(
      `${label} blockingBypassList`,
      e,
      "not an IP address or network",
    );
    return [];
  });
  if (clients.length === 0) return [];
  const name = ctx.uniqueName(
    "ClientGroup",
    "technitium-blocking-bypass",
    "bypass",
  );
  const policy = ctx.uniqueName(
    "Policy",
    "technitium-blocking-bypass",
    "bypass",
  );
  ctx.mapped(
    `${label} blockingBypassList`,
    `blocking bypass ${entries.join(", ")}`,
    `ClientGroup ${name} with Policy ${policy} (no lists, priority 1000, over the default Policy)`,
  );
  return [
    namespaced("ClientGroup", name, { clients }),
    namespaced("Policy", policy, { clientGroupRefs: [name], priority: 1000 }),
  ];
}
