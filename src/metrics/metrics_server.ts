/**
 * The metrics listener (`listeners.metrics.address`, default
 * 0.0.0.0:9153): GET /metrics answers the registry in the Prometheus text
 * format; every other path is 404. No auth, like CoreDNS's :9153: metric
 * labels never carry client addresses or query names.
 */
import type { Logger } from "../log/logger.ts";
import {
  badRequestUrl,
  type HttpListener,
  listenHttp,
  rejectUnlessGetOrHead,
  requestPath,
} from "./http_listener.ts";
import type { Registry } from "./registry.ts";

export interface MetricsServerOptions {
  /** Host without brackets ("0.0.0.0", "::1"). */
  hostname: string;
  /** 0 picks an ephemeral port (tests). */
  port: number;
  registry: Registry;
  logger: Logger;
}

/** Starts the metrics listener; throws HttpListenerError when it cannot bind. */
export function startMetricsServer(opts: MetricsServerOptions): HttpListener {
  const { registry, logger } = opts;
  const listener = listenHttp({
    name: "metrics",
    setting: "listeners.metrics.address",
    hostname: opts.hostname,
    port: opts.port,
    logger,
    async handler(request) {
      const pathname = requestPath(request);
      if (pathname === undefined) return badRequestUrl();
      if (pathname !== "/metrics") {
        return new Response("not found; metrics are at /metrics\n", {
          status: 404,
        });
      }
      const rejected = rejectUnlessGetOrHead(request);
      if (rejected) return rejected;
      try {
        // HEAD collects too: its content-length must be the one GET sends.
        return new Response(await registry.metrics(), {
          headers: { "content-type": registry.contentType },
        });
      } catch (error) {
        // A collect callback that throws costs the scrape, not the server.
        logger.error("Cannot collect metrics", { error });
        return new Response("cannot collect metrics\n", { status: 500 });
      }
    },
  });
  logger.info("Serving metrics", {
    address: `${listener.addr.hostname}:${listener.addr.port}`,
    path: "/metrics",
  });
  return listener;
}
