/**
 * `kudurru import blocky PATH`: blocky's config.yml (v0.23 and later, and
 * the older key names blocky still accepts) → kudurru objects and
 * settings, with every key accounted for in the report. The sections are
 * read by blocky_upstreams.ts, blocky_custom_dns.ts, blocky_blocking.ts and
 * blocky_caching.ts; this file reads the file, tells a blocky config from
 * other YAML, and reports the top-level keys kudurru has no place for.
 */
import YAML from "yaml";
import { validateObject } from "../api/v1alpha1/validate.ts";
import { importBlocking } from "./blocky_blocking.ts";
import { importCaching } from "./blocky_caching.ts";
import {
  asList,
  BlockyImport,
  isMap,
  show,
  type YamlMap,
} from "./blocky_context.ts";
import { importCustomDns } from "./blocky_custom_dns.ts";
import {
  importBootstrap,
  importConditional,
  importUpstreams,
} from "./blocky_upstreams.ts";
import {
  ImportError,
  type ImportResult,
  type ReadFile,
} from "./import_result.ts";

/** Keys read by the section importers. */
const MAPPED_KEYS = new Set([
  "upstreams",
  "upstream",
  "upstreamTimeout",
  "conditional",
  "bootstrapDns",
  "customDNS",
  "blocking",
  "caching",
  "clientLookup",
]);

/** blocky's other top-level keys (config.schema.json), and why each stays behind. */
const SKIP_REASONS: Record<string, string> = {
  connectIPVersion:
    "kudurru has no setting that limits outgoing connections to one address family",
  queryLog:
    "kudurru keeps its own query log (querylog settings); blocky's log targets are not carried over",
  prometheus: "kudurru always serves metrics on listeners.metrics",
  statistics: "kudurru's statistics come from its query log (kudurru stats)",
  redis:
    "kudurru nodes share state through their cluster, not Redis (cluster settings)",
  log:
    "kudurru's logging is set by flags and environment (docs/configuration.md, Logging)",
  ports: "listeners are set in kudurru.yaml (listeners.dns, dot, doh)",
  minTlsServeVersion:
    "kudurru has no setting for the lowest TLS version its listeners take",
  certFile:
    "certificates are set per listener in kudurru.yaml (listeners.dot, doh)",
  keyFile:
    "certificates are set per listener in kudurru.yaml (listeners.dot, doh)",
  hostsFile:
    "hosts files are not imported; add their names as DNSRecordSets or an inline zone",
  fqdnOnly: "kudurru has no setting that refuses names without a dot",
  filtering: "kudurru does not drop queries by type; a Policy blocks by name",
  ede: "kudurru always adds Extended DNS Errors to blocked answers",
  ecs:
    "see upstreams.ecs in kudurru.yaml (strip, forward or add); not carried over",
  specialUseDomains: "kudurru answers the special-use names of RFC 6761 itself",
  dns64: "kudurru has no DNS64 synthesis in this version",
  dnssec:
    "DNSSEC validation is set per forward zone (DNSZone forward.dnssecValidation)",
  http3: "kudurru has no DNS over HTTP/3 listener in this version",
  rateLimit:
    "kudurru's rate limit (ratelimit in kudurru.yaml) counts per prefix; blocky's buckets are not carried over",
  rebindingProtection:
    "kudurru has no DNS rebinding protection in this version",
  disableIPv6: "kudurru does not drop AAAA queries; a Policy blocks by name",
  logLevel: "kudurru's logging is set by flags and environment",
  logFormat: "kudurru's logging is set by flags and environment",
  logPrivacy: "kudurru's logging is set by flags and environment",
  logTimestamp: "kudurru's logging is set by flags and environment",
  port: "listeners are set in kudurru.yaml (listeners.dns)",
  httpPort: "listeners are set in kudurru.yaml (listeners.api, metrics)",
  httpsPort: "listeners are set in kudurru.yaml (listeners.doh)",
  tlsPort: "listeners are set in kudurru.yaml (listeners.dot)",
  startVerifyUpstream:
    "kudurru checks upstreams as it uses them; it has no startup check",
  dohUserAgent:
    "kudurru sends no User-Agent setting of its own for DoH upstreams",
};

/** Keys no blocky config lacks all of: one of them makes the file blocky's. */
const BLOCKY_MARKERS = [
  "upstreams",
  "upstream",
  "customDNS",
  "conditional",
  "blocking",
  "caching",
  "bootstrapDns",
  "clientLookup",
];

/**
 * Reads a blocky config.yml.
 *
 * @throws {ImportError} when the file is not YAML, or is YAML of another
 *   tool (AdGuard Home, kudurru or Kubernetes objects, …)
 */
export async function importBlocky(
  path: string,
  readFile: ReadFile = Deno.readFile,
): Promise<ImportResult> {
  const doc = parseBlockyYaml(path, await readFile(path));
  const imp = new BlockyImport();
  importUpstreams(imp, doc);
  importConditional(imp, doc);
  importBootstrap(imp, doc);
  importClientLookup(imp, doc);
  importCustomDns(imp, doc);
  importBlocking(imp, doc);
  importCaching(imp, doc);
  for (const key of Object.keys(doc)) {
    if (MAPPED_KEYS.has(key) || key === "upstreamTimeout") continue;
    imp.skipped(key, show(doc[key]), SKIP_REASONS[key] ?? "not a blocky key");
  }
  for (const object of imp.objects) {
    const result = validateObject(object);
    if (!result.ok) {
      // A bug here, not in the input: every field above is checked first.
      throw new Error(
        `Imported ${object.kind} ${object.metadata.name} is invalid: ${
          result.issues.map((i) => `${i.path} ${i.message}`).join("; ")
        }`,
      );
    }
  }
  return {
    objects: imp.objects,
    settings: imp.settings,
    report: imp.report,
  };
}

/** The file as a YAML mapping that is blocky's, or an ImportError saying what it is. */
function parseBlockyYaml(path: string, bytes: Uint8Array): YamlMap {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ImportError(
      `${path} is not a UTF-8 text file, so not a blocky config.yml`,
    );
  }
  let doc: unknown;
  try {
    doc = YAML.parse(text, { maxAliasCount: 100 });
  } catch (e) {
    // Only the parser's own errors say the text is not YAML.
    if (!(e instanceof YAML.YAMLError)) throw e;
    const why = e.message.split("\n")[0];
    throw new ImportError(
      `${path} is not valid YAML, so not a blocky config.yml: ${why}`,
    );
  }
  if (!isMap(doc)) {
    throw new ImportError(
      `${path} is not a blocky config.yml: it is ${
        doc === null || doc === undefined
          ? "empty"
          : `a YAML ${Array.isArray(doc) ? "list" : "scalar"}`
      }, not a mapping of settings`,
    );
  }
  const other = otherTool(doc);
  if (other !== undefined) {
    throw new ImportError(
      `${path} is not a blocky config.yml: it looks like ${other}`,
    );
  }
  if (!BLOCKY_MARKERS.some((key) => key in doc)) {
    throw new ImportError(
      `${path} is not a blocky config.yml: it has none of blocky's keys (${
        BLOCKY_MARKERS.join(", ")
      })`,
    );
  }
  return doc;
}

/** What another tool's YAML is, by the keys only it writes. */
function otherTool(doc: YamlMap): string | undefined {
  if ("schema_version" in doc || ("dns" in doc && "filters" in doc)) {
    return "an AdGuard Home configuration (AdGuardHome.yaml); use `kudurru import adguard`";
  }
  if ("apiVersion" in doc && "kind" in doc) {
    return "Kubernetes or kudurru objects; use `kudurru apply -f`";
  }
  if ("listeners" in doc || "objectsDir" in doc) {
    return "a kudurru.yaml";
  }
  return undefined;
}

/**
 * `clientLookup.clients` names addresses: they join the ClientGroups
 * whose name glob matches (blocky_blocking.ts). The rest is reported.
 */
function importClientLookup(imp: BlockyImport, doc: YamlMap): void {
  const section = doc.clientLookup;
  if (!isMap(section)) return;
  if (isMap(section.clients)) {
    for (const [name, ips] of Object.entries(section.clients)) {
      const list = asList(ips).map(String);
      imp.namedClients.set(name, list);
      imp.mapped(
        `clientLookup.clients.${name}`,
        list.join(", "),
        "addresses (with this name) in the ClientGroups whose name glob matches it",
      );
    }
  }
  const reasons: Record<string, string> = {
    upstream:
      "kudurru looks client names up through itself (local reverse zones and upstreams.conditional apply); add a conditional entry for your reverse zone",
    singleNameOrder:
      "kudurru matches a ClientGroup hostname glob against every PTR name",
  };
  for (const key of Object.keys(section)) {
    if (key === "clients") continue;
    imp.skipped(
      `clientLookup.${key}`,
      show(section[key]),
      reasons[key] ?? "unknown key",
    );
  }
}
