/**
 * The edge topology: what dnsdist in front of kudurru nodes is told to do,
 * as plain data (no Lua, no I/O). The Lua renderer for dnsdist 1.7
 * (dnsdist_lua.ts) reads it; a YAML renderer for dnsdist 2 can read the same.
 *
 * Both pools hold every backend: kudurru nodes are interchangeable (each
 * serves the same objects: zones and resolver settings alike), so the pools
 * differ only in how they pick a node. Resolver queries are spread by a
 * consistent hash of the query name (`chashed`), so each name is asked of
 * one node and lives in one node's cache; authoritative answers are cheap and
 * the same on every node, so they go to the least busy one
 * (`leastOutstanding`). See the dnsdist docs, "Loadbalancing and Server
 * Policies".
 */
import { createHash } from "node:crypto";
import { checkDomainName } from "../dns/name.ts";
import {
  type Endpoint,
  endpointsClash,
  formatEndpoint,
  isLoopback,
  isPrefix,
  parseEndpoint,
} from "./address.ts";
import { MIN_PROXY_SECRET_BYTES, readProxySecretFile } from "./proxy_secret.ts";

export type { Endpoint } from "./address.ts";

/** A kudurru node behind dnsdist. */
export interface EdgeBackend {
  /** Stable, derived from the address: "kudurru-10-0-0-1-53". */
  name: string;
  /**
   * A UUID derived from the address. dnsdist places a server on the
   * consistent-hash ring by its id (a random one per start otherwise), so a
   * stable id keeps each name on the same node across restarts and across
   * several dnsdist instances.
   */
  id: string;
  address: Endpoint;
}

export type PoolName = "resolver" | "authoritative";

/** dnsdist's built-in policies the edge uses. */
export type PoolPolicy = "chashed" | "leastOutstanding";

export interface EdgePool {
  name: PoolName;
  policy: PoolPolicy;
  /** Backend names. */
  members: string[];
}

/** DoT and DoH for clients, with one certificate. */
export interface EdgeTls {
  certFile: string;
  keyFile: string;
  dot: Endpoint[];
  doh: Endpoint[];
  /** The DoH path (RFC 8484 §4.1 suggests none; "/dns-query" is usual). */
  dohPath: string;
}

/** How dnsdist probes each backend (docs/design.md#health-and-lameduck). */
export interface EdgeHealthCheck {
  /** kudurru answers TXT here, and SERVFAIL from the start of lameduck. */
  name: string;
  type: "TXT";
  intervalSeconds: number;
  timeoutMs: number;
  /** Failed checks in a row before a backend is down. */
  maxFailures: number;
  /** Good checks in a row before a down backend is up again. */
  rise: number;
}

export interface EdgeTopology {
  /** Plain DNS (UDP and TCP) for clients. */
  listen: Endpoint[];
  /** Client prefixes dnsdist answers (its ACL). */
  acl: string[];
  tls?: EdgeTls;
  backends: EdgeBackend[];
  pools: EdgePool[];
  /** Zones (lower case, trailing dot) sent to `authoritative`; the rest go to `resolver`. */
  authoritativeZones: string[];
  healthCheck: EdgeHealthCheck;
  /** dnsdist's webserver and API: loopback only. */
  api: Endpoint;
  /** dnsdist's console: loopback only. */
  console: Endpoint;
  /** Sent to every backend as PROXYv2 TLV 0xE0. */
  proxySecret: Uint8Array;
}

/** A topology that cannot be rendered; the message says what to change. */
export class EdgeTopologyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EdgeTopologyError";
  }
}

/** What dnsdist 1.7 allows by default (setACL), kept when --acl is not given. */
export const DEFAULT_ACL: readonly string[] = [
  "127.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "169.254.0.0/16",
  "192.168.0.0/16",
  "172.16.0.0/12",
  "::1/128",
  "fc00::/7",
  "fe80::/10",
];

export const DEFAULT_LISTEN = "0.0.0.0:53";
export const DEFAULT_API = "127.0.0.1:8083";
export const DEFAULT_CONSOLE = "127.0.0.1:5199";
export const DOT_PORT = 853;
export const DOH_PORT = 443;
export const TLS_CERT_FILE = "tls.crt";
export const TLS_KEY_FILE = "tls.key";

/** The health check: every second, down after 2 misses, up after 2 answers. */
export const DEFAULT_HEALTH_CHECK: EdgeHealthCheck = {
  name: "health.kudurru.internal.",
  type: "TXT",
  intervalSeconds: 1,
  timeoutMs: 1000,
  maxFailures: 2,
  rise: 2,
};

/** The flag values topologyFromFlags reads (as `kudurru edge` parses them). */
export interface EdgeFlagValues {
  listen?: string[] | undefined;
  backends?: string | undefined;
  "authoritative-zones"?: string | undefined;
  "tls-dir"?: string | undefined;
  api?: string | undefined;
  console?: string | undefined;
  "proxy-secret-file"?: string | undefined;
  acl?: string[] | undefined;
}

/** Where topologyFromFlags reads files; tests substitute. */
export interface TopologyFiles {
  readFile(path: string): Uint8Array;
  /** True when `path` is a readable regular file. */
  isReadableFile(path: string): boolean;
}

const realFiles: TopologyFiles = {
  readFile: (path) => Deno.readFileSync(path),
  isReadableFile(path) {
    try {
      if (!Deno.statSync(path).isFile) return false;
      Deno.openSync(path, { read: true }).close();
      return true;
    } catch {
      return false;
    }
  },
};

/**
 * Builds the topology from `kudurru edge` flags. `backends` may come from
 * elsewhere (a --backends-file); when given it takes the place of
 * `--backends`.
 *
 * @throws {EdgeTopologyError} naming the flag and what is wrong with it
 */
export function topologyFromFlags(
  flags: EdgeFlagValues,
  backends?: string[],
  files: TopologyFiles = realFiles,
): EdgeTopology {
  const listenTexts = flags.listen?.length ? flags.listen : [DEFAULT_LISTEN];
  const listen = listenTexts.map((t) => endpointFlag("--listen", t));
  const backendTexts = backends ?? splitList(flags.backends ?? "");
  if (backendTexts.length === 0) {
    throw new EdgeTopologyError(
      "--backends needs at least one kudurru node, as in --backends 10.0.0.1:53,10.0.0.2:53",
    );
  }
  const nodes = backendsFromList(backendTexts, "--backends");
  const zones = authoritativeZonesFrom(
    splitList(flags["authoritative-zones"] ?? ""),
  );
  const api = loopbackFlag("--api", flags.api ?? DEFAULT_API);
  const consoleAt = loopbackFlag("--console", flags.console ?? DEFAULT_CONSOLE);
  const secretFile = flags["proxy-secret-file"];
  if (secretFile === undefined || secretFile.trim() === "") {
    throw new EdgeTopologyError(
      "--proxy-secret-file is required: the file holding the PROXYv2 secret kudurru checks (listeners.proxyProtocolSecretFile)",
    );
  }
  let proxySecret: Uint8Array;
  try {
    proxySecret = readProxySecretFile(secretFile, files.readFile);
  } catch (error) {
    throw new EdgeTopologyError((error as Error).message);
  }
  const acl = flags.acl?.length ? flags.acl : [...DEFAULT_ACL];
  for (const prefix of acl) {
    if (!isPrefix(prefix)) {
      throw new EdgeTopologyError(
        `--acl "${prefix}" is not an address or prefix such as 192.0.2.0/24`,
      );
    }
  }
  const topology: EdgeTopology = {
    listen,
    acl,
    backends: nodes,
    pools: poolsFor(nodes),
    authoritativeZones: zones,
    healthCheck: { ...DEFAULT_HEALTH_CHECK },
    api,
    console: consoleAt,
    proxySecret,
  };
  const tlsDir = flags["tls-dir"];
  if (tlsDir !== undefined) {
    topology.tls = tlsFrom(tlsDir, listen, files);
  }
  const problems = topologyProblems(topology);
  if (problems.length > 0) throw new EdgeTopologyError(problems.join("; "));
  return topology;
}

/** "a,b, c" → ["a", "b", "c"]. */
export function splitList(text: string): string[] {
  return text.split(",").map((s) => s.trim()).filter((s) => s !== "");
}

function endpointFlag(flag: string, text: string): Endpoint {
  const e = parseEndpoint(text);
  if (typeof e === "string") throw new EdgeTopologyError(`${flag}: ${e}`);
  return e;
}

function loopbackFlag(flag: string, text: string): Endpoint {
  const e = endpointFlag(flag, text);
  if (!isLoopback(e.host)) {
    throw new EdgeTopologyError(
      `${flag} must be a loopback address (127.0.0.1 or [::1]), not "${text}": dnsdist's ${
        flag === "--api" ? "webserver" : "console"
      } can change its configuration`,
    );
  }
  return e;
}

/**
 * The backends for a list of "address[:port]" texts (port 53 when none).
 *
 * @throws {EdgeTopologyError} for a text that is not an address, or twice the same node
 */
export function backendsFromList(
  texts: readonly string[],
  source = "backends",
): EdgeBackend[] {
  const seen = new Map<string, string>();
  return texts.map((text) => {
    const address = parseEndpoint(text, 53);
    if (typeof address === "string") {
      throw new EdgeTopologyError(`${source}: ${address}`);
    }
    const key = formatEndpoint(address);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw new EdgeTopologyError(
        `${source}: "${text}" and "${earlier}" are the same node (${key})`,
      );
    }
    seen.set(key, text);
    return backendFor(address);
  });
}

/** A backend's name and id from its address alone, so they never change. */
export function backendFor(address: Endpoint): EdgeBackend {
  const key = formatEndpoint(address);
  return {
    name: `kudurru-${address.host.replace(/[.:]/g, "-")}-${address.port}`,
    id: uuidFrom(`kudurru edge backend ${key}`),
    address,
  };
}

/** A name-based UUID (RFC 9562 §5.8, version 8) from SHA-256 of `text`. */
function uuidFrom(text: string): string {
  const b = createHash("sha256").update(text).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${
    hex.slice(16, 20)
  }-${hex.slice(20)}`;
}

/** Both pools, each with every backend (see the file header for why). */
export function poolsFor(backends: readonly EdgeBackend[]): EdgePool[] {
  const members = backends.map((b) => b.name);
  return [
    { name: "resolver", policy: "chashed", members: [...members] },
    {
      name: "authoritative",
      policy: "leastOutstanding",
      members: [...members],
    },
  ];
}

/** The same topology with another set of backends (a membership change). */
export function withBackends(
  topology: EdgeTopology,
  backends: EdgeBackend[],
): EdgeTopology {
  return { ...topology, backends, pools: poolsFor(backends) };
}

/** Letters, digits, "-" and "_" between dots: names dnsdist reads as they are. */
const ZONE = /^([a-z0-9_]([a-z0-9_-]*[a-z0-9_])?\.)+$/;

function authoritativeZonesFrom(texts: string[]): string[] {
  const zones: string[] = [];
  for (const text of texts) {
    const fqdn = (text.endsWith(".") ? text : `${text}.`).toLowerCase();
    const problem = checkDomainName(fqdn) ??
      (ZONE.test(fqdn)
        ? null
        : "use letters, digits, - and _ between the dots");
    if (problem !== null) {
      throw new EdgeTopologyError(
        `--authoritative-zones "${text}" is not a zone name: ${problem}`,
      );
    }
    if (!zones.includes(fqdn)) zones.push(fqdn);
  }
  return zones;
}

function tlsFrom(
  dir: string,
  listen: Endpoint[],
  files: TopologyFiles,
): EdgeTls {
  const base = dir.replace(/\/+$/, "") || "/";
  const certFile = `${base === "/" ? "" : base}/${TLS_CERT_FILE}`;
  const keyFile = `${base === "/" ? "" : base}/${TLS_KEY_FILE}`;
  for (const file of [certFile, keyFile]) {
    if (!files.isReadableFile(file)) {
      throw new EdgeTopologyError(
        `--tls-dir "${dir}" must hold ${TLS_CERT_FILE} (the certificate chain, PEM) and ${TLS_KEY_FILE} (its key, PEM); "${file}" is not a readable file`,
      );
    }
  }
  // One DoT and one DoH listener per plain listener host, each host once.
  const hosts = [...new Set(listen.map((e) => e.host))];
  return {
    certFile,
    keyFile,
    dot: hosts.map((host) => ({ host, port: DOT_PORT })),
    doh: hosts.map((host) => ({ host, port: DOH_PORT })),
    dohPath: "/dns-query",
  };
}

/**
 * What is wrong with a topology, whoever built it: the renderer refuses one
 * with problems, so dnsdist never starts half-configured.
 */
export function topologyProblems(t: EdgeTopology): string[] {
  const problems: string[] = [];
  if (t.listen.length === 0) problems.push("no listen address");
  if (t.backends.length === 0) problems.push("no backends");
  const names = new Set<string>();
  const addresses = new Set<string>();
  for (const b of t.backends) {
    const at = formatEndpoint(b.address);
    const check = parseEndpoint(at);
    if (typeof check === "string") problems.push(`backend ${b.name}: ${check}`);
    if (names.has(b.name)) problems.push(`two backends named ${b.name}`);
    if (addresses.has(at)) problems.push(`two backends at ${at}`);
    if (!/^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/.test(b.id)) {
      problems.push(`backend ${b.name} has no UUID id`);
    }
    names.add(b.name);
    addresses.add(at);
  }
  for (const pool of t.pools) {
    if (pool.members.length === 0) problems.push(`pool ${pool.name} is empty`);
    for (const m of pool.members) {
      if (!names.has(m)) {
        problems.push(`pool ${pool.name} names no backend ${m}`);
      }
    }
  }
  for (const needed of ["resolver", "authoritative"] as const) {
    if (!t.pools.some((p) => p.name === needed)) {
      problems.push(`no ${needed} pool`);
    }
  }
  for (const zone of t.authoritativeZones) {
    if (!ZONE.test(zone)) problems.push(`zone "${zone}" is not a zone name`);
  }
  if (!isLoopback(t.api.host)) problems.push("the API address is not loopback");
  if (!isLoopback(t.console.host)) {
    problems.push("the console address is not loopback");
  }
  if (t.proxySecret.length < MIN_PROXY_SECRET_BYTES) {
    problems.push(
      `the PROXYv2 secret has ${t.proxySecret.length} bytes, fewer than ${MIN_PROXY_SECRET_BYTES}`,
    );
  }
  for (const prefix of t.acl) {
    if (!isPrefix(prefix)) {
      problems.push(`ACL entry "${prefix}" is not a prefix`);
    }
  }
  const hc = t.healthCheck;
  if (
    !(hc.intervalSeconds >= 1 && hc.timeoutMs >= 1 && hc.maxFailures >= 1 &&
      hc.rise >= 1) || !ZONE.test(hc.name)
  ) {
    problems.push("the health check is not sane");
  }
  // Every socket dnsdist binds, so two never ask for the same one.
  const sockets: [string, Endpoint][] = [
    ...t.listen.map((e): [string, Endpoint] => ["listen", e]),
    ...(t.tls?.dot ?? []).map((e): [string, Endpoint] => ["DoT", e]),
    ...(t.tls?.doh ?? []).map((e): [string, Endpoint] => ["DoH", e]),
    ["API", t.api],
    ["console", t.console],
  ];
  for (let i = 0; i < sockets.length; i++) {
    for (let j = i + 1; j < sockets.length; j++) {
      const [whatA, a] = sockets[i]!;
      const [whatB, b] = sockets[j]!;
      // Plain listeners bind UDP and TCP, the rest TCP only: any clash counts.
      if (endpointsClash(a, b)) {
        problems.push(
          `the ${whatA} address ${formatEndpoint(a)} and the ${whatB} address ${
            formatEndpoint(b)
          } are the same socket`,
        );
      }
    }
  }
  if (t.tls && (t.tls.certFile === "" || t.tls.keyFile === "")) {
    problems.push("TLS without a certificate or key file");
  }
  return problems;
}
