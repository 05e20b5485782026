/**
 * AdGuard Home's filtering as kudurru BlockLists and `blocking` settings:
 * `filters` (mode block) and `whitelist_filters` (mode allow) as one
 * BlockList per list with its URL source, `user_rules` as inline adblock
 * text, and `blocking_mode`, `blocking_ipv4/6`, `blocked_response_ttl`
 * and `protection_enabled` as `blocking.*` (docs/blocking.md).
 */
import type { KObject } from "../api/v1alpha1/meta.ts";
import { isIpAddress } from "../dns/ip_text.ts";
import {
  type ImportContext,
  isMap,
  namespaced,
  seconds,
  stringList,
  type YamlMap,
} from "./import_context.ts";

/** The lists made, by how a Policy refers to them. */
export interface FilteringResult {
  objects: KObject[];
  blockListRefs: string[];
  allowListRefs: string[];
  blocking: Record<string, unknown>;
}

/** Largest inline source a BlockList takes (blocklist.ts). */
const MAX_INLINE = 1_000_000;

/**
 * Maps the lists. `filtering` is the merged view of `filtering` and the
 * pre-schema-26 keys under `dns`, with `prefix` saying where each was.
 */
export function mapFiltering(
  ctx: ImportContext,
  config: YamlMap,
  filtering: YamlMap,
  prefixOf: (key: string) => string,
): FilteringResult {
  const result: FilteringResult = {
    objects: [],
    blockListRefs: [],
    allowListRefs: [],
    blocking: {},
  };
  ctx.handle("filters", "whitelist_filters", "user_rules");
  mapLists(ctx, config.filters, "filters", "block", result);
  mapLists(ctx, config.whitelist_filters, "whitelist_filters", "allow", result);
  mapUserRules(ctx, stringList(config.user_rules), result);
  mapBlockingSettings(ctx, filtering, prefixOf, result.blocking);
  return result;
}

function mapLists(
  ctx: ImportContext,
  value: unknown,
  key: string,
  mode: "block" | "allow",
  result: FilteringResult,
): void {
  if (!Array.isArray(value)) return;
  value.forEach((entry: unknown, i) => {
    const where = `${key}[${i}]`;
    if (!isMap(entry) || typeof entry.url !== "string") {
      ctx.skipped(where, "list", "no url");
      return;
    }
    const url = entry.url;
    const label = typeof entry.name === "string" && entry.name !== ""
      ? entry.name
      : url;
    const what = `${mode === "allow" ? "allowlist" : "filter"} "${label}"`;
    if (!/^https?:\/\//i.test(url)) {
      ctx.skipped(
        where,
        `${what} (${url})`,
        "a local file: kudurru reads lists from http(s) URLs or inline text; serve the file or paste its rules as an inline source",
      );
      return;
    }
    const enabled = entry.enabled !== false;
    const name = ctx.uniqueName(
      "BlockList",
      /^adguard/i.test(label) ? label : `adguard-${label}`,
      `adguard-${mode}`,
    );
    result.objects.push(namespaced("BlockList", name, {
      mode,
      sources: [{
        url,
        ...(label !== url && { name: label }),
        ...(!enabled && { enabled: false }),
      }],
    }));
    (mode === "allow" ? result.allowListRefs : result.blockListRefs).push(
      name,
    );
    ctx.mapped(
      where,
      what,
      `BlockList ${name} (mode ${mode}${
        enabled ? "" : ", source disabled as it was"
      })`,
    );
  });
}

/**
 * `user_rules`: AdGuard Home applies a `@@` exception against every list,
 * a kudurru list's exceptions only against that list (docs/blocking.md),
 * so the exceptions become an allow list of their own.
 */
function mapUserRules(
  ctx: ImportContext,
  rules: string[],
  result: FilteringResult,
): void {
  const lines = rules.map((r) => r.trim()).filter((r) => r !== "");
  const isComment = (r: string) => r.startsWith("!") || r.startsWith("#");
  const rulesOnly = lines.filter((r) => !isComment(r));
  if (rulesOnly.length === 0) return;
  const exceptions = lines.filter((r) => r.startsWith("@@"));
  const blocks = lines.filter((r) => !r.startsWith("@@"));
  const add = (mode: "block" | "allow", text: string[], base: string) => {
    if (!text.some((r) => !isComment(r))) return;
    const inline = text.join("\n") + "\n";
    if (inline.length > MAX_INLINE) {
      ctx.skipped(
        "user_rules",
        `${text.length} custom rules`,
        `more than ${MAX_INLINE} characters, the most an inline source holds; put them in a list served over http`,
      );
      return;
    }
    const name = ctx.uniqueName("BlockList", base, base);
    result.objects.push(namespaced("BlockList", name, {
      mode,
      sources: [{
        inline,
        format: "adblock",
        name: "AdGuard Home custom rules",
      }],
    }));
    (mode === "allow" ? result.allowListRefs : result.blockListRefs).push(
      name,
    );
    const count = text.filter((r) => !isComment(r)).length;
    ctx.mapped(
      "user_rules",
      `${count} custom ${mode === "allow" ? "exception" : "blocking"} rule(s)`,
      `BlockList ${name} (mode ${mode}, inline adblock source)${
        mode === "allow"
          ? ": AdGuard Home applies @@ exceptions against every list, so they form an allow list"
          : "; modifiers kudurru does not apply ($client, $dnsrewrite, …) are counted unsupported by the list compiler"
      }`,
    );
  };
  add("block", blocks, "adguard-user-rules");
  add("allow", exceptions, "adguard-user-exceptions");
}

/** AdGuard Home's `blocking_mode` → `blocking.defaultResponse`. */
const RESPONSES: Record<string, string> = {
  default: "zeroIP",
  null_ip: "zeroIP",
  nxdomain: "nxdomain",
  refused: "refused",
  custom_ip: "customIP",
};

function mapBlockingSettings(
  ctx: ImportContext,
  filtering: YamlMap,
  prefixOf: (key: string) => string,
  blocking: Record<string, unknown>,
): void {
  const at = (key: string) => {
    ctx.handle(prefixOf(key));
    return `${prefixOf(key)}`;
  };
  if (filtering.protection_enabled === false) {
    blocking.enabled = false;
    ctx.mapped(
      at("protection_enabled"),
      "protection disabled",
      "blocking.enabled: false",
    );
  } else if (filtering.protection_enabled !== undefined) {
    at("protection_enabled");
  }
  const mode = filtering.blocking_mode;
  const ipv4 = filtering.blocking_ipv4;
  const ipv6 = filtering.blocking_ipv6;
  at("blocking_ipv4");
  at("blocking_ipv6");
  if (typeof mode === "string") {
    const where = at("blocking_mode");
    const response = RESPONSES[mode];
    if (response === undefined) {
      ctx.skipped(where, `blocking mode ${mode}`, "unknown blocking mode");
    } else if (response === "customIP") {
      const ips = [ipv4, ipv6].filter((ip): ip is string =>
        typeof ip === "string" && isIpAddress(ip)
      );
      if (ips.length === 0) {
        ctx.skipped(
          where,
          "blocking mode custom_ip",
          "no valid blocking_ipv4/blocking_ipv6",
        );
      } else {
        blocking.defaultResponse = "customIP";
        blocking.customIPs = ips;
        ctx.mapped(
          where,
          "blocking mode custom_ip",
          `blocking.defaultResponse: customIP, customIPs: ${ips.join(", ")}`,
        );
      }
    } else {
      blocking.defaultResponse = response;
      ctx.mapped(
        where,
        `blocking mode ${mode}`,
        `blocking.defaultResponse: ${response}${
          mode === "default"
            ? " (AdGuard Home's default answers a hosts-style rule with the rule's own address; kudurru answers 0.0.0.0 / ::)"
            : ""
        }`,
      );
    }
  }
  const ttl = filtering.blocked_response_ttl;
  if (typeof ttl === "number" && Number.isInteger(ttl) && ttl >= 0) {
    blocking.blockTTL = seconds(ttl);
    ctx.mapped(
      at("blocked_response_ttl"),
      `blocked response TTL ${ttl}`,
      `blocking.blockTTL: ${seconds(ttl)}`,
    );
  }
}
