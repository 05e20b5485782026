/**
 * blocky's `upstreams` (and the older top-level `upstream`), `conditional`
 * and `bootstrapDns` → kudurru's `upstreams.groups`, `upstreams.conditional`
 * and `upstreams.bootstrap` settings (docs/configuration.md#upstreams).
 * blocky writes a resolver as `[net:]host[:port][/path][#commonname]`
 * (blocky's configuration.md, "Upstreams"); kudurru takes plain, tcp://,
 * tls:// and https:// (src/config/upstream_server.ts), so `tcp-tls:`
 * becomes tls:// and DoQ and DNS stamps are reported, not guessed at.
 */
import {
  isIpAddress,
  parseBootstrapServer,
  parseUpstreamServer,
} from "../config/upstream_server.ts";
import {
  asList,
  blockyDurationMs,
  type BlockyImport,
  isMap,
  kudurruDuration,
  show,
  type YamlMap,
} from "./blocky_context.ts";

/** blocky's strategies kudurru has under the same name. */
const STRATEGIES = new Set(["parallel_best", "strict", "random"]);

/** A blocky resolver string as a kudurru server string, or why it is not one. */
export function convertUpstream(
  text: string,
): { server: string } | { skip: string } {
  const raw = text.trim();
  if (/^sdns:\/\//i.test(raw)) {
    return {
      skip:
        "DNS stamps (sdns://) are not taken by kudurru; write the server as tls://, https:// or an address",
    };
  }
  const m = /^(tcp\+udp|udp|tcp-tls|tcp|https|quic):(\/\/)?(.*)$/i.exec(raw);
  const net = m ? m[1]!.toLowerCase() : "tcp+udp";
  const rest = m ? m[3]! : raw;
  if (net === "quic") {
    return {
      skip:
        "DNS over QUIC upstreams are not supported by kudurru in this version",
    };
  }
  let server: string;
  if (net === "https") server = `https://${rest}`;
  else {
    const [hostPort, commonName] = rest.split("#", 2) as [string, string?];
    if (hostPort.includes("/")) {
      return { skip: `a path is only meaningful for https, not ${net}` };
    }
    if (net === "tcp-tls") {
      server = `tls://${hostPort}${commonName ? `#${commonName}` : ""}`;
    } else {
      if (commonName) {
        return { skip: `#${commonName} is only meaningful for tcp-tls` };
      }
      // A bare IPv6 address with a port would be ambiguous: blocky brackets it.
      server = net === "tcp" ? `tcp://${hostPort}` : hostPort;
    }
  }
  try {
    parseUpstreamServer(server);
  } catch (e) {
    return { skip: (e as Error).message };
  }
  return { server };
}

/** Converts a list of resolvers, reporting each; the servers kudurru takes. */
function convertServers(
  imp: BlockyImport,
  where: string,
  values: unknown[],
): string[] {
  const servers: string[] = [];
  values.forEach((value, i) => {
    const at = `${where}[${i}]`;
    if (typeof value !== "string") {
      imp.skipped(at, show(value), "not a resolver string");
      return;
    }
    const converted = convertUpstream(value);
    if ("skip" in converted) imp.skipped(at, value, converted.skip);
    else {
      servers.push(converted.server);
      imp.mapped(at, value, `upstream server "${converted.server}"`);
    }
  });
  return servers;
}

/**
 * `upstreams.groups` (or the older `upstream` map): `default` and groups
 * named by a client key; records each client group's upstream group for
 * its Policy (blocky_blocking.ts).
 */
export function importUpstreams(imp: BlockyImport, doc: YamlMap): void {
  const section = isMap(doc.upstreams) ? doc.upstreams : {};
  const legacy = isMap(doc.upstream) ? doc.upstream : undefined;
  const groups = isMap(section.groups) ? section.groups : legacy ?? {};
  const base = legacy && !isMap(section.groups)
    ? "upstream"
    : "upstreams.groups";
  const common: Record<string, unknown> = {};
  if (section.strategy !== undefined) {
    if (STRATEGIES.has(String(section.strategy))) {
      common.strategy = String(section.strategy);
      imp.mapped(
        "upstreams.strategy",
        String(section.strategy),
        "strategy of every upstream group",
      );
    } else {
      imp.skipped(
        "upstreams.strategy",
        show(section.strategy),
        "not a strategy kudurru has (parallel_best, strict, random)",
      );
    }
  }
  const timeout = section.timeout ?? doc.upstreamTimeout;
  if (timeout !== undefined) {
    const ms = blockyDurationMs(timeout);
    const where = section.timeout !== undefined
      ? "upstreams.timeout"
      : "upstreamTimeout";
    if (ms !== undefined && ms > 0) {
      common.timeout = kudurruDuration(ms);
      imp.mapped(where, show(timeout), "timeout of every upstream group");
    } else imp.skipped(where, show(timeout), "not a positive duration");
  }
  for (const [key, value] of Object.entries(groups)) {
    const where = `${base}.${key}`;
    const servers = convertServers(imp, where, asList(value));
    if (servers.length === 0) {
      imp.skipped(where, key, "no upstream server kudurru can use is left");
      continue;
    }
    const name = key === "default"
      ? "default"
      : imp.uniqueName("upstreamGroup", key, { label: true });
    const u = imp.upstreams();
    (u.groups ??= {})[name] = { servers, ...common };
    if (key !== "default") imp.clientUpstreams.set(key, name);
    imp.mapped(
      where,
      key,
      key === "default"
        ? "upstreams.groups.default"
        : `upstreams.groups.${name}, used by the Policy of the clients "${key}"`,
    );
  }
  for (const key of ["init", "quic", "userAgent"]) {
    if (section[key] === undefined) continue;
    imp.skipped(
      `upstreams.${key}`,
      show(section[key]),
      key === "init"
        ? "kudurru checks upstreams as it uses them; it has no startup strategy for them"
        : key === "quic"
        ? "kudurru has no DNS over QUIC upstreams in this version"
        : "kudurru sends no User-Agent setting of its own for DoH upstreams",
    );
  }
  for (const key of Object.keys(section)) {
    if (
      ["groups", "strategy", "timeout", "init", "quic", "userAgent"].includes(
        key,
      )
    ) {
      continue;
    }
    imp.skipped(`upstreams.${key}`, show(section[key]), "unknown key");
  }
}

/**
 * `conditional.mapping`: one upstream group per distinct resolver set
 * (comma-separated resolvers form one group), each domain a conditional
 * entry. The key "." (unqualified names) has no counterpart: a kudurru
 * entry covers its domain and every name below, so "." would take every
 * query.
 */
export function importConditional(imp: BlockyImport, doc: YamlMap): void {
  const section = doc.conditional;
  if (!isMap(section)) return;
  const mapping = isMap(section.mapping) ? section.mapping : {};
  const bySet = new Map<string, string>();
  for (const [domain, value] of Object.entries(mapping)) {
    const where = `conditional.mapping.${domain}`;
    if (domain.trim() === ".") {
      imp.skipped(
        where,
        show(value),
        'blocky\'s "." (names without a dot) has no counterpart: a conditional entry covers a domain and every name below it, so "." would take every query; add a conditional entry for your local domain instead',
      );
      continue;
    }
    const resolvers = String(value ?? "").split(",").map((s) => s.trim())
      .filter((s) => s !== "");
    const servers = convertServers(imp, where, resolvers);
    if (servers.length === 0) {
      imp.skipped(where, domain, "no upstream server kudurru can use is left");
      continue;
    }
    const setKey = servers.join(",");
    let group = bySet.get(setKey);
    if (group === undefined) {
      group = imp.uniqueName("upstreamGroup", domain, { label: true });
      bySet.set(setKey, group);
      (imp.upstreams().groups ??= {})[group] = { servers, strategy: "strict" };
    }
    const fqdn = domain.endsWith(".") ? domain : `${domain}.`;
    (imp.upstreams().conditional ??= {})[fqdn] = group;
    const reverse = /\.(in-addr|ip6)\.arpa\.$/i.test(fqdn)
      ? " (a reverse zone)"
      : "";
    imp.mapped(
      where,
      `${domain}: ${show(value)}`,
      `upstreams.conditional "${fqdn}"${reverse} → upstream group ${group}`,
    );
  }
  const reasons: Record<string, string> = {
    rewrite:
      "kudurru does not rewrite query names; add a conditional entry for the rewritten domain",
    fallbackUpstream:
      "kudurru answers a conditional domain from its group alone, with no fallback to the default group",
  };
  for (const key of Object.keys(section)) {
    if (key === "mapping") continue;
    imp.skipped(
      `conditional.${key}`,
      show(section[key]),
      reasons[key] ?? "unknown key",
    );
  }
}

/**
 * `bootstrapDns`: kudurru's bootstrap servers are plain addresses
 * (upstream_server.ts parseBootstrapServer); encrypted ones are reported.
 */
export function importBootstrap(imp: BlockyImport, doc: YamlMap): void {
  const entries = asList(doc.bootstrapDns);
  const servers: string[] = [];
  entries.forEach((entry, i) => {
    const where = `bootstrapDns[${i}]`;
    if (isMap(entry)) {
      imp.skipped(
        where,
        show(entry),
        "kudurru's bootstrap servers are plain DNS addresses; an encrypted bootstrap upstream with fixed IPs has no counterpart",
      );
      return;
    }
    const converted = typeof entry === "string"
      ? convertUpstream(entry)
      : { skip: "not a resolver string" };
    if ("skip" in converted) {
      imp.skipped(where, show(entry), converted.skip);
      return;
    }
    try {
      const parsed = parseBootstrapServer(converted.server);
      if (!isIpAddress(parsed.host)) throw new Error("not an address");
      servers.push(converted.server);
      imp.mapped(
        where,
        String(entry),
        `upstreams.bootstrap "${converted.server}"`,
      );
    } catch {
      imp.skipped(
        where,
        String(entry),
        "kudurru's bootstrap servers must be plain DNS IP addresses (such as 1.1.1.1:53)",
      );
    }
  });
  if (servers.length > 0) imp.upstreams().bootstrap = servers;
}
