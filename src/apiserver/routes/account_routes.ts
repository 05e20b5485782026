/**
 * Users, service accounts, API tokens and role bindings. Password hashes,
 * TOTP secrets and token hashes never leave the server: what is listed here
 * is the rest. A token's text is shown once, in the answer that made it.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { API_VERSION, type KObject } from "../../api/v1alpha1/meta.ts";
import type {
  APIToken,
  TokenScope,
  User,
} from "../../api/v1alpha1/auth_kinds.ts";
import {
  ACCOUNTS_MANAGER,
  createUser,
  findUser,
  removeTotp,
  setPassword,
  updateUser,
  userSummary,
} from "../../auth/accounts.ts";
import {
  PasswordHashingBusyError,
  passwordProblem,
  PasswordRefusedError,
  verifyPassword,
} from "../../auth/password.ts";
import { createToken, findToken } from "../../auth/tokens.ts";
import type { Binding } from "../../rbac/binding.ts";
import { validateBinding, validateTokenScopes } from "../../rbac/validate.ts";
import { NotFoundError, type Store } from "../../store/store.ts";
import { authenticatedOf } from "../authenticated.ts";
import { ok } from "../envelope.ts";
import { ApiError } from "../errors.ts";
import { jsonBody, objectBody } from "../json_body.ts";
import type { RoutesTable } from "../routes_table.ts";
import { requestOrigin } from "../request_origin.ts";
import { errorResponses } from "./openapi_parts.ts";

export interface AccountRoutesDeps {
  store: Store;
  now: () => number;
  /** `auth.tokens.maxLifetime` in ms; 0: no limit. */
  maxTokenLifetimeMs: number;
  /** The configuration's bindings, listed beside the API's (read-only). */
  configuredBindings: readonly Binding[];
  /** A RoleBinding changed: the permission checks read them again. */
  bindingsChanged(): void;
  /** Whether the caller may do `verb` on `tokens` for someone else. */
  mayManageAllTokens(
    c: Context,
    verb: "list" | "delete" | "create",
  ): Promise<boolean>;
}

const anyAnswer = {
  200: {
    description: "OK",
    content: {
      "application/json": {
        schema: z.object({ data: z.unknown(), took_ms: z.number() }),
      },
    },
  },
  ...errorResponses,
};

/** The account routes. */
export function accountRoutes(deps: AccountRoutesDeps) {
  return (routes: RoutesTable): void => {
    userRoutes(routes, deps);
    serviceAccountRoutes(routes, deps);
    tokenRoutes(routes, deps);
    bindingRoutes(routes, deps);
  };
}

function userRoutes(routes: RoutesTable, deps: AccountRoutesDeps): void {
  const name = z.object({ name: z.string() });
  const isSelf = (c: Context) => {
    const who = authenticatedOf(c);
    return who?.principal.kind === "User" &&
      who.principal.name === c.req.param("name");
  };
  routes.define(
    {
      method: "get",
      path: "/api/v1/users",
      guard: { resource: "users", verb: "list" },
      openapi: {
        tags: ["Accounts"],
        summary: "List users",
        responses: anyAnswer,
      },
    },
    async (c) =>
      ok(c, {
        items: (await listAll(deps.store, "User")).map((u) =>
          userSummary(u as User)
        ),
      }),
  );
  routes.define({
    method: "post",
    path: "/api/v1/users",
    guard: { resource: "users", verb: "create" },
    openapi: {
      tags: ["Accounts"],
      summary: "Create a local user",
      description: "The user must change the password at the first login.",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({
                name: z.string(),
                password: z.string(),
                displayName: z.string().optional(),
              }),
            },
          },
        },
      },
      responses: { ...anyAnswer, 201: anyAnswer[200] },
    },
  }, async (c) => {
    const body = objectBody(await jsonBody(c));
    const name = field(body, "name");
    const password = field(body, "password");
    requireGoodPassword(password, name);
    if (await findUser(deps.store, name) !== undefined) {
      throw new ApiError("conflict", `User "${name}" already exists`);
    }
    const user = await createUser(deps.store, name, password, {
      mustChangePassword: true,
      ...(typeof body.displayName === "string" &&
        { displayName: body.displayName }),
    }, requestOrigin(c));
    c.header("Location", `/api/v1/users/${name}`);
    return ok(c, userSummary(user), 201);
  });
  routes.define(
    {
      method: "get",
      path: "/api/v1/users/{name}",
      guard: { resource: "users", verb: "get", self: isSelf },
      openapi: {
        tags: ["Accounts"],
        summary: "Read a user",
        request: { params: name },
        responses: anyAnswer,
      },
    },
    async (c) =>
      ok(c, userSummary(await mustFindUser(deps.store, c.req.param("name")!))),
  );
  routes.define({
    method: "patch",
    path: "/api/v1/users/{name}",
    guard: { resource: "users", verb: "update", self: isSelf },
    openapi: {
      tags: ["Accounts"],
      summary:
        "Change a user: display name; for admins also disabled and a password reset",
      request: {
        params: name,
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({
                displayName: z.string().optional(),
                disabled: z.boolean().optional(),
                password: z.string().optional(),
              }),
            },
          },
        },
      },
      responses: anyAnswer,
    },
  }, async (c) => {
    const body = objectBody(await jsonBody(c));
    const user = await mustFindUser(deps.store, c.req.param("name")!);
    const self = isSelf(c);
    const admin = await deps.mayManageAllTokens(c, "create");
    const unknown = Object.keys(body).filter((k) =>
      !["displayName", "disabled", "password"].includes(k)
    );
    if (unknown.length > 0) {
      throw new ApiError("unknown_field", `${unknown[0]}: unknown field`, {
        details: {
          issues: unknown.map((k) => ({ path: k, message: "unknown field" })),
        },
      });
    }
    if (
      (body.disabled !== undefined || body.password !== undefined) &&
      (!admin || self)
    ) {
      throw new ApiError(
        "forbidden",
        "Only an admin may disable a user or reset a password",
        {
          hint: self
            ? "change your own password with POST /api/v1/auth/password"
            : undefined,
          details: {
            missing: { resource: "users", verb: "update", scope: "cluster" },
          },
        },
      );
    }
    let saved: User = user;
    if (typeof body.password === "string") {
      requireGoodPassword(body.password, user.metadata.name);
      saved = await setPassword(deps.store, saved, body.password, {
        ...requestOrigin(c),
        resetByAdmin: true,
        now: deps.now(),
      });
    }
    const change: Partial<NonNullable<User["spec"]>> = {};
    if (typeof body.displayName === "string") {
      change.displayName = body.displayName;
    }
    if (typeof body.disabled === "boolean") {
      change.disabled = body.disabled;
      if (body.disabled) {
        change.sessionsValidAfter = new Date(deps.now()).toISOString();
      }
    }
    if (Object.keys(change).length > 0) {
      saved = await updateUser(deps.store, saved, change, requestOrigin(c));
    }
    return ok(c, userSummary(saved));
  });
  routes.define({
    method: "delete",
    path: "/api/v1/users/{name}/totp",
    guard: { resource: "users", verb: "update", self: isSelf },
    openapi: {
      tags: ["Accounts"],
      summary: "Remove a user's TOTP (a lost authenticator)",
      description:
        "The next login needs no code, and the user may set TOTP up again. Removing one's own needs the current `password` in the body (a session alone must not drop the second factor); an admin removing another user's needs no body. Sessions go on.",
      request: {
        params: name,
        body: {
          required: false,
          content: {
            "application/json": {
              schema: z.object({ password: z.string().optional() }),
            },
          },
        },
      },
      responses: {
        204: { description: "TOTP is off (also when it was not on)" },
        ...errorResponses,
      },
    },
  }, async (c) => {
    const body = await optionalObjectBody(c);
    const unknown = Object.keys(body).filter((k) => k !== "password");
    if (unknown.length > 0) {
      throw new ApiError("unknown_field", `${unknown[0]}: unknown field`, {
        details: {
          issues: unknown.map((k) => ({ path: k, message: "unknown field" })),
        },
      });
    }
    const user = await mustFindUser(deps.store, c.req.param("name")!);
    if (isSelf(c)) await requireOwnPassword(user, body.password);
    if (user.spec!.totp !== undefined) {
      await removeTotp(deps.store, user, requestOrigin(c));
    }
    return c.body(null, 204);
  });
  routes.define({
    method: "delete",
    path: "/api/v1/users/{name}",
    guard: { resource: "users", verb: "delete" },
    openapi: {
      tags: ["Accounts"],
      summary: "Delete a user",
      request: { params: name },
      responses: { 204: { description: "Deleted" }, ...errorResponses },
    },
  }, async (c) => {
    const target = c.req.param("name")!;
    if (isSelf(c)) {
      throw new ApiError("bad_request", "A user cannot delete itself", {
        hint: "another admin can",
      });
    }
    await deps.store.delete({ kind: "User", namespace: "", name: target }, {
      manager: ACCOUNTS_MANAGER,
      ...requestOrigin(c),
    });
    return c.body(null, 204);
  });
}

function serviceAccountRoutes(
  routes: RoutesTable,
  deps: AccountRoutesDeps,
): void {
  routes.define(
    {
      method: "get",
      path: "/api/v1/serviceaccounts",
      guard: { resource: "serviceaccounts", verb: "list" },
      openapi: {
        tags: ["Accounts"],
        summary: "List service accounts",
        responses: anyAnswer,
      },
    },
    async (c) => ok(c, { items: await listAll(deps.store, "ServiceAccount") }),
  );
  routes.define({
    method: "post",
    path: "/api/v1/serviceaccounts",
    guard: { resource: "serviceaccounts", verb: "create" },
    openapi: {
      tags: ["Accounts"],
      summary: "Create a service account: it owns tokens and never logs in",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({
                name: z.string(),
                description: z.string().optional(),
              }),
            },
          },
        },
      },
      responses: { ...anyAnswer, 201: anyAnswer[200] },
    },
  }, async (c) => {
    const body = objectBody(await jsonBody(c));
    const name = field(body, "name");
    const saved = await deps.store.apply({
      apiVersion: API_VERSION,
      kind: "ServiceAccount",
      metadata: { name },
      spec: {
        description: typeof body.description === "string"
          ? body.description
          : "",
      },
    }, { manager: ACCOUNTS_MANAGER, ...requestOrigin(c) });
    c.header("Location", `/api/v1/serviceaccounts/${name}`);
    return ok(c, saved, 201);
  });
  routes.define({
    method: "delete",
    path: "/api/v1/serviceaccounts/{name}",
    guard: { resource: "serviceaccounts", verb: "delete" },
    openapi: {
      tags: ["Accounts"],
      summary: "Delete a service account (its tokens stop working)",
      request: { params: z.object({ name: z.string() }) },
      responses: { 204: { description: "Deleted" }, ...errorResponses },
    },
  }, async (c) => {
    await deps.store.delete(
      { kind: "ServiceAccount", namespace: "", name: c.req.param("name")! },
      { manager: ACCOUNTS_MANAGER, ...requestOrigin(c) },
    );
    return c.body(null, 204);
  });
}

function tokenRoutes(routes: RoutesTable, deps: AccountRoutesDeps): void {
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

function bindingRoutes(routes: RoutesTable, deps: AccountRoutesDeps): void {
  routes.define({
    method: "get",
    path: "/api/v1/rolebindings",
    guard: { resource: "rolebindings", verb: "list" },
    openapi: {
      tags: ["Accounts"],
      summary:
        "List role bindings: the API's, and the configuration's (read-only)",
      responses: anyAnswer,
    },
  }, async (c) =>
    ok(c, {
      items: await listAll(deps.store, "RoleBinding"),
      configured: deps.configuredBindings,
    }));
  routes.define({
    method: "post",
    path: "/api/v1/rolebindings",
    guard: { resource: "rolebindings", verb: "create" },
    openapi: {
      tags: ["Accounts"],
      summary: "Bind a role to users, groups or service accounts",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.object({
                name: z.string(),
                role: z.string(),
                scope: z.object({
                  kind: z.string(),
                  name: z.string().optional(),
                }).optional(),
                subjects: z.array(
                  z.object({ kind: z.string(), name: z.string() }),
                ),
              }),
            },
          },
        },
      },
      responses: { ...anyAnswer, 201: anyAnswer[200] },
    },
  }, async (c) => {
    const body = objectBody(await jsonBody(c));
    const name = field(body, "name");
    const binding = {
      role: body.role,
      scope: body.scope ?? { kind: "cluster" },
      subjects: body.subjects,
    } as Binding;
    const issues = validateBinding(binding);
    if (issues.length > 0) {
      throw new ApiError(
        "invalid",
        `${issues[0]!.path}: ${issues[0]!.message}`,
        { details: { issues } },
      );
    }
    const saved = await deps.store.apply({
      apiVersion: API_VERSION,
      kind: "RoleBinding",
      metadata: { name },
      spec: binding,
    }, { manager: ACCOUNTS_MANAGER, ...requestOrigin(c) });
    deps.bindingsChanged();
    c.header("Location", `/api/v1/rolebindings/${name}`);
    return ok(c, saved, 201);
  });
  routes.define({
    method: "delete",
    path: "/api/v1/rolebindings/{name}",
    guard: { resource: "rolebindings", verb: "delete" },
    openapi: {
      tags: ["Accounts"],
      summary: "Delete a role binding",
      request: { params: z.object({ name: z.string() }) },
      responses: { 204: { description: "Deleted" }, ...errorResponses },
    },
  }, async (c) => {
    await deps.store.delete(
      { kind: "RoleBinding", namespace: "", name: c.req.param("name")! },
      { manager: ACCOUNTS_MANAGER, ...requestOrigin(c) },
    );
    deps.bindingsChanged();
    return c.body(null, 204);
  });
}

async function listAll(store: Store, kind: string): Promise<KObject[]> {
  const out: KObject[] = [];
  let token: string | undefined;
  do {
    const page = await store.list(kind, {
      limit: 500,
      ...(token !== undefined && { continue: token }),
    });
    out.push(...page.items);
    token = page.continue;
  } while (token !== undefined);
  return out;
}

async function mustFindUser(store: Store, name: string): Promise<User> {
  const user = await findUser(store, name);
  if (user === undefined) {
    throw new NotFoundError({ kind: "User", namespace: "", name });
  }
  return user;
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

function requireGoodPassword(password: string, user: string): void {
  const problem = passwordProblem(password, user);
  if (problem !== undefined) {
    throw new ApiError("invalid", `The password ${problem}`, {
      details: { issues: [{ path: "password", message: problem }] },
    });
  }
}

/** The body as an object; none at all (no type, nothing sent) is `{}`. */
async function optionalObjectBody(
  c: Context,
): Promise<Record<string, unknown>> {
  if (
    c.req.header("content-type") === undefined && await c.req.text() === ""
  ) {
    return {};
  }
  return objectBody(await jsonBody(c));
}

/**
 * Refuses unless `password` is `user`'s current one: what a user removing
 * its own second factor must show beyond a session or a token.
 */
async function requireOwnPassword(user: User, password: unknown) {
  const refuse = (message: string, issue: string) =>
    new ApiError("invalid", message, {
      details: { issues: [{ path: "password", message: issue }] },
    });
  if (typeof password !== "string" || password === "") {
    throw refuse(
      "password is required: removing your own TOTP needs your current password",
      "is required (your current password)",
    );
  }
  const hash = user.spec!.passwordHash;
  if (hash === undefined) {
    throw new ApiError(
      "bad_request",
      "A user without a local password cannot remove its own TOTP",
      { hint: "an admin can remove it for you" },
    );
  }
  let ok: boolean;
  try {
    ok = await verifyPassword(password, hash);
  } catch (error) {
    if (error instanceof PasswordHashingBusyError) {
      throw new ApiError(
        "unavailable",
        "Too many logins at once; try again shortly",
        {
          headers: { "Retry-After": String(error.retryAfterSeconds) },
        },
      );
    }
    if (!(error instanceof PasswordRefusedError)) throw error;
    ok = false;
  }
  if (!ok) {
    throw refuse(
      "The current password is wrong",
      "is not the current password",
    );
  }
}

function field(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== "string" || value === "") {
    throw new ApiError("invalid", `${name} is required`, {
      details: { issues: [{ path: name, message: "is required (a string)" }] },
    });
  }
  return value;
}
