/**
 * The HTTP API as a Hono app (docs/api.md): the conventions every route
 * shares (envelope, errors, security headers, authentication, the guard
 * each route declares) and the route modules. api_server.ts serves it.
 */
import { BUSY_BUDGET, type BusyBudget } from "./busy_budget.ts";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Logger } from "../log/logger.ts";
import { bodyLimit } from "hono/body-limit";
import { MAX_ZONE_FILE_BYTES } from "../zone/zone_file_parse.ts";
import { ApiError, ERROR_KEYS, fromStoreError } from "./errors.ts";
import { failed, STARTED } from "./envelope.ts";
import { MAX_BODY_BYTES, MAX_RESTORE_BYTES } from "./json_body.ts";
import { type GuardCheck, RoutesTable } from "./routes_table.ts";
import { AUTHENTICATED, type Authenticated } from "./authenticated.ts";
import { VERSION } from "../version.ts";

/** Who the caller is, from a session cookie or a token; undefined: anonymous. */
export type Authenticate = (c: Context) => Promise<Authenticated | undefined>;

/** What the app needs besides its routes. */
export interface AppOptions {
  logger: Logger;
  authenticate: Authenticate;
  /** Checks a route's guard for the caller (routes_table.ts). */
  check: GuardCheck;
  /** Whether the API is served over TLS (HSTS, Secure cookies). */
  tls: boolean;
  /** listeners.api.pathPrefix ("/dns"), for the document's server URL. @default "" */
  pathPrefix?: string;
  /** The share of the main thread requests may take. @default no limit */
  budget?: BusyBudget;
  /**
   * What a GET with no route gets before the API's 404: the web UI's page
   * for a path of the app (ui_routes.ts uiFallback).
   */
  fallback?: (c: Context) => Response | undefined;
}

/** A route module: defines its routes on the table. */
export type RouteModule = (routes: RoutesTable) => void;

/** The app and the table of its routes. */
export interface ApiApp {
  app: OpenAPIHono;
  routes: RoutesTable;
}

/** Builds the app with `modules`' routes and the OpenAPI document at /api/v1/openapi.json. */
export function createApiApp(
  opts: AppOptions,
  modules: readonly RouteModule[],
): ApiApp {
  const app = new OpenAPIHono();
  app.use("*", async (c, next) => {
    c.set(STARTED as never, performance.now() as never);
    securityHeaders(c, opts.tls);
    const who = await opts.authenticate(c);
    if (who !== undefined) c.set(AUTHENTICATED as never, who as never);
    await next();
  });
  // After authentication, so an anonymous flood waits behind nobody's
  // credentials but its own; what a request costs counts against the
  // share (busy_budget.ts). A stream's body (the tail, exports) is sent
  // after this returns: its parts count on their own.
  const budget = opts.budget;
  if (budget?.limits) {
    app.use("*", async (c, next) => {
      const admitted = await budget.admit();
      if (!admitted.ok) {
        throw new ApiError("unavailable", "The API is busy", {
          hint:
            "requests take more of the CPU than listeners.api.cpuPercent allows; retry later",
          headers: { "Retry-After": String(admitted.retryAfterSeconds) },
        });
      }
      c.set(BUSY_BUDGET as never, budget as never);
      await budget.run(next);
    });
  }
  // Counted as it arrives, chunked uploads too: a huge body is refused
  // before it is held in memory. A zone file and an export to restore may
  // be larger than a JSON body.
  app.use("*", (c, next) => {
    const post = c.req.method === "POST";
    const maxSize = post &&
        /^\/api\/v1\/dnszones\/[^/]+\/zonefile$/.test(c.req.path)
      ? MAX_ZONE_FILE_BYTES
      : post && c.req.path === "/api/v1/restore"
      ? MAX_RESTORE_BYTES
      : MAX_BODY_BYTES;
    return bodyLimit({
      maxSize,
      onError: () => {
        throw new ApiError(
          "body_too_large",
          `The body is larger than ${maxSize} bytes`,
        );
      },
    })(c, next);
  });
  app.onError((error, c) => {
    const mapped = fromStoreError(error);
    if (mapped instanceof ApiError) return failed(c, mapped);
    opts.logger.error("API request failed", {
      method: c.req.method,
      path: c.req.path,
      error,
    });
    return failed(
      c,
      new ApiError("internal", "Internal error", {
        hint: "the server log has the details",
      }),
    );
  });
  app.notFound((c) =>
    opts.fallback?.(c) ??
      failed(
        c,
        new ApiError("not_found", `No route ${c.req.method} ${c.req.path}`),
      )
  );
  const routes = new RoutesTable(app, opts.check);
  for (const module of modules) module(routes);
  app.doc31("/api/v1/openapi.json", {
    openapi: "3.1.0",
    // Clients (the docs page's "try it") send requests below the prefix.
    servers: [{ url: opts.pathPrefix || "/" }],
    info: {
      title: "kudurru API",
      version: VERSION,
      description: "The management API of kudurru. Errors: " +
        Object.entries(ERROR_KEYS).map(([key, e]) =>
          `\`${key}\` (${e.status}): ${e.means}`
        ).join("; ") + ".",
    },
  });
  return { app, routes };
}

/**
 * Headers every answer carries: nothing is framed, sniffed or loaded from
 * elsewhere; over TLS browsers stay on HTTPS.
 */
function securityHeaders(c: Context, tls: boolean): void {
  c.header(
    "Content-Security-Policy",
    "default-src 'self'; frame-ancestors 'none'",
  );
  c.header("X-Content-Type-Options", "nosniff");
  c.header("X-Frame-Options", "DENY");
  c.header("Referrer-Policy", "same-origin");
  c.header("Cache-Control", "no-store");
  if (tls) {
    c.header("Strict-Transport-Security", "max-age=31536000");
  }
}
