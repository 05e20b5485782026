/**
 * Renders an EdgeTopology as dnsdist 1.7 Lua configuration (Debian 12's
 * dnsdist; its configuration is Lua, the YAML form came with 2.0). Pure:
 * no I/O, the same input gives the same text. src/edge/README.md explains
 * each line; the functions are those of the dnsdist 1.7 reference
 * ("Configuration Reference", "Rule selectors", "Actions").
 */
import { createHash } from "node:crypto";
import { type EdgeCredentials } from "./credentials.ts";
import { formatEndpoint } from "./address.ts";
import { PROXY_SECRET_TLV } from "./proxy_secret.ts";
import {
  type EdgeBackend,
  type EdgeTopology,
  EdgeTopologyError,
  topologyProblems,
} from "./topology.ts";
import { luaBytes, luaString } from "./lua_string.ts";

/** Every backend's weight: dnsdist warns below 100 for chashed (ring points per server). */
export const CHASHED_WEIGHT = 1000;

export interface RenderOptions {
  /**
   * Write the plain webserver password and API key as comments, for a
   * file an operator runs by hand (`kudurru edge render`); `kudurru edge
   * run` keeps them in memory only. @default false
   */
  annotateCredentials?: boolean;
}

/**
 * The Lua text.
 *
 * @throws {EdgeTopologyError} listing what is wrong when the topology has problems
 */
export function renderDnsdistLua(
  topology: EdgeTopology,
  credentials: EdgeCredentials,
  opts: RenderOptions = {},
): string {
  const problems = topologyProblems(topology);
  if (problems.length > 0) {
    throw new EdgeTopologyError(
      `Cannot render the dnsdist configuration: ${problems.join("; ")}`,
    );
  }
  const t = topology;
  const lines: string[] = [
    "-- dnsdist configuration rendered by `kudurru edge` (src/edge/dnsdist_lua.ts).",
    "-- `kudurru edge run` writes it anew at each start: change the flags, not this file.",
    "-- It holds the PROXYv2 secret and the console key: keep it private.",
    "",
    "-- Never poll the security status over DNS: it would resolve a name off this machine.",
    "setSecurityPollSuffix(" + luaString("") + ")",
    "",
    "-- Client listeners (UDP and TCP) and who may query.",
    ...t.listen.map((e, i) =>
      `${i === 0 ? "setLocal" : "addLocal"}(${luaString(formatEndpoint(e))})`
    ),
    `setACL({${t.acl.map(luaString).join(", ")}})`,
    "-- With no backend up, answer SERVFAIL at once rather than let the client time out.",
    "setServFailWhenNoServer(true)",
  ];
  if (t.tls) {
    const tls = t.tls;
    const cert = luaString(tls.certFile);
    const key = luaString(tls.keyFile);
    lines.push(
      "",
      "-- DNS over TLS (RFC 7858) and over HTTPS (RFC 8484), one certificate.",
      ...tls.dot.map((e) =>
        `addTLSLocal(${
          luaString(formatEndpoint(e))
        }, ${cert}, ${key}, {minTLSVersion="tls1.2"})`
      ),
      ...tls.doh.map((e) =>
        `addDOHLocal(${luaString(formatEndpoint(e))}, ${cert}, ${key}, {${
          luaString(tls.dohPath)
        }}, {minTLSVersion="tls1.2"})`
      ),
    );
  }
  lines.push(
    "",
    "-- The consistent hash of query names, the same at every start and on every edge",
    "-- sharing the secret (dnsdist picks a random one otherwise).",
    `setWHashedPertubation(${hashPerturbation(t.proxySecret)})`,
    "",
    "-- The kudurru nodes: PROXYv2 carries the client's address; the health check",
    "-- turns SERVFAIL when a node enters lameduck.",
    ...t.backends.map((b) => newServerLine(t, b)),
    "",
    "-- Pools: resolver queries by name hash (one node caches each name),",
    "-- authoritative ones to the least busy node.",
    ...t.pools.map((p) =>
      `setPoolServerPolicy(${p.policy}, ${luaString(p.name)})`
    ),
    "",
    "-- The shared secret on every query, as PROXYv2 TLV 0xE0; this action does not",
    "-- stop rule processing, so it comes before the routing rules.",
    `addAction(AllRule(), SetAdditionalProxyProtocolValueAction(${PROXY_SECRET_TLV}, ${
      luaBytes(t.proxySecret)
    }))`,
  );
  if (t.authoritativeZones.length > 0) {
    lines.push(
      "-- Names in these zones and below go to the authoritative pool.",
      "local authoritativeZones = newSuffixMatchNode()",
      ...t.authoritativeZones.map((z) =>
        `authoritativeZones:add(${luaString(z)})`
      ),
      `addAction(SuffixMatchNodeRule(authoritativeZones), PoolAction(${
        luaString("authoritative")
      }))`,
    );
  }
  lines.push(
    "-- Everything else to the resolver pool (the default pool has no servers).",
    `addAction(AllRule(), PoolAction(${luaString("resolver")}))`,
    "",
    "-- Webserver and API, loopback only; scrypt hashes of per-start credentials.",
    `webserver(${luaString(formatEndpoint(t.api))})`,
    `setWebserverConfig({password=${
      luaString(credentials.passwordHash)
    }, apiKey=${luaString(credentials.apiKeyHash)}, acl=${
      luaString("127.0.0.0/8, ::1/128")
    }})`,
  );
  if (opts.annotateCredentials === true) {
    lines.push(
      `-- webserver password: ${credentials.password}`,
      `-- API key (header X-API-Key): ${credentials.apiKey}`,
    );
  }
  lines.push(
    "",
    "-- Console (dnsdist -c), loopback only, encrypted with a per-start key.",
    `controlSocket(${luaString(formatEndpoint(t.console))})`,
    `setConsoleACL({${luaString("127.0.0.0/8")}, ${luaString("::1/128")}})`,
    `setKey(${luaString(credentials.consoleKey)})`,
    "",
  );
  return lines.join("\n");
}

function newServerLine(t: EdgeTopology, b: EdgeBackend): string {
  const pools = t.pools.filter((p) => p.members.includes(b.name)).map((p) =>
    luaString(p.name)
  );
  const hc = t.healthCheck;
  const fields = [
    `address=${luaString(formatEndpoint(b.address))}`,
    `name=${luaString(b.name)}`,
    `id=${luaString(b.id)}`,
    `pool={${pools.join(", ")}}`,
    `weight=${CHASHED_WEIGHT}`,
    "useProxyProtocol=true",
    `checkName=${luaString(hc.name)}`,
    `checkType=${luaString(hc.type)}`,
    "checkClass=DNSClass.IN",
    "mustResolve=true",
    `checkInterval=${hc.intervalSeconds}`,
    `checkTimeout=${hc.timeoutMs}`,
    `maxCheckFailures=${hc.maxFailures}`,
    `rise=${hc.rise}`,
  ];
  return `newServer({${fields.join(", ")}})`;
}

/**
 * A 32-bit perturbation derived from the secret: stable (the same nodes get
 * the same names after a restart, and every edge of a deployment agrees),
 * yet not guessable by clients who would aim names at one node.
 */
export function hashPerturbation(secret: Uint8Array): number {
  return createHash("sha256").update("kudurru edge chashed perturbation")
    .update(secret).digest().readUInt32BE(0);
}
