/**
 * Logging in and out, the caller's status, changing one's password, TOTP
 * and "log out everywhere". Login is limited per client address and per
 * user name (429 with Retry-After), answers the same 401 for an unknown
 * user and a wrong password, and sets a sealed HttpOnly session cookie.
 */
import { requestOrigin } from "../request_origin.ts";
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  checkLogin,
  confirmTotp,
  findUser,
  hasDefaultCredentials,
  setPassword,
  startTotp,
  updateUser,
} from "../../auth/accounts.ts";
import type { LoginLimiter } from "../../auth/login_limits.ts";
import {
  PasswordHashingBusyError,
  passwordProblem,
  PasswordRefusedError,
  verifyPassword,
} from "../../auth/password.ts";
import type { SealingKeys } from "../../auth/sealed.ts";
import {
  newSession,
  type SessionClaims,
  type SessionTimes,
} from "../../auth/sessions.ts";
import type { SessionRecords } from "../../auth/session_records.ts";
import type { User } from "../../api/v1alpha1/auth_kinds.ts";
import type { Binding } from "../../rbac/binding.ts";
import { authorize } from "../../rbac/authorize.ts";
import { isZoneScoped, PERMISSIONS } from "../../rbac/permissions.ts";
import type { ScopeRequest } from "../../rbac/scope.ts";
import type { Principal } from "../../rbac/principal.ts";
import type { Store } from "../../store/store.ts";
import { authenticatedOf } from "../authenticated.ts";
import { clearSessionCookie, setSessionCookie } from "../authentication.ts";
import { ok } from "../envelope.ts";
import { ApiError } from "../errors.ts";
import { jsonBody, objectBody } from "../json_body.ts";
import type { RoutesTable } from "../routes_table.ts";
import { offMainThread } from "../busy_budget.ts";
import { errorResponses } from "./openapi_parts.ts";

export interface AuthRoutesDeps {
  store: Store;
  limiter: LoginLimiter;
  sessionKeys: SealingKeys;
  totpKeys: SealingKeys;
  times: SessionTimes;
  tls: boolean;
  now: () => number;
  /** `auth.localLogin`. */
  localLogin: "enabled" | "admins-only" | "disabled";
  bindings(): Promise<readonly Binding[]>;
  clientAddress(c: Context): string;
  /** Where a new session's id is recorded. */
  records: Pick<SessionRecords, "add" | "end">;
  /** Whether `name` is a user of a configured identity provider. */
  providerUser(name: string): boolean;
}

const loginBody = z.object({
  username: z.string(),
  password: z.string(),
  totp: z.string().optional(),
});

const sessionAnswer = z.object({
  data: z.object({
    user: z.string(),
    mustChangePassword: z.boolean(),
    csrf: z.string().openapi({
      description: "Send it as X-Kudurru-CSRF with every write on this session",
    }),
  }),
  took_ms: z.number(),
});

/** The auth routes. */
export function authRoutes(deps: AuthRoutesDeps) {
  return (routes: RoutesTable): void => {
    routes.define({
      method: "post",
      path: "/api/v1/auth/login",
      guard: { public: true, because: "it is how a session starts" },
      openapi: {
        tags: ["Auth"],
        summary: "Log in with a user name and password (and a TOTP code)",
        request: {
          body: {
            required: true,
            content: { "application/json": { schema: loginBody } },
          },
        },
        responses: {
          200: {
            description: "Logged in; the session cookie is set",
            content: { "application/json": { schema: sessionAnswer } },
          },
          ...errorResponses,
        },
      },
    }, (c) => login(c, deps));

    routes.define({
      method: "post",
      path: "/api/v1/auth/logout",
      guard: { public: true, because: "ending a session needs no rights" },
      openapi: {
        tags: ["Auth"],
        summary: "Log out: the session cookie is cleared",
        responses: { 204: { description: "Logged out" } },
      },
    }, (c) => {
      clearSessionCookie(c, deps.tls);
      return c.body(null, 204);
    });

    routes.define({
      method: "get",
      path: "/api/v1/auth/status",
      guard: {
        public: true,
        because: "the login page asks it before anyone logs in",
      },
      openapi: {
        tags: ["Auth"],
        summary:
          "Who the caller is, and whether the default credentials are still set",
        responses: {
          200: {
            description: "The caller's status",
            content: {
              "application/json": {
                schema: z.object({
                  data: z.object({
                    authenticated: z.boolean(),
                    user: z.string().optional(),
                    kind: z.enum(["User", "ServiceAccount"]).optional(),
                    via: z.string().optional(),
                    provider: z.string().optional().openapi({
                      description:
                        "The identity provider of a user who logged in through one (no password or TOTP here)",
                    }),
                    mustChangePassword: z.boolean().optional(),
                    csrf: z.string().optional(),
                    hasDefaultCredentials: z.boolean(),
                    localLogin: z.string(),
                    permissions: z.record(z.string(), z.array(z.string()))
                      .optional().openapi({
                        description:
                          "What the caller may do across the cluster: resource → verbs (the web UI hides what is not there)",
                      }),
                    zonePermissions: z.record(
                      z.string(),
                      z.record(z.string(), z.array(z.string())),
                    ).optional().openapi({
                      description:
                        "What the caller may do in the zones its bindings name, on top of `permissions`: zone object name → resource → verbs",
                    }),
                  }),
                  took_ms: z.number(),
                }),
              },
            },
          },
        },
      },
    }, async (c) => {
      const who = authenticatedOf(c);
      return ok(c, {
        authenticated: who !== undefined,
        ...(who !== undefined && {
          user: who.principal.name,
          kind: who.principal.kind,
          via: who.principal.via,
          ...(who.principal.kind === "User" &&
            deps.providerUser(who.principal.name) && {
            provider: who.principal.name.slice(
              0,
              who.principal.name.indexOf(":"),
            ),
          }),
        }),
        ...(who?.session !== undefined && {
          mustChangePassword: who.session.mustChangePassword,
          csrf: who.session.csrf,
        }),
        hasDefaultCredentials: await hasDefaultCredentials(deps.store),
        localLogin: deps.localLogin,
        ...(who !== undefined && await permissionsOf(who.principal, deps)),
      });
    });

    routes.define({
      method: "post",
      path: "/api/v1/auth/password",
      guard: {
        resource: "users",
        verb: "update",
        self: () => true,
        duringPasswordChange: true,
      },
      openapi: {
        tags: ["Auth"],
        summary: "Change one's own password",
        description:
          "Every other session of the user ends; this one gets a new cookie.",
        request: {
          body: {
            required: true,
            content: {
              "application/json": {
                schema: z.object({ current: z.string(), new: z.string() }),
              },
            },
          },
        },
        responses: {
          200: {
            description: "Changed",
            content: { "application/json": { schema: sessionAnswer } },
          },
          ...errorResponses,
        },
      },
    }, (c) => changePassword(c, deps));

    routes.define({
      method: "delete",
      path: "/api/v1/auth/sessions",
      guard: { resource: "sessions", verb: "delete", self: () => true },
      openapi: {
        tags: ["Auth"],
        summary: "Log out everywhere: every session of the caller ends",
        responses: {
          204: { description: "Every session ended" },
          ...errorResponses,
        },
      },
    }, async (c) => {
      const who = authenticatedOf(c)!;
      if (
        who.principal.kind === "User" && deps.providerUser(who.principal.name)
      ) {
        // No User object to move sessionsValidAfter on: end every recorded
        // session (its provider's own session is the provider's to end).
        await deps.records.end(
          who.principal.name,
          () => true,
          requestOrigin(c),
          deps.now(),
        );
        clearSessionCookie(c, deps.tls);
        return c.body(null, 204);
      }
      const user = await ownUser(c, deps.store);
      await updateUser(deps.store, user, {
        sessionsValidAfter: new Date(deps.now()).toISOString(),
      }, user.metadata.name);
      clearSessionCookie(c, deps.tls);
      return c.body(null, 204);
    });

    routes.define({
      method: "post",
      path: "/api/v1/auth/totp",
      guard: { resource: "users", verb: "update", self: () => true },
      openapi: {
        tags: ["Auth"],
        summary:
          "Start TOTP enrolment: a secret to add to an authenticator app",
        description:
          "Logins need codes once /auth/totp/confirm accepted one. While " +
          "TOTP is on this is 409: a new enrolment would turn the second " +
          "factor off until confirmed, so remove it first " +
          "(DELETE /api/v1/users/{name}/totp, with the password).",
        responses: {
          200: {
            description: "The secret and its otpauth:// URI",
            content: {
              "application/json": {
                schema: z.object({
                  data: z.object({ secret: z.string(), uri: z.string() }),
                  took_ms: z.number(),
                }),
              },
            },
          },
          ...errorResponses,
        },
      },
    }, async (c) => {
      const user = await ownUser(c, deps.store);
      // A session alone must not be able to drop the second factor.
      if (user.spec?.totp?.enabled) {
        throw new ApiError("conflict", "TOTP is already on for this user", {
          hint:
            `remove it first: DELETE /api/v1/users/${user.metadata.name}/totp with your password`,
        });
      }
      return ok(c, await startTotp(deps.store, user, deps.totpKeys));
    });

    routes.define({
      method: "post",
      path: "/api/v1/auth/totp/confirm",
      guard: { resource: "users", verb: "update", self: () => true },
      openapi: {
        tags: ["Auth"],
        summary: "Confirm TOTP enrolment with a first code",
        request: {
          body: {
            required: true,
            content: {
              "application/json": { schema: z.object({ code: z.string() }) },
            },
          },
        },
        responses: { 204: { description: "TOTP is on" }, ...errorResponses },
      },
    }, async (c) => {
      const code = stringField(objectBody(await jsonBody(c)), "code");
      const user = await ownUser(c, deps.store);
      if (
        !await confirmTotp(deps.store, user, code, deps.totpKeys, deps.now())
      ) {
        throw new ApiError("invalid", "The code is not right", {
          details: {
            issues: [{ path: "code", message: "is not the current code" }],
          },
        });
      }
      return c.body(null, 204);
    });
  };
}

async function login(c: Context, deps: AuthRoutesDeps): Promise<Response> {
  const body = objectBody(await jsonBody(c));
  const username = stringField(body, "username").toLowerCase();
  const password = stringField(body, "password");
  const totp = body.totp === undefined ? undefined : stringField(body, "totp");
  const address = deps.clientAddress(c);
  if (deps.localLogin === "disabled") {
    throw new ApiError(
      "forbidden",
      "Local login is disabled (auth.localLogin)",
    );
  }
  const block = deps.limiter.check(address, username);
  if (block !== undefined) {
    throw new ApiError(
      "rate_limited",
      "Too many failed logins; try again later",
      {
        headers: { "Retry-After": String(block.retryAfterSeconds) },
        details: { retryAfterSeconds: block.retryAfterSeconds },
      },
    );
  }
  const now = deps.now();
  let result;
  try {
    result = await offMainThread(
      c,
      checkLogin(deps.store, { username, password, totp }, deps.totpKeys, now),
    );
  } catch (error) {
    throw passwordError(error);
  }
  if ("failure" in result) {
    if (result.failure === "totp_required") {
      throw new ApiError("unauthorized", "A TOTP code is needed", {
        details: { totpRequired: true },
      });
    }
    deps.limiter.failed(address, username);
    throw new ApiError(
      "unauthorized",
      result.failure === "totp"
        ? "The TOTP code is not right"
        : "Wrong user name or password",
    );
  }
  if (deps.localLogin === "admins-only" && !await isAdmin(username, deps)) {
    throw new ApiError(
      "forbidden",
      "Local login is for admins only (auth.localLogin)",
    );
  }
  deps.limiter.succeeded(address, username);
  const session = await newSession(result.user, deps.sessionKeys, now);
  await record(c, deps, result.user, session.claims);
  setSessionCookie(c, session.cookie, deps);
  return ok(c, {
    user: result.user.metadata.name,
    mustChangePassword: result.user.spec!.mustChangePassword,
    csrf: session.claims.csrf,
  });
}

async function changePassword(
  c: Context,
  deps: AuthRoutesDeps,
): Promise<Response> {
  const body = objectBody(await jsonBody(c));
  const current = stringField(body, "current");
  const next = stringField(body, "new");
  const user = await ownUser(c, deps.store);
  try {
    const hash = user.spec!.passwordHash;
    if (
      hash === undefined ||
      !await offMainThread(c, verifyPassword(current, hash))
    ) {
      throw new ApiError("invalid", "The current password is wrong", {
        details: {
          issues: [{ path: "current", message: "is not the current password" }],
        },
      });
    }
    const problem = passwordProblem(next, user.metadata.name);
    if (problem !== undefined) {
      throw new ApiError("invalid", `The new password ${problem}`, {
        details: { issues: [{ path: "new", message: problem }] },
      });
    }
    const now = deps.now();
    const saved = await offMainThread(
      c,
      setPassword(deps.store, user, next, {
        actor: requestOrigin(c),
        resetByAdmin: false,
        now,
      }),
    );
    // Sessions issued before the change end; this one starts after it.
    const session = await newSession(saved, deps.sessionKeys, now + 1);
    await record(c, deps, saved, session.claims);
    setSessionCookie(c, session.cookie, deps);
    return ok(c, {
      user: saved.metadata.name,
      mustChangePassword: false,
      csrf: session.claims.csrf,
    });
  } catch (error) {
    throw passwordError(error);
  }
}

/** Puts a new session in its user's record, where it must be to open. */
async function record(
  c: Context,
  deps: AuthRoutesDeps,
  user: User,
  claims: SessionClaims,
): Promise<void> {
  const address = deps.clientAddress(c);
  const userAgent = c.req.header("user-agent");
  const after = user.spec!.sessionsValidAfter;
  await deps.records.add(
    user.metadata.name,
    {
      id: claims.sid!,
      created: claims.iat,
      seen: claims.iat,
      address,
      ...(userAgent !== undefined && { userAgent }),
    },
    { actor: user.metadata.name, authorization: "login", client: address },
    after === undefined ? undefined : Date.parse(after),
  );
}

/** The caller's own User; service accounts have none. */
async function ownUser(c: Context, store: Store) {
  const who = authenticatedOf(c)!;
  if (who.principal.kind !== "User") {
    throw new ApiError(
      "bad_request",
      "Only a user has a password, TOTP or sessions",
    );
  }
  const user = await findUser(store, who.principal.name);
  if (user === undefined) {
    throw new ApiError("unauthorized", "The user no longer exists");
  }
  return user;
}

async function isAdmin(user: string, deps: AuthRoutesDeps): Promise<boolean> {
  return authorize(
    { kind: "User", name: user, groups: [], via: "session" },
    await deps.bindings(),
    { resource: "settings", verb: "update", scope: { kind: "cluster" } },
  ).allowed;
}

function stringField(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== "string") {
    throw new ApiError("invalid", `${field} must be a string`, {
      details: { issues: [{ path: field, message: "must be a string" }] },
    });
  }
  return value;
}

/** Password errors as API errors; others as they came. */
function passwordError(error: unknown): unknown {
  if (error instanceof PasswordHashingBusyError) {
    return new ApiError(
      "unavailable",
      "Too many logins at once; try again shortly",
      {
        headers: { "Retry-After": String(error.retryAfterSeconds) },
      },
    );
  }
  if (error instanceof PasswordRefusedError) {
    return new ApiError("invalid", `The password is ${error.reason}`, {
      details: {
        issues: [{ path: "password", message: `is ${error.reason}` }],
      },
    });
  }
  return error;
}

/**
 * What `principal` may do, as resource → verbs: at cluster scope, and in
 * each zone a binding names (what it adds there), for the web UI to show
 * only the controls that will work.
 */
async function permissionsOf(principal: Principal, deps: AuthRoutesDeps) {
  const bindings = await deps.bindings();
  const at = (scope: ScopeRequest, except?: Record<string, string[]>) => {
    const allowed: Record<string, string[]> = {};
    for (const { resource, verb } of PERMISSIONS) {
      if (scope.kind === "zone" && !isZoneScoped(resource)) continue;
      if (except?.[resource]?.includes(verb)) continue;
      if (authorize(principal, bindings, { resource, verb, scope }).allowed) {
        (allowed[resource] ??= []).push(verb);
      }
    }
    return allowed;
  };
  const permissions = at({ kind: "cluster" });
  const zonePermissions: Record<string, Record<string, string[]>> = {};
  const zones = new Set(
    bindings.flatMap((b) =>
      b.scope.kind === "zone" && b.scope.name ? [b.scope.name] : []
    ),
  );
  for (const zone of [...zones].sort()) {
    const extra = at({ kind: "zone", name: zone }, permissions);
    if (Object.keys(extra).length > 0) zonePermissions[zone] = extra;
  }
  return { permissions, zonePermissions };
}
