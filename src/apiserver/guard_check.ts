/**
 * The check every route's guard goes through before its handler: an
 * authenticated caller (401 otherwise), a changed first password, CSRF for
 * cookie writes, then the permissions table (403 with what is missing).
 */
import type { Context } from "hono";
import { authorize } from "../rbac/authorize.ts";
import type { Binding } from "../rbac/binding.ts";
import type { Principal } from "../rbac/principal.ts";
import { CLUSTER, type ScopeRequest } from "../rbac/scope.ts";
import type { Resource, Verb } from "../rbac/permissions.ts";
import { authenticatedOf } from "./authenticated.ts";
import { ApiError } from "./errors.ts";
import type { GuardCheck } from "./routes_table.ts";

/** The header a cookie-authenticated write must carry, echoing the session's value. */
export const CSRF_HEADER = "X-Kudurru-CSRF";

/** The methods that change nothing and so need no CSRF header. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Where the bindings come from: the configuration's and the API's. */
export type BindingsSource = () => Promise<readonly Binding[]>;

/** The guard check of the app (app.ts) over `bindings`. */
export function guardCheck(bindings: BindingsSource): GuardCheck {
  return async (c, guard) => {
    if ("public" in guard) return;
    const who = authenticatedOf(c);
    if (who === undefined) {
      throw new ApiError("unauthorized", "Not logged in", {
        hint:
          "log in (POST /api/v1/auth/login) or send Authorization: Bearer kdr_…",
      });
    }
    if (who.session !== undefined) {
      checkCsrf(c, who.session.csrf);
      if (who.session.mustChangePassword && !guard.duringPasswordChange) {
        throw new ApiError(
          "password_change_required",
          "The password must be changed first",
          { hint: "POST /api/v1/auth/password with the new password" },
        );
      }
    }
    const scope = await guard.scope?.(c) ?? CLUSTER;
    // "any": the handler keeps what the caller may see (lists).
    if (scope.kind === "any") return;
    const self = (await guard.self?.(c)) ?? false;
    const decision = authorize(who.principal, await bindings(), {
      resource: guard.resource,
      verb: guard.verb,
      scope,
      self,
    });
    if (!decision.allowed) {
      throw new ApiError("forbidden", forbiddenMessage(decision.reason), {
        hint: "ask an admin for a role that grants it",
        details: { missing: decision.missing },
      });
    }
  };
}

/** Whether `principal` may do `verb` on `resource` at `scope` (for filtering). */
export async function allowedFor(
  principal: Principal,
  bindings: BindingsSource,
  resource: Resource,
  verb: Verb,
  scope: ScopeRequest,
): Promise<boolean> {
  return authorize(principal, await bindings(), { resource, verb, scope })
    .allowed;
}

function forbiddenMessage(reason: "role" | "token"): string {
  return reason === "token"
    ? "The token's scopes do not allow it"
    : "Not allowed by the caller's roles";
}

/**
 * A write on a session cookie must echo the session's CSRF value in
 * X-Kudurru-CSRF (a form on another site cannot set a header), and come
 * from this origin when the browser says where it came from.
 */
function checkCsrf(c: Context, expected: string): void {
  if (SAFE_METHODS.has(c.req.method)) return;
  const given = c.req.header(CSRF_HEADER);
  if (given === undefined || !sameString(given, expected)) {
    throw new ApiError("csrf", `A write with a session needs ${CSRF_HEADER}`, {
      hint: "send the csrf value from the login answer in that header",
    });
  }
  const origin = c.req.header("origin");
  if (origin !== undefined && origin !== "null") {
    const here = new URL(c.req.url);
    const forwardedProto = c.req.header("x-forwarded-proto");
    const host = c.req.header("host") ?? here.host;
    const proto = forwardedProto ?? here.protocol.replace(":", "");
    if (origin !== `${proto}://${host}`) {
      throw new ApiError("csrf", `Writes from origin ${origin} are refused`);
    }
  }
  if (c.req.header("sec-fetch-site") === "cross-site") {
    throw new ApiError("csrf", "Cross-site writes are refused");
  }
}

/** Equal strings, compared without an early exit. */
function sameString(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
