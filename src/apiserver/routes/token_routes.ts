/**
 * The API token routes: list, make and revoke tokens, the caller's own or,
 * for admins, anyone's. A token's hash never leaves the server; its text is
 * shown once, in the answer that made it.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { KObject } from "../../api/v1alpha1/meta.ts";
import type { APIToken, TokenScope } from "../../api/v1alpha1/auth_kinds.ts";
import { ACCOUNTS_MANAGER } from "../../auth/accounts.ts";
import { createToken, findToken } from "../../auth/tokens.ts";
import { validateTokenScopes } from "../../rbac/validate.ts";
import { authenticatedOf } from "../authenticated.ts";
import { ok } from "../envelope.ts";
import { ApiError } from "../errors.ts";
import { jsonBody, objectBody } from "../json_body.ts";
import type { RoutesTable } from "../routes_table.ts";
import { requestOrigin } from "../request_origin.ts";
import { type AccountRoutesDeps, anyAnswer, listAll } from "./account_parts.ts";
import { errorResponses } from "./openapi_parts.ts";

/** The API token routes. */
export function tokenRoutes(
  routes: RoutesTable,
  deps: AccountRoutesDeps,
): void {
  const ownerOf = (c: Context) => {
    const who = authenticatedOf(c)!;
    return { kind: who.principal.kind, name: who.principal.name };
  };
  routes.define({
    method: "get",
    path: "/api/v1/tokens",
    guard: { resource: "tokens", verb: "list", self: () => true },
    openapi: {
      tags: ["Accounts"],
      summary:
        "List API tokens: the caller's, or everyone's for admins and auditors",
      responses: anyAnswer,
    },
  }, async (c) => {
    const all = await deps.mayManageAllTokens(c, "list");
    const owner = ownerOf(c);
    const tokens = (await listAll(deps.store, "APIToken") as APIToken[])
      .filter((t) => all || sameOwner(t, owner))
      .map(publicToken);
    return ok(c, { items: tokens });
  });
  routes.define({
    method: "post",
    path: "/api/v1/tokens",
    guard: { resource: "tokens", verb: "create", self: () => true },
    openapi: {
      tags: ["Accounts"],
      summary: "Make an API token; its text is in this answer only",
      description:
        '`scopes` narrows it below its owner\'s rights: `[{"role": "viewer"}]` makes a read-only token. `owner` (a service account) needs an admin.',
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({
                description: z.string().optional(),
                scopes: z.array(z.object({
                  role: z.string(),
                  scope: z.object({
                    kind: z.enum(["cluster", "zone"]),
                    name: z.string().optional(),
                  }).optional(),
                })).optional(),
                expiresInSeconds: z.number().int().positive().optional(),
                owner: z.object({
                  kind: z.literal("ServiceAccount"),
                  name: z.string(),
                }).optional(),
              }),
            },
          },
        },
      },
      responses: { ...anyAnswer, 201: anyAnswer[200] },
    },
  }, async (c) => {
    const body = objectBody(await jsonBody(c));
    const known = ["description", "scopes", "expiresInSeconds", "owner"];
    const unknown = Object.keys(body).filter((k) => !known.includes(k));
    if (unknown.length > 0) {
      throw new ApiError("unknown_field", `${unknown[0]}: unknown field`, {
        details: {
          issues: unknown.map((k) => ({ path: k, message: "unknown field" })),
        },
      });
    }
    const scopes = (body.scopes ?? []) as TokenScope[];
    const issues = Array.isArray(scopes)
      ? validateTokenScopes(scopes)
      : [{ path: "scopes", message: "must be a list" }];
    if (issues.length > 0) {
      throw new ApiError(
        "invalid",
        `${issues[0]!.path}: ${issues[0]!.message}`,
        { details: { issues } },
      );
    }
    let owner = ownerOf(c) as { kind: "User" | "ServiceAccount"; name: string };
    if (body.owner !== undefined) {
      const given = objectBody(body.owner);
      if (given.kind !== "ServiceAccount" || typeof given.name !== "string") {
        throw new ApiError("invalid", "owner must be a service account", {
          details: {
            issues: [{
              path: "owner",
              message: "must be {kind: ServiceAccount, name}",
            }],
          },
        });
      }
      if (!await deps.mayManageAllTokens(c, "create")) {
        throw new ApiError(
          "forbidden",
          "Only an admin may make a token for a service account",
          {
            details: {
              missing: { resource: "tokens", verb: "create", scope: "cluster" },
            },
          },
        );
      }
      await deps.store.get({
        kind: "ServiceAccount",
        namespace: "",
        name: given.name,
      });
      owner = { kind: "ServiceAccount", name: given.name };
    }
    const expiresAt = tokenExpiry(body.expiresInSeconds, deps);
    const made = await createToken(deps.store, {
      owner,
      description: typeof body.description === "string" ? body.description : "",
      scopes,
      ...(expiresAt !== undefined && { expiresAt }),
    }, requestOrigin(c));
    c.header("Location", `/api/v1/tokens/${made.token.metadata.name}`);
    return ok(c, { ...publicToken(made.token), token: made.text }, 201);
  });
  routes.define({
    method: "delete",
    path: "/api/v1/tokens/{id}",
    guard: { resource: "tokens", verb: "delete", self: () => true },
    openapi: {
      tags: ["Accounts"],
      summary: "Revoke an API token",
      request: { params: z.object({ id: z.string() }) },
      responses: { 204: { description: "Revoked" }, ...errorResponses },
    },
  }, async (c) => {
    const id = c.req.param("id")!;
    const token = await findToken(deps.store, id);
    const mine = token !== undefined && sameOwner(token, ownerOf(c));
    if (
      token === undefined ||
      (!mine && !await deps.mayManageAllTokens(c, "delete"))
    ) {
      throw new ApiError("not_found", `APIToken "${id}" not found`);
    }
    await deps.store.delete({ kind: "APIToken", namespace: "", name: id }, {
      manager: ACCOUNTS_MANAGER,
      ...requestOrigin(c),
    });
    return c.body(null, 204);
  });
}

/** A token without its secret's hash. */
function publicToken(token: APIToken): Record<string, unknown> {
  const spec = token.spec!;
  return {
    id: token.metadata.name,
    owner: spec.owner,
    description: spec.description,
    scopes: spec.scopes,
    expiresAt: spec.expiresAt,
    createdAt: token.metadata.creationTimestamp,
    lastUsedAt: token.status?.lastUsedAt,
    lastUsedFrom: token.status?.lastUsedFrom,
  };
}

function sameOwner(
  token: KObject,
  owner: { kind: string; name: string },
): boolean {
  const o = (token as APIToken).spec!.owner;
  return o.kind === owner.kind && o.name === owner.name;
}

function tokenExpiry(
  seconds: unknown,
  deps: AccountRoutesDeps,
): string | undefined {
  const max = deps.maxTokenLifetimeMs;
  if (seconds === undefined) {
    return max > 0 ? new Date(deps.now() + max).toISOString() : undefined;
  }
  if (
    typeof seconds !== "number" || !Number.isInteger(seconds) || seconds <= 0
  ) {
    throw new ApiError(
      "invalid",
      "expiresInSeconds must be a positive whole number",
      {
        details: {
          issues: [{
            path: "expiresInSeconds",
            message: "must be a positive whole number",
          }],
        },
      },
    );
  }
  if (max > 0 && seconds * 1000 > max) {
    throw new ApiError(
      "invalid",
      `A token may live at most ${max / 1000} s (auth.tokens.maxLifetime)`,
      {
        details: {
          issues: [{
            path: "expiresInSeconds",
            message: `must be at most ${max / 1000}`,
          }],
        },
      },
    );
  }
  return new Date(deps.now() + seconds * 1000).toISOString();
}
