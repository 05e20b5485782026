/**
 * Why the AdGuard Home keys the importer does not map are skipped, by key
 * path; and the report of every key left over after the mapping, so that
 * nothing in the file is dropped in silence. Keys whose value is empty
 * ("", [], {}, null) configure nothing and are not reported.
 */
import {
  hasValue,
  type ImportContext,
  isMap,
  type YamlMap,
} from "./import_context.ts";

const NODE = "a node setting: give it in kudurru.yaml `listeners`";

/** Whole top-level sections, skipped with one note each. */
const SECTIONS: Record<string, string> = {
  http: "the web interface: kudurru's is `listeners.api` in kudurru.yaml",
  users:
    "web interface users: bcrypt password hashes cannot become kudurru's Argon2id ones; create users with `kudurru user`",
  auth_attempts: "web interface login throttling has no counterpart",
  block_auth_min: "web interface login throttling has no counterpart",
  http_proxy:
    "kudurru fetches lists directly (or through the environment's proxy)",
  language: "web interface language",
  theme: "web interface theme",
  debug_pprof: "Go profiling",
  web_session_ttl: "web interface sessions",
  tls:
    "encryption settings (certificates, DoT/DoH/DoQ ports): configure kudurru's `listeners` (dot, doh) in kudurru.yaml",
  dhcp: "kudurru has no DHCP server",
  querylog: "query log retention: see kudurru.yaml `querylog`",
  statistics: "statistics retention: kudurru's come from the query log",
  log: "AdGuard Home's own log: kudurru logs to stderr (`log` in kudurru.yaml)",
  verbose: "AdGuard Home's own log level",
  os: "process user, group and limits of AdGuard Home",
  clients: "",
  schema_version: "",
};

/** Keys under `dns` and `filtering` (same name in both before schema 26). */
const KEYS: Record<string, string> = {
  bind_hosts: NODE,
  bind_host: NODE,
  port: NODE,
  anonymize_client_ip: "query log anonymisation has no counterpart",
  ratelimit:
    "per-client rate limit: set kudurru.yaml `ratelimit` (its units differ)",
  ratelimit_subnet_len_ipv4: "see ratelimit",
  ratelimit_subnet_len_ipv6: "see ratelimit",
  ratelimit_whitelist: "see ratelimit",
  refuse_any:
    "no counterpart: kudurru answers ANY with a minimal answer (RFC 8482)",
  fallback_dns:
    "fallback servers have no counterpart: add them to the default group",
  fastest_timeout:
    "only for upstream mode fastest_addr, which has no counterpart",
  allowed_clients:
    "access lists of the whole server have no counterpart in this version (a zone's queryACL covers local zones only)",
  disallowed_clients: "see allowed_clients",
  blocked_hosts:
    "names refused outright: kudurru answers version.bind and id.server itself (CHAOS)",
  trusted_proxies: "trusted DoH proxies: see kudurru.yaml `listeners`",
  bogus_nxdomain: "no counterpart",
  aaaa_disabled: "no counterpart",
  enable_dnssec:
    "kudurru does not request DNSSEC records for clients that did not",
  edns_client_subnet: "EDNS Client Subnet: set kudurru.yaml `upstreams.ecs`",
  max_goroutines: "AdGuard Home's worker limit: see `upstreams.maxInFlight`",
  handle_ddr: "Discovery of Designated Resolvers has no counterpart",
  ipset: "ipsets have no counterpart",
  ipset_file: "ipsets have no counterpart",
  bootstrap_prefer_ipv6: "no counterpart",
  use_private_ptr_resolvers:
    "private PTR queries follow upstreams.conditional (local_ptr_upstreams are imported there)",
  use_dns64: "DNS64 has no counterpart in this version",
  dns64_prefixes: "DNS64 has no counterpart in this version",
  serve_http3: "DNS-over-HTTP/3 listeners have no counterpart",
  use_http3_upstreams: "kudurru's DoH client speaks HTTP/2",
  serve_plain_dns: NODE,
  hostsfile_enabled:
    "the system hosts file is not read: import its names as records",
  parental_sensitivity: "AdGuard's cloud parental control has no counterpart",
  parental_enabled: "AdGuard's cloud parental control has no counterpart",
  parental_block_host: "AdGuard's cloud parental control has no counterpart",
  parental_cache_size: "AdGuard's cloud parental control has no counterpart",
  safebrowsing_enabled: "AdGuard's cloud safe browsing has no counterpart",
  safebrowsing_block_host: "AdGuard's cloud safe browsing has no counterpart",
  safebrowsing_cache_size: "AdGuard's cloud safe browsing has no counterpart",
  safesearch_cache_size: "no counterpart",
  safe_fs_patterns: "local filter file paths AdGuard Home may read",
  cache_time: "the cloud services' cache has no counterpart",
  filters_update_interval:
    "set kudurru.yaml `blocking.refreshInterval` (AdGuard Home counts hours)",
  protection_disabled_until:
    "a pause in progress: use `kudurru blocking disable`",
  rewrites_enabled: "",
  statistics_interval: "statistics retention",
  querylog_enabled: "see querylog",
  querylog_file_enabled: "see querylog",
  querylog_interval: "see querylog",
  querylog_size_memory: "see querylog",
  upstream_dns_file: "",
};

/** Reports every key not mapped yet, with its reason. */
export function reportLeftovers(ctx: ImportContext, config: YamlMap): void {
  for (const [key, value] of Object.entries(config)) {
    if (ctx.handled.has(key)) continue;
    if (key === "dns" || key === "filtering") {
      if (isMap(value)) reportKeys(ctx, key, value);
      continue;
    }
    if (!hasValue(value)) continue;
    const reason = SECTIONS[key];
    ctx.skipped(
      key,
      key,
      reason || "not an AdGuard Home key this importer knows",
    );
  }
}

function reportKeys(ctx: ImportContext, section: string, map: YamlMap): void {
  for (const [key, value] of Object.entries(map)) {
    const path = `${section}.${key}`;
    if (ctx.handled.has(path) || !hasValue(value)) continue;
    const reason = KEYS[key];
    ctx.skipped(
      path,
      key,
      reason || "not an AdGuard Home key this importer knows",
    );
  }
}
