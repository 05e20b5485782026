/**
 * Where `kudurru query` sends its question, as the upstream transports
 * take it (src/upstream/transport_factory.ts): an UpstreamServer, the IP
 * address to dial and the CA certificates to trust. Without --server it is
 * this machine's own kudurru (the configuration's DNS, DoT or DoH
 * listener), never a public resolver: the command explains kudurru's
 * answers. A client ID goes where the listeners read it
 * (src/listeners/client_id.ts): the first label of the TLS server name for
 * DoT, the last path segment for DoH.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CLIENT_ID_RE } from "../api/v1alpha1/clientgroup.ts";
import {
  DEFAULT_PORTS,
  formatHostPort,
  isIpAddress,
  parseUpstreamServer,
  type UpstreamScheme,
  type UpstreamServer,
} from "../config/upstream_server.ts";
import type { Config } from "../config/schema.ts";
import type { TransportDeps } from "../upstream/transport_factory.ts";
import { UsageError } from "./command.ts";

/** What the flags say about the server. */
export interface TargetFlags {
  scheme: UpstreamScheme;
  /** --server: HOST[:PORT], or a full udp://, tcp://, tls://host#name or https:// form. */
  server?: string;
  /** --https URL-PATH. */
  path?: string;
  caFile?: string;
  tlsName?: string;
  clientId?: string;
}

/** The server to ask and how. */
export interface QueryTarget {
  server: UpstreamServer;
  deps: TransportDeps;
  /** "127.0.0.1#53" as dig writes it, or the DoH URL. */
  label: string;
  clientId?: string;
}

/** Reads the configuration; only called when the flags leave something to it. */
export type ConfigSource = () => Config | undefined;

/** Where a server named by a host name is found (the system's resolver). */
export type HostResolver = (host: string) => Promise<string>;

/**
 * The target of the flags.
 *
 * @throws {UsageError} for flags that do not go together or a bad server
 */
export async function resolveTarget(
  flags: TargetFlags,
  config: ConfigSource,
  resolveHost: HostResolver = systemAddress,
): Promise<QueryTarget> {
  const cmd = "kudurru query";
  if (flags.clientId !== undefined) {
    if (flags.scheme !== "tls" && flags.scheme !== "https") {
      throw new UsageError(
        `${cmd}: --client-id needs --tls or --https (plain DNS carries no client ID)`,
      );
    }
    if (!CLIENT_ID_RE.test(flags.clientId)) {
      throw new UsageError(
        `${cmd}: --client-id "${flags.clientId}" is not a client ID (lower-case letters, digits and '-', one label)`,
      );
    }
  }
  if (
    (flags.caFile !== undefined || flags.tlsName !== undefined) &&
    flags.scheme !== "tls" && flags.scheme !== "https"
  ) {
    throw new UsageError(
      `${cmd}: --ca-file and --tls-name need --tls or --https`,
    );
  }
  let server: UpstreamServer;
  let fromConfig: Config | undefined;
  try {
    if (flags.server !== undefined) {
      server = parseGiven(flags);
    } else {
      fromConfig = config();
      server = parseUpstreamServer(defaultServer(flags, fromConfig));
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(
      `${cmd}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (flags.tlsName !== undefined) server.tlsServerName = flags.tlsName;
  if (flags.clientId !== undefined) {
    if (server.scheme === "https") {
      server.path = `${
        (server.path ?? "/dns-query").replace(/\/$/, "")
      }/${flags.clientId}`;
    } else {
      // The ID is a label under the server's name; the self-signed
      // certificate names every such label (src/tls/self_signed_dns.ts).
      const domain = flags.tlsName ??
        (config()?.listeners.clientIdDomain || undefined);
      if (domain === undefined) {
        throw new UsageError(
          `${cmd}: --client-id over --tls needs the client-ID domain: give it with --tls-name (such as dns.example.net), or set listeners.clientIdDomain`,
        );
      }
      server.tlsServerName = `${flags.clientId}.${domain.replace(/\.$/, "")}`;
    }
  }
  const deps: TransportDeps = {
    address: isIpAddress(server.host)
      ? server.host
      : await resolveHost(server.host),
  };
  const caFile = flags.caFile ?? ownCa(fromConfig, server.scheme);
  if (caFile !== undefined) {
    try {
      deps.caCerts = [await Deno.readTextFile(caFile)];
    } catch (err) {
      throw new UsageError(
        `${cmd}: cannot read --ca-file "${caFile}": ${
          err instanceof Error ? err.message : String(err)
        }`,
      );
    }
  }
  const hostPort = formatHostPort(deps.address, server.port);
  const label = server.scheme === "https"
    ? `https://${hostPort}${server.path ?? "/dns-query"}`
    : hostPort.replace(/:(\d+)$/, "#$1");
  return {
    server,
    deps,
    label,
    ...(flags.clientId === undefined ? {} : { clientId: flags.clientId }),
  };
}

/** --server as the transport flags say, or its own full form. */
function parseGiven(flags: TargetFlags): UpstreamServer {
  const given = flags.server!.trim();
  const url = /^([a-z0-9+.-]+):\/\//i.exec(given);
  if (url !== null) {
    const server = parseUpstreamServer(given);
    if (server.scheme !== flags.scheme && flags.scheme !== "udp") {
      throw new UsageError(
        `kudurru query: --server "${given}" is ${server.scheme}://, which conflicts with --${flags.scheme}`,
      );
    }
    if (flags.path !== undefined) {
      if (server.scheme !== "https") {
        throw new UsageError("kudurru query: a URL path needs --https");
      }
      server.path = flags.path;
    }
    return server;
  }
  const withPath = flags.scheme === "https"
    ? `${given}${flags.path ?? "/dns-query"}`
    : given;
  return parseUpstreamServer(`${flags.scheme}://${withPath}`);
}

/**
 * This machine's kudurru: the first configured listener of the transport,
 * its wildcard address turned into loopback; 127.0.0.1 on the scheme's
 * port when the configuration did not load.
 */
function defaultServer(flags: TargetFlags, config: Config | undefined) {
  const local = (address: string) =>
    address.replace(/^0\.0\.0\.0:/, "127.0.0.1:").replace(/^\[::\]:/, "[::1]:");
  const fallback = `127.0.0.1:${DEFAULT_PORTS[flags.scheme]}`;
  const listeners = config?.listeners;
  switch (flags.scheme) {
    case "udp":
    case "tcp": {
      const dns = listeners?.dns.find((l) =>
        (l.protocols as string[]).includes(flags.scheme)
      );
      return `${flags.scheme}://${local(dns?.address ?? fallback)}`;
    }
    case "tls":
      return `tls://${local(listeners?.dot[0]?.address ?? fallback)}`;
    case "https": {
      const doh = listeners?.doh[0];
      if (doh !== undefined && doh.tls === undefined) {
        throw new UsageError(
          "kudurru query: the configured DoH listener serves plain HTTP behind a proxy; give the proxy with --server",
        );
      }
      return `https://${local(doh?.address ?? fallback)}${
        flags.path ?? doh?.path ?? "/dns-query"
      }`;
    }
  }
}

/**
 * The CA kudurru made for its self-signed DNS certificate, when asking this
 * machine's kudurru over TLS without --ca-file: it is what the listener's
 * certificate chains to.
 */
function ownCa(
  config: Config | undefined,
  scheme: UpstreamScheme,
): string | undefined {
  if (config === undefined || (scheme !== "tls" && scheme !== "https")) {
    return undefined;
  }
  const file = join(config.node.dataDir, "keys", "dns-ca.crt");
  return existsSync(file) ? file : undefined;
}

/** The first address of `host` from the system's resolver. */
async function systemAddress(host: string): Promise<string> {
  if (host === "localhost") return "127.0.0.1";
  for (const type of ["A", "AAAA"] as const) {
    try {
      const [first] = await Deno.resolveDns(host, type);
      if (first !== undefined) return first;
    } catch {
      // try the other family, then fail below
    }
  }
  throw new Error(`cannot find an address for "${host}"`);
}
