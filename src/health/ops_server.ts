/**
 * The ops listener (`listeners.ops.address`, default 0.0.0.0:8081, no
 * auth): Kubernetes probes and `kudurru health`.
 *
 *   GET /healthz/live     200 while the process serves HTTP at all
 *   GET /healthz/startup  503 until startup is over, then 200
 *   GET /healthz/ready    200 when started, not in lameduck and every
 *                         registered check is ready; 503 otherwise
 *
 * Bodies are JSON; /healthz/ready lists every check with its reason. Only
 * health is served here: nothing that changes state, since there is no auth.
 */
import type { Logger } from "../log/logger.ts";
import {
  badRequestUrl,
  type HttpListener,
  listenHttp,
  rejectUnlessGetOrHead,
  requestPath,
} from "../metrics/http_listener.ts";
import type { Health } from "./health.ts";

export interface OpsServerOptions {
  /** Host without brackets ("0.0.0.0", "::1"). */
  hostname: string;
  /** 0 picks an ephemeral port (tests). */
  port: number;
  health: Health;
  logger: Logger;
}

/** The probe paths. */
export const HEALTH_PATHS = {
  live: "/healthz/live",
  startup: "/healthz/startup",
  ready: "/healthz/ready",
} as const;

/** A probe's answer, for GET and HEAD alike (see rejectUnlessGetOrHead). */
function json(body: unknown, ok: boolean): Response {
  return new Response(JSON.stringify(body) + "\n", {
    status: ok ? 200 : 503,
    headers: {
      "content-type": "application/json; charset=utf-8",
      // A probe must see the state now, never a cached one.
      "cache-control": "no-store",
    },
  });
}

/** The ops routes as a fetch handler (for the server and tests). */
export function opsHandler(health: Health): (request: Request) => Response {
  return (request) => {
    const pathname = requestPath(request);
    if (pathname === undefined) return badRequestUrl();
    if (!Object.values(HEALTH_PATHS).includes(pathname as never)) {
      return new Response(
        `not found; probes are ${Object.values(HEALTH_PATHS).join(", ")}\n`,
        { status: 404 },
      );
    }
    const rejected = rejectUnlessGetOrHead(request);
    if (rejected) return rejected;
    switch (pathname) {
      case HEALTH_PATHS.live:
        return json({ live: true }, true);
      case HEALTH_PATHS.startup:
        return json(
          health.started
            ? { started: true }
            : { started: false, reason: health.startupReason },
          health.started,
        );
      default: {
        const report = health.ready();
        return json(report, report.ready);
      }
    }
  };
}

/** Starts the ops listener; throws HttpListenerError when it cannot bind. */
export function startOpsServer(opts: OpsServerOptions): HttpListener {
  const listener = listenHttp({
    name: "health probes",
    setting: "listeners.ops.address",
    hostname: opts.hostname,
    port: opts.port,
    logger: opts.logger,
    handler: opsHandler(opts.health),
  });
  opts.logger.info("Serving health probes", {
    address: `${listener.addr.hostname}:${listener.addr.port}`,
    paths: Object.values(HEALTH_PATHS).join(","),
  });
  return listener;
}
