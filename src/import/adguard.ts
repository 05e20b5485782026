/**
 * `kudurru import adguard PATH`: an AdGuard Home configuration
 * (`AdGuardHome.yaml`, schema versions 20 to 34, with the keys older
 * schemas kept under `dns` read where they were) as kudurru objects and
 * settings. The parts live beside this file: upstreams, filtering (lists
 * and `blocking`), rewrites (zones and records), clients (groups and
 * policies), cache, and the report of what was skipped. Key meanings are
 * those of AdGuard Home's "Configuration" and "Clients" wiki pages.
 */
import { dirname, isAbsolute, join } from "node:path";
import YAML, { YAMLError } from "yaml";
import type { KObject } from "../api/v1alpha1/meta.ts";
import {
  ImportError,
  type ImportResult,
  type ReadFile,
} from "./import_result.ts";
import {
  ImportContext,
  isMap,
  stringList,
  validOnly,
  type YamlMap,
} from "./import_context.ts";
import { mapUpstreams } from "./adguard_upstreams.ts";
import { mapCache } from "./adguard_cache.ts";
import { mapFiltering } from "./adguard_filtering.ts";
import { mapRewrites } from "./adguard_rewrites.ts";
import {
  blockedServiceIds,
  mapClients,
  safeSearchOf,
} from "./adguard_clients.ts";
import { reportLeftovers } from "./adguard_skipped.ts";

/** The newest schema this importer was written against (AdGuard Home's LastSchemaVersion). */
export const LATEST_SCHEMA = 34;
/** The oldest it reads as such; older files are read as best it can. */
export const OLDEST_SCHEMA = 20;

/**
 * Keys that moved from `dns` to `filtering` in schema 26; a file of an
 * older schema has them under `dns`.
 */
const MOVED_TO_FILTERING = [
  "rewrites",
  "blocked_services",
  "safe_search",
  "safesearch_enabled",
  "protection_enabled",
  "filtering_enabled",
  "parental_enabled",
  "safebrowsing_enabled",
  "blocking_mode",
  "blocking_ipv4",
  "blocking_ipv6",
  "blocked_response_ttl",
  "parental_block_host",
  "safebrowsing_block_host",
  "parental_sensitivity",
  "safebrowsing_cache_size",
  "safesearch_cache_size",
  "parental_cache_size",
  "cache_time",
  "filters_update_interval",
  "protection_disabled_until",
];

/**
 * Reads an `AdGuardHome.yaml` and maps it.
 *
 * @throws {ImportError} when the file cannot be read, is not YAML, or is
 *   not an AdGuard Home configuration (the message says what it looks like)
 */
export async function importAdguard(
  path: string,
  readFile: ReadFile = Deno.readFile,
): Promise<ImportResult> {
  const config = parseConfig(path, await read(readFile, path));
  const ctx = new ImportContext();
  noteSchema(ctx, path, config);

  const dns = isMap(config.dns) ? config.dns : {};
  const filteringSection = isMap(config.filtering) ? config.filtering : {};
  const filtering: YamlMap = {};
  for (const key of MOVED_TO_FILTERING) {
    if (key in dns) filtering[key] = dns[key];
  }
  Object.assign(filtering, filteringSection);
  const prefixOf = (key: string) =>
    key in filteringSection ? `filtering.${key}` : `dns.${key}`;

  const settings: Record<string, unknown> = {};
  const upstreams = mapUpstreams(
    ctx,
    dns,
    await upstreamLines(ctx, path, dns, readFile),
  ) ?? { groups: {}, conditional: {} };
  const cache = mapCache(ctx, dns);

  const lists = mapFiltering(ctx, config, filtering, prefixOf);
  const objects: KObject[] = [...lists.objects];
  objects.push(...mapRewrites(ctx, filtering.rewrites, prefixOf("rewrites")));

  ctx.handle(
    prefixOf("filtering_enabled"),
    prefixOf("blocked_services"),
    prefixOf("safe_search"),
    prefixOf("safesearch_enabled"),
  );
  const filteringEnabled = filtering.filtering_enabled !== false;
  if (!filteringEnabled) {
    ctx.mapped(
      prefixOf("filtering_enabled"),
      "filtering disabled",
      "Policy default names no lists",
    );
  }
  const blockedServices = blockedServiceIds(filtering.blocked_services);
  if (blockedServices.length > 0) {
    ctx.mapped(
      `${prefixOf("blocked_services")}.ids`,
      `blocked services ${blockedServices.join(", ")}`,
      "Policy default blockedServices (accepted, not applied by this version of kudurru)",
    );
  }
  noteServiceSchedule(ctx, prefixOf("blocked_services"), filtering);
  objects.push(...mapClients(ctx, config.clients, {
    filteringEnabled,
    blockListRefs: lists.blockListRefs,
    allowListRefs: lists.allowListRefs,
    blockedServices,
    safeSearch: safeSearchOf(
      filtering.safe_search,
      filtering.safesearch_enabled,
    ),
  }, upstreams));

  if (
    Object.keys(upstreams.groups).length > 0 ||
    upstreams.bootstrap !== undefined
  ) {
    settings.upstreams = {
      ...(Object.keys(upstreams.groups).length > 0 &&
        { groups: upstreams.groups }),
      ...(Object.keys(upstreams.conditional).length > 0 &&
        { conditional: upstreams.conditional }),
      ...(upstreams.bootstrap !== undefined &&
        { bootstrap: upstreams.bootstrap }),
    };
  }
  if (Object.keys(lists.blocking).length > 0) {
    settings.blocking = lists.blocking;
  }
  if (cache !== undefined) settings.cache = cache;

  reportLeftovers(ctx, config);
  return { objects: validOnly(ctx, objects), settings, report: ctx.report };
}

async function read(readFile: ReadFile, path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new ImportError(
      `Cannot read ${path}: ${
        error instanceof Error ? error.message : String(error)
      }`,
      { cause: error },
    );
  }
}

/** The YAML as a mapping that is an AdGuard Home configuration. */
function parseConfig(path: string, bytes: Uint8Array): YamlMap {
  let config: unknown;
  try {
    config = YAML.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    // Anything else (a permission the parser needs) is no fault of the file.
    if (!(error instanceof YAMLError)) throw error;
    const why = error.message.split("\n")[0];
    throw new ImportError(
      `${path} is not valid YAML, so not an AdGuard Home configuration (AdGuardHome.yaml): ${why}`,
      { cause: error },
    );
  }
  const problem = notAdguard(config);
  if (problem !== undefined) {
    throw new ImportError(
      `${path} is not an AdGuard Home configuration (AdGuardHome.yaml): ${problem}`,
    );
  }
  return config as YamlMap;
}

/** Why the parsed YAML is not an AdGuard Home configuration, or undefined. */
function notAdguard(config: unknown): string | undefined {
  if (!isMap(config)) {
    return `its YAML is ${
      Array.isArray(config) ? "a list" : config === null ? "empty" : "a scalar"
    }, not a mapping of settings`;
  }
  const dns = config.dns;
  const dnsKeys = isMap(dns) &&
    ["upstream_dns", "bind_hosts", "bind_host", "bootstrap_dns"].some((k) =>
      k in dns
    );
  if (dnsKeys) return undefined;
  if (typeof config.schema_version === "number" && isMap(dns)) return undefined;
  const has = (...keys: string[]) => keys.filter((k) => k in config);
  const blocky = has(
    "upstreams",
    "upstream",
    "blocking",
    "customDNS",
    "conditional",
    "caching",
    "ports",
    "bootstrapDns",
  );
  if (blocky.length >= 2 && !("dns" in config)) {
    return `it looks like a blocky config.yml (keys ${
      blocky.join(", ")
    }); use \`kudurru import blocky\``;
  }
  if (has("listeners", "node", "objectsDir").length > 0) {
    return "it looks like a kudurru.yaml (keys listeners, node, objectsDir)";
  }
  if ("apiVersion" in config && "kind" in config) {
    return `it is a ${String(config.kind)} object (apiVersion ${
      String(config.apiVersion)
    }); apply it with \`kudurru apply -f\``;
  }
  return "it has no `dns` section with `upstream_dns` or `bind_hosts` and no `schema_version`";
}

function noteSchema(ctx: ImportContext, path: string, config: YamlMap): void {
  ctx.handle("schema_version");
  const version = config.schema_version;
  if (typeof version !== "number") {
    ctx.mapped(
      "schema_version",
      "no schema_version",
      `${path} has no schema_version (a file of AdGuard Home before v0.99); read with the oldest key names known`,
    );
    return;
  }
  if (version > LATEST_SCHEMA) {
    ctx.skipped(
      "schema_version",
      `schema_version ${version}`,
      `newer than ${LATEST_SCHEMA}, the latest this importer knows: keys it does not know are reported below as skipped`,
    );
    return;
  }
  ctx.mapped(
    "schema_version",
    `schema_version ${version}`,
    version < OLDEST_SCHEMA
      ? `AdGuard Home configuration schema ${version}, older than ${OLDEST_SCHEMA}: read as best this importer can; open and save it in a current AdGuard Home first for a complete import`
      : `AdGuard Home configuration schema ${version}${
        version < 26
          ? " (filtering keys read from dns, where they were before schema 26)"
          : ""
      }`,
  );
}

/** The upstream lines: from `upstream_dns_file` when set (it replaces `upstream_dns`). */
async function upstreamLines(
  ctx: ImportContext,
  path: string,
  dns: YamlMap,
  readFile: ReadFile,
): Promise<{ where: string; lines: string[] }> {
  const fromConfig = {
    where: "dns.upstream_dns",
    lines: stringList(dns.upstream_dns),
  };
  const file = dns.upstream_dns_file;
  if (typeof file !== "string" || file === "") return fromConfig;
  const resolved = isAbsolute(file) ? file : join(dirname(path), file);
  try {
    const text = new TextDecoder().decode(await readFile(resolved));
    ctx.mapped(
      "dns.upstream_dns_file",
      `upstreams file ${file}`,
      "read in place of upstream_dns, as AdGuard Home does",
    );
    return {
      where: `upstream_dns_file ${file} line`,
      lines: text.split(/\r?\n/),
    };
  } catch (error) {
    ctx.skipped(
      "dns.upstream_dns_file",
      `upstreams file ${file}`,
      `cannot read ${resolved} (${
        error instanceof Error ? error.message : String(error)
      }); upstream_dns imported instead`,
    );
    return fromConfig;
  }
}

/**
 * The blocked services' `schedule` is a pause: the services are allowed in
 * the listed hours. A Policy schedule says when a policy applies, so a
 * pause over some days is not expressible as one.
 */
function noteServiceSchedule(
  ctx: ImportContext,
  where: string,
  filtering: YamlMap,
): void {
  const services = filtering.blocked_services;
  if (!isMap(services) || !isMap(services.schedule)) return;
  const days = Object.keys(services.schedule).filter((k) => k !== "time_zone");
  if (days.length === 0) return;
  ctx.skipped(
    `${where}.schedule`,
    `blocked services pause on ${days.join(", ")}`,
    "a pause window (services allowed in the listed hours) cannot be written as a Policy schedule",
  );
}
