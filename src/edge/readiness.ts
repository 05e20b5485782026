/**
 * The edge's probes (`--ready`, default 0.0.0.0:8084, no auth), for
 * Kubernetes or a load balancer in front of several edges:
 *
 *   GET /healthz/live   200 while the supervisor runs
 *   GET /healthz/ready  200 when dnsdist's own API says at least one backend
 *                       is up; 503 with the reason otherwise
 *
 * Readiness asks dnsdist (GET /api/v1/servers/localhost, header X-API-Key;
 * dnsdist docs, "Built-in webserver", API) rather than probing the nodes
 * itself: what matters is whether dnsdist would send a query anywhere.
 * Bodies are one line of text. Nothing here changes state.
 */
import type { Logger } from "../log/logger.ts";
import {
  badRequestUrl,
  type HttpListener,
  listenHttp,
  rejectUnlessGetOrHead,
  requestPath,
} from "../metrics/http_listener.ts";
import type { DnsdistApi } from "./supervisor.ts";

export const READY_PATHS = {
  live: "/healthz/live",
  ready: "/healthz/ready",
} as const;

/** What the probes read from the supervisor. */
export interface ReadinessSource {
  /** True while the supervisor runs. */
  readonly live: boolean;
  /** The running dnsdist's API, or undefined while none runs. */
  api(): DnsdistApi | undefined;
}

export interface Readiness {
  ready: boolean;
  /** Why not, or which backends are up. */
  reason: string;
}

/** How long dnsdist's API has to answer. */
const API_TIMEOUT_MS = 2_000;

/** One backend as dnsdist's API lists it (the fields read here). */
interface ApiServer {
  name?: unknown;
  state?: unknown;
}

/**
 * Asks dnsdist's API whether any backend is up. dnsdist says "up" or
 * "down" for a backend its health checks decide, and "UP" or "DOWN" for
 * one an operator forced from the console; both spellings count.
 */
export async function dnsdistReadiness(
  api: DnsdistApi | undefined,
  timeoutMs = API_TIMEOUT_MS,
): Promise<Readiness> {
  if (api === undefined) {
    return { ready: false, reason: "dnsdist is not running" };
  }
  let servers: ApiServer[];
  try {
    const response = await fetch(`${api.url}/api/v1/servers/localhost`, {
      headers: { "X-API-Key": api.apiKey },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return {
        ready: false,
        reason: `dnsdist's API answered HTTP ${response.status}`,
      };
    }
    const body = await response.json() as { servers?: unknown };
    if (!Array.isArray(body.servers)) {
      return { ready: false, reason: "dnsdist's API listed no servers" };
    }
    servers = body.servers as ApiServer[];
  } catch (error) {
    return {
      ready: false,
      reason: `dnsdist's API did not answer: ${(error as Error).message}`,
    };
  }
  const up = servers.filter((s) => String(s.state).toLowerCase() === "up");
  if (up.length === 0) {
    return {
      ready: false,
      reason: `no backend is up (${servers.length} down: ${
        servers.map((s) => String(s.name)).join(", ")
      })`,
    };
  }
  return {
    ready: true,
    reason: `${up.length} of ${servers.length} backends up: ${
      up.map((s) => String(s.name)).join(", ")
    }`,
  };
}

function text(body: string, ok: boolean): Response {
  return new Response(body + "\n", {
    status: ok ? 200 : 503,
    headers: {
      "content-type": "text/plain; charset=utf-8",
      // A probe must see the state now, never a cached one.
      "cache-control": "no-store",
    },
  });
}

/** The probe routes as a fetch handler (for the listener and tests). */
export function readinessHandler(
  source: ReadinessSource,
  timeoutMs = API_TIMEOUT_MS,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const pathname = requestPath(request);
    if (pathname === undefined) return badRequestUrl();
    if (pathname !== READY_PATHS.live && pathname !== READY_PATHS.ready) {
      return new Response(
        `not found; probes are ${READY_PATHS.live}, ${READY_PATHS.ready}\n`,
        { status: 404 },
      );
    }
    const rejected = rejectUnlessGetOrHead(request);
    if (rejected) return rejected;
    if (pathname === READY_PATHS.live) {
      return source.live
        ? text("live", true)
        : text("not live: the supervisor is stopping", false);
    }
    if (!source.live) return text("not ready: shutting down", false);
    const r = await dnsdistReadiness(source.api(), timeoutMs);
    return text(
      r.ready ? `ready: ${r.reason}` : `not ready: ${r.reason}`,
      r.ready,
    );
  };
}

export interface ReadinessServerOptions {
  /** Host without brackets ("0.0.0.0", "::1"). */
  hostname: string;
  /** 0 picks a free port (tests). */
  port: number;
  source: ReadinessSource;
  logger: Logger;
}

/** Starts the probe listener; throws HttpListenerError when it cannot bind. */
export function startReadinessServer(
  opts: ReadinessServerOptions,
): HttpListener {
  const listener = listenHttp({
    name: "edge probes",
    setting: "--ready",
    hostname: opts.hostname,
    port: opts.port,
    logger: opts.logger,
    handler: readinessHandler(opts.source),
  });
  opts.logger.info("Serving edge probes", {
    address: `${listener.addr.hostname}:${listener.addr.port}`,
    paths: Object.values(READY_PATHS).join(","),
  });
  return listener;
}
