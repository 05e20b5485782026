/**
 * For tests only (nothing in the server imports it): the edge supervisor
 * started with explicit ports, run directory, backends and secret, and
 * Unbound as a backend that reads PROXYv2 (`proxy-protocol-port`), so a test
 * sees dnsdist's real traffic reach a real peer. Unbound logs each query
 * with the client address it took from the PROXY header, which is what a
 * test checks to know the client's address went through.
 */
import { join } from "node:path";
import { freePort } from "../testing/free_port.ts";
import { type RunningServer, spawnServer } from "../testing/server_process.ts";
import { type Logger, memoryLogger } from "../log/logger.ts";
import type { HttpListener } from "../metrics/http_listener.ts";
import type { EdgeCredentials } from "./credentials.ts";
import { startReadinessServer } from "./readiness.ts";
import { EdgeSupervisor } from "./supervisor.ts";
import {
  backendsFromList,
  DEFAULT_HEALTH_CHECK,
  type EdgeTopology,
  poolsFor,
} from "./topology.ts";

export interface UnboundPeerOptions {
  /** Where it reads PROXYv2; @default a free port */
  port?: number;
  /** The address `www.test. A` answers. @default "192.0.2.1" */
  answer?: string;
  /** Answer the health check name; false makes dnsdist mark it down. @default true */
  healthy?: boolean;
}

/** A running Unbound that takes PROXYv2 on `port` and plain DNS on `plainPort`. */
export interface UnboundPeer extends RunningServer {
  /** Plain DNS, for the readiness probe of the peer itself. */
  readonly plainPort: number;
  /** The client addresses Unbound logged for `name` (its log-queries lines). */
  clientsOf(name: string): string[];
}

/**
 * Starts Unbound in the foreground on loopback: `test.` and
 * `kudurru.internal.` are local zones and every other name is refused, so
 * it never sends a query anywhere.
 */
export async function startUnboundPeer(
  opts: UnboundPeerOptions = {},
): Promise<UnboundPeer> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-edge-unbound-" });
  const port = opts.port ?? freePort();
  const plainPort = freePort();
  const conf = join(dir, "unbound.conf");
  await Deno.writeTextFile(
    conf,
    [
      "server:",
      `  interface: 127.0.0.1@${port}`,
      `  interface: 127.0.0.1@${plainPort}`,
      `  proxy-protocol-port: ${port}`,
      "  do-daemonize: no",
      "  use-syslog: no",
      '  logfile: ""',
      '  chroot: ""',
      '  username: ""',
      `  directory: "${dir}"`,
      '  pidfile: ""',
      "  verbosity: 1",
      "  log-queries: yes",
      "  num-threads: 1",
      "  access-control: 127.0.0.0/8 allow",
      "  do-not-query-localhost: yes",
      '  module-config: "iterator"',
      // Every other name is refused: Unbound never recurses off the machine.
      '  local-zone: "." refuse',
      '  local-zone: "test." static',
      '  local-data: "test. 60 IN SOA ns.test. host.test. 1 3600 600 86400 60"',
      `  local-data: "www.test. 60 IN A ${opts.answer ?? "192.0.2.1"}"`,
      '  local-zone: "kudurru.internal." static',
      ...(opts.healthy === false
        ? []
        : ["  local-data: 'health.kudurru.internal. 0 IN TXT \"unbound\"'"]),
      "remote-control:",
      "  control-enable: no",
    ].join("\n") + "\n",
  );
  const server = await spawnServer({
    label: "Unbound",
    command: "unbound",
    args: ["-d", "-c", conf],
    port: plainPort,
    tempDir: dir,
    readyZone: "test.",
  });
  return {
    ...server,
    port,
    plainPort,
    clientsOf(name: string): string[] {
      const re = new RegExp(`info: (\\S+) ${name.replace(/\./g, "\\.")} `, "g");
      return [...server.output().matchAll(re)].map((m) => m[1]!);
    },
  };
}

export interface TestEdgeOptions {
  /** "127.0.0.1:PORT" of each backend. */
  backends: string[];
  /** @default 48 random bytes */
  secret?: Uint8Array;
  authoritativeZones?: string[];
  /** @default a temporary directory, removed by stop() */
  runDir?: string;
  /** @default memoryLogger() */
  logger?: Logger;
  /** @default 300 */
  restartDebounceMs?: number;
  /** @default 200 */
  backoffFirstMs?: number;
  render?: (topology: EdgeTopology, credentials: EdgeCredentials) => string;
}

/** A supervised dnsdist on loopback, with its probes. */
export interface TestEdge extends AsyncDisposable {
  /** Clients query 127.0.0.1 on this port (UDP and TCP). */
  readonly dnsPort: number;
  readonly topology: EdgeTopology;
  readonly supervisor: EdgeSupervisor;
  /** "http://127.0.0.1:PORT": /healthz/live and /healthz/ready. */
  readonly probesUrl: string;
  readonly runDir: string;
  /** Stops dnsdist (SIGTERM) and the probes; resolves to dnsdist's exit code. */
  stop(): Promise<number>;
}

/** Starts dnsdist under the supervisor, in front of `opts.backends`. */
export async function startTestEdge(opts: TestEdgeOptions): Promise<TestEdge> {
  const madeDir = opts.runDir === undefined;
  const runDir = opts.runDir ??
    await Deno.makeTempDir({ prefix: "kudurru-edge-run-" });
  const dnsPort = freePort();
  const backends = backendsFromList(opts.backends);
  const topology: EdgeTopology = {
    listen: [{ host: "127.0.0.1", port: dnsPort }],
    acl: ["127.0.0.0/8"],
    backends,
    pools: poolsFor(backends),
    authoritativeZones: opts.authoritativeZones ?? [],
    healthCheck: { ...DEFAULT_HEALTH_CHECK },
    api: { host: "127.0.0.1", port: freePort() },
    console: { host: "127.0.0.1", port: freePort() },
    proxySecret: opts.secret ?? crypto.getRandomValues(new Uint8Array(48)),
  };
  const logger = opts.logger ?? memoryLogger();
  const supervisor = new EdgeSupervisor({
    topology,
    runDir,
    logger,
    restartDebounceMs: opts.restartDebounceMs ?? 300,
    backoffFirstMs: opts.backoffFirstMs ?? 200,
    stopGraceMs: 5_000,
    ...(opts.render ? { render: opts.render } : {}),
  });
  let probes: HttpListener | undefined;
  const cleanUp = async () => {
    await probes?.stop();
    if (madeDir) await Deno.remove(runDir, { recursive: true }).catch(() => {});
  };
  try {
    await supervisor.start();
    probes = startReadinessServer({
      hostname: "127.0.0.1",
      port: 0,
      source: supervisor,
      logger,
    });
  } catch (error) {
    await supervisor.stop();
    await cleanUp();
    throw error;
  }
  let stopped: Promise<number> | undefined;
  const stop = () =>
    stopped ??= (async () => {
      try {
        return await supervisor.stop("SIGTERM");
      } finally {
        await cleanUp();
      }
    })();
  return {
    dnsPort,
    topology,
    supervisor,
    probesUrl: `http://127.0.0.1:${probes.addr.port}`,
    runDir,
    stop,
    [Symbol.asyncDispose]: async () => {
      await stop();
    },
  };
}

/** Polls `check` until it returns something other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `Timed out after ${timeoutMs} ms waiting for ${what}${
      last ? `: ${(last as Error).message}` : ""
    }`,
  );
}

/** GETs a probe: its status and body. */
export async function probe(
  url: string,
): Promise<{ status: number; body: string }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.text() };
}
