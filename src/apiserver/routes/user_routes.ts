/**
 * The user routes: list, create, read, change and delete local users, and
 * remove a user's TOTP. Password hashes and TOTP secrets never leave the
 * server: what is listed here is the rest.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { User } from "../../api/v1alpha1/auth_kinds.ts";
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
import { NotFoundError, type Store } from "../../store/store.ts";
import { authenticatedOf } from "../authenticated.ts";
import { ok } from "../envelope.ts";
import { ApiError } from "../errors.ts";
import { jsonBody, objectBody } from "../json_body.ts";
import type { RoutesTable } from "../routes_table.ts";
import { offMainThread } from "../busy_budget.ts";
import { requestOrigin } from "../request_origin.ts";
import {
  type AccountRoutesDeps,
  anyAnswer,
  field,
  listAll,
} from "./account_parts.ts";
import { errorResponses } from "./openapi_parts.ts";

/** The user routes. */
export function userRoutes(routes: RoutesTable, deps: AccountRoutesDeps): void {
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
    const user = await offMainThread(
      c,
      createUser(deps.store, name, password, {
        mustChangePassword: true,
        ...(typeof body.displayName === "string" &&
          { displayName: body.displayName }),
      }, requestOrigin(c)),
    );
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
      saved = await offMainThread(
        c,
        setPassword(deps.store, saved, body.password, {
          ...requestOrigin(c),
          resetByAdmin: true,
          now: deps.now(),
        }),
      );
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
    if (isSelf(c)) {
      await offMainThread(c, requireOwnPassword(user, body.password));
    }
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
    // A user made again under this name must not get these sessions back.
    await deps.sessionRecords.forget(target, requestOrigin(c));
    return c.body(null, 204);
  });
}

async function mustFindUser(store: Store, name: string): Promise<User> {
  const user = await findUser(store, name);
  if (user === undefined) {
    throw new NotFoundError({ kind: "User", namespace: "", name });
  }
  return user;
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
