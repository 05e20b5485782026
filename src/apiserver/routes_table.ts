/**
 * How the API declares a route: its OpenAPI description and, on every
 * route, what it needs (a resource, a verb and a scope, checked against the
 * permissions table before the handler runs) or that it is public. One
 * table keeps them all, so a test can hold every route to it and the
 * OpenAPI document can say what each one needs.
 */
import type { RouteConfig } from "@hono/zod-openapi";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Resource, Verb } from "../rbac/permissions.ts";
import type { ScopeRequest } from "../rbac/scope.ts";
import { routeSecurityNote } from "../rbac/roles_table.ts";

/** What a route needs from its caller. */
export type RouteGuard =
  | {
    resource: Resource;
    verb: Verb;
    /**
     * The scope the request acts on. @default cluster. "any": the verb at
     * any scope will do, and the handler keeps only what the caller may
     * see (lists of zone-scoped kinds).
     */
    scope?: (c: Context) => GuardScope | Promise<GuardScope>;
    /** The object is the caller's own (its user, tokens, sessions). */
    self?: (c: Context) => boolean | Promise<boolean>;
    /** Allowed before a required password change (the change itself, logout). */
    duringPasswordChange?: true;
  }
  | {
    /** Anyone may call it (login, the API's own description). */
    public: true;
    /** Why, for the docs and the reader. */
    because: string;
  };

/** The scope a guard checks. */
export type GuardScope = ScopeRequest | { kind: "any" };

/** A route as the API defines it. */
export interface ApiRoute {
  method: RouteConfig["method"];
  /** OpenAPI form: `/api/v1/dnszones/{name}`. */
  path: string;
  guard: RouteGuard;
  /** Everything else OpenAPI says about it (summary, parameters, responses). */
  openapi: Omit<RouteConfig, "method" | "path">;
}

/** Runs after the guard allowed the request. */
export type RouteHandler = (c: Context) => Promise<Response> | Response;

/** Checks a guard for one request; throws an ApiError when it fails. */
export type GuardCheck = (c: Context, guard: RouteGuard) => Promise<void>;

/** Every route defined so far, in order. */
export class RoutesTable {
  readonly routes: ApiRoute[] = [];

  constructor(
    private readonly app: OpenAPIHono,
    private readonly check: GuardCheck,
  ) {}

  /** Registers `route` with Hono and with the OpenAPI document. */
  define(route: ApiRoute, handler: RouteHandler): void {
    this.routes.push(route);
    this.app.openAPIRegistry.registerPath({
      ...route.openapi,
      method: route.method,
      path: route.path,
      description: [route.openapi.description, guardText(route.guard)]
        .filter(Boolean).join("\n\n"),
      ...("public" in route.guard ? { security: [] } : {}),
    } as RouteConfig);
    const guard = route.guard;
    this.app.on(
      route.method.toUpperCase(),
      honoPath(route.path),
      async (c) => {
        await this.check(c, guard);
        return await handler(c);
      },
    );
  }
}

/** `/a/{b}/c` → `/a/:b/c`. */
export function honoPath(openapiPath: string): string {
  return openapiPath.replace(/\{([^}]+)\}/g, ":$1");
}

/** What the OpenAPI description says a route needs. */
export function guardText(guard: RouteGuard): string {
  if ("public" in guard) return `Public: ${guard.because}.`;
  return `${routeSecurityNote(guard.resource, guard.verb)}.`;
}
