/**
 * OpenID Connect web login: the providers the login page offers, the
 * redirect to one (with state, nonce and PKCE in a sealed pre-auth cookie
 * only the callback sees), the callback that validates the ID token and
 * starts the same session cookie a password login does, and the logout
 * URL of the provider. The building blocks are in src/auth/oidc/; this
 * file is the HTTP around them.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { LoginLimiter } from "../../auth/login_limits.ts";
import { checkClaimRules } from "../../auth/oidc/claim_rules.ts";
import { LoginRefusedError, mapClaims } from "../../auth/oidc/claims.ts";
import {
  endSessionUrl,
  finishLogin,
  startLogin,
} from "../../auth/oidc/flow.ts";
import { resolveGrants } from "../../auth/oidc/grants.ts";
import {
  openPreAuth,
  PREAUTH_COOKIE,
  PREAUTH_LIFETIME_MS,
  safeNext,
  sealPreAuth,
  UsedStates,
} from "../../auth/oidc/preauth.ts";
import {
  IdpUnavailableError,
  type Provider,
  type ProviderRegistry,
} from "../../auth/oidc/providers.ts";
import type { SealingKeys } from "../../auth/sealed.ts";
import type { SessionRecords } from "../../auth/session_records.ts";
import { newIdpSession, type SessionTimes } from "../../auth/sessions.ts";
import type { Logger } from "../../log/logger.ts";
import type { Binding } from "../../rbac/binding.ts";
import { clearSessionCookie, setSessionCookie } from "../authentication.ts";
import { ok } from "../envelope.ts";
import { ApiError } from "../errors.ts";
import type { RoutesTable } from "../routes_table.ts";
import { publicPath } from "../public_base.ts";
import { errorResponses } from "./openapi_parts.ts";

export interface OidcRoutesDeps {
  providers: ProviderRegistry;
  sessionKeys: SealingKeys;
  /** The `loginState` purpose keys, for the pre-auth cookie. */
  loginStateKeys: SealingKeys;
  times: SessionTimes;
  tls: boolean;
  /** listeners.api.pathPrefix, normalized ("" or "/x"). */
  pathPrefix: string;
  /** auth.publicURL without a trailing slash; "" for the request's origin. */
  publicURL: string;
  now: () => number;
  limiter: LoginLimiter;
  logger: Logger;
  bindings(): Promise<readonly Binding[]>;
  clientAddress(c: Context): string;
  /** Where a new session's id is recorded, under the user's name. */
  records: Pick<SessionRecords, "add">;
}

const providerParam = z.object({ provider: z.string() });

/** The OpenID Connect routes. */
export function oidcRoutes(deps: OidcRoutesDeps) {
  const used = new UsedStates();
  return (routes: RoutesTable): void => {
    routes.define({
      method: "get",
      path: "/api/v1/auth/providers",
      guard: { public: true, because: "the login page lists them" },
      openapi: {
        tags: ["Auth"],
        summary: "The identity providers one may log in with",
        responses: {
          200: {
            description:
              "Each provider's id and label, and for `kudurru login` its issuer and public client id (no secret)",
            content: {
              "application/json": {
                schema: z.object({
                  data: z.object({
                    providers: z.array(
                      z.object({
                        id: z.string(),
                        displayName: z.string(),
                        issuer: z.string(),
                        scopes: z.array(z.string()),
                        cliClientID: z.string().optional().openapi({
                          description:
                            "The public client of kudurru login; absent when the provider has none",
                        }),
                      }),
                    ),
                  }),
                  took_ms: z.number(),
                }),
              },
            },
          },
        },
      },
    }, (c) =>
      ok(c, {
        providers: deps.providers.list().map((p) => ({
          id: p.id,
          displayName: p.displayName,
          issuer: p.settings.issuer,
          scopes: p.settings.scopes,
          ...(p.settings.cliClientID !== "" &&
            { cliClientID: p.settings.cliClientID }),
        })),
      }));

    routes.define({
      method: "get",
      path: "/api/v1/auth/oidc/{provider}/login",
      guard: { public: true, because: "it is how a provider's login starts" },
      openapi: {
        tags: ["Auth"],
        summary: "Start a login at an identity provider (a browser redirect)",
        request: {
          params: providerParam,
          query: z.object({
            next: z.string().optional().openapi({
              description:
                "Path on this server to go to after the login (default /)",
            }),
          }),
        },
        responses: {
          302: {
            description:
              "To the provider; the pre-auth cookie is set. A browser's refused login goes back to the login page instead (see the callback)",
          },
          ...errorResponses,
        },
      },
    }, (c) => toLoginPage(c, deps, () => login(c, deps)));

    routes.define({
      method: "get",
      path: "/api/v1/auth/oidc/{provider}/callback",
      guard: {
        public: true,
        because: "the provider sends the browser back here",
      },
      openapi: {
        tags: ["Auth"],
        summary:
          "Where the provider returns: checks the login, starts a session",
        request: { params: providerParam },
        responses: {
          302: {
            description:
              "Logged in; the session cookie is set. A browser (Accept: text/html) whose login is refused, or whose provider cannot be reached, is sent back to the web UI with the error in the short-lived cookie kudurru_login_error for the login page to show",
          },
          ...errorResponses,
        },
      },
    }, (c) => toLoginPage(c, deps, () => callback(c, deps, used)));

    routes.define({
      method: "post",
      path: "/api/v1/auth/oidc/{provider}/logout",
      guard: { public: true, because: "ending a session needs no rights" },
      openapi: {
        tags: ["Auth"],
        summary:
          "Log out; answers the provider's logout URL to go to, when it has one",
        request: { params: providerParam },
        responses: {
          200: {
            description: "Logged out here",
            content: {
              "application/json": {
                schema: z.object({
                  data: z.object({ endSessionUrl: z.string().optional() }),
                  took_ms: z.number(),
                }),
              },
            },
          },
          ...errorResponses,
        },
      },
    }, async (c) => {
      const provider = providerOf(c, deps);
      clearSessionCookie(c, deps.tls);
      let url: URL | undefined;
      try {
        url = await endSessionUrl(
          provider,
          // The web UI's root, as the browser reaches it.
          `${deps.publicURL || `${originOf(c, deps)}${deps.pathPrefix}`}/`,
        );
      } catch (error) {
        // Logged out here all the same; the provider's session stays.
        if (!(error instanceof IdpUnavailableError)) throw error;
      }
      return ok(c, url === undefined ? {} : { endSessionUrl: url.href });
    });
  };
}

async function login(c: Context, deps: OidcRoutesDeps): Promise<Response> {
  const provider = providerOf(c, deps);
  limit(c, deps);
  const next = safeNext(c.req.query("next"));
  if (next === undefined) {
    throw new ApiError("bad_request", "next must be a path on this server", {
      hint: "a path starting with a single /, such as /zones",
    });
  }
  const now = deps.now();
  const redirectUri = deps.publicURL === ""
    ? `${originOf(c, deps)}${callbackPath(deps, provider)}`
    : `${deps.publicURL}/api/v1/auth/oidc/${provider.id}/callback`;
  const { url, preAuth } = await idp(
    startLogin(provider, redirectUri, next, now),
  );
  setCookie(
    c,
    PREAUTH_COOKIE,
    await sealPreAuth(preAuth, deps.loginStateKeys),
    {
      httpOnly: true,
      // Lax: the provider's redirect back is a top-level GET, which Lax sends.
      sameSite: "Lax",
      secure: deps.tls,
      path: callbackPath(deps, provider),
      maxAge: PREAUTH_LIFETIME_MS / 1000,
      // Over TLS `__Secure-`: no plain-HTTP page of the host can set it.
      ...(deps.tls && { prefix: "secure" as const }),
    },
  );
  return c.redirect(url.href, 302);
}

async function callback(
  c: Context,
  deps: OidcRoutesDeps,
  used: UsedStates,
): Promise<Response> {
  const provider = providerOf(c, deps);
  limit(c, deps);
  const address = deps.clientAddress(c);
  const now = deps.now();
  const cookie = deps.tls
    ? getCookie(c, PREAUTH_COOKIE, "secure")
    : getCookie(c, PREAUTH_COOKIE);
  // Used once, whatever happens next.
  deleteCookie(c, PREAUTH_COOKIE, {
    path: callbackPath(deps, provider),
    secure: deps.tls,
    ...(deps.tls && { prefix: "secure" as const }),
  });
  try {
    const preAuth = await openPreAuth(
      cookie,
      provider.id,
      deps.loginStateKeys,
      now,
    );
    if (preAuth === undefined) {
      throw new LoginRefusedError(
        "no_login",
        "This login was not started here, took over 10 minutes, or was started in another browser: start it again",
      );
    }
    if (!used.use(preAuth.s, preAuth.exp, now)) {
      throw new LoginRefusedError(
        "replayed",
        "This login was already used: start it again",
      );
    }
    const claims = await idp(
      finishLogin(provider, preAuth, new URL(c.req.url)),
    );
    // Before anything is read from the claims.
    checkClaimRules(provider.settings.claimValidationRules, claims);
    const identity = mapClaims(
      provider.id,
      provider.settings.claimMappings,
      claims,
    );
    const grants = resolveGrants(
      identity,
      await deps.bindings(),
      provider.settings.provisioning,
    );
    const session = await newIdpSession(
      identity.username,
      provider.id,
      grants.groups,
      deps.sessionKeys,
      now,
    );
    // Listed among the user's sessions, and ended from there.
    const userAgent = c.req.header("user-agent");
    await deps.records.add(identity.username, {
      id: session.claims.sid!,
      created: now,
      seen: now,
      address,
      ...(userAgent !== undefined && { userAgent }),
    }, { actor: identity.username, authorization: "login", client: address });
    setSessionCookie(c, session.cookie, deps);
    deps.limiter.succeeded(address, limitKey(address));
    deps.logger.info("Logged in through an identity provider", {
      provider: provider.id,
      user: identity.username,
      sub: identity.key.sub,
      roles: grants.roles.join(", "),
    });
    return c.redirect(preAuth.next, 302);
  } catch (error) {
    if (!(error instanceof LoginRefusedError)) throw error;
    deps.limiter.failed(address, limitKey(address));
    deps.logger.info("Refused a login through an identity provider", {
      provider: provider.id,
      reason: error.reason,
    });
    throw new ApiError("login_refused", error.message, {
      details: { reason: error.reason },
    });
  }
}

/**
 * The cookie that carries a browser's refused login to the login page:
 * readable by the page's script (not HttpOnly), gone after a minute. A
 * cookie, not the URL, so a link cannot put words in the login page.
 */
export const LOGIN_ERROR_COOKIE = "kudurru_login_error";

/** The errors a browser is sent back to the login page with. */
const SHOWN_ON_LOGIN_PAGE = new Set([
  "login_refused",
  "idp_unavailable",
  "rate_limited",
]);

/**
 * `work`, with a refusal answered to a browser by the login page rather
 * than a JSON error page it would strand the person on; other clients
 * get the JSON error.
 */
async function toLoginPage(
  c: Context,
  deps: OidcRoutesDeps,
  work: () => Promise<Response>,
): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (
      !(error instanceof ApiError) || !SHOWN_ON_LOGIN_PAGE.has(error.key) ||
      !isNavigation(c)
    ) throw error;
    const reason = error.details.reason;
    setCookie(
      c,
      LOGIN_ERROR_COOKIE,
      JSON.stringify({
        key: error.key,
        message: error.message.slice(0, 500),
        ...(typeof reason === "string" && { reason }),
      }),
      {
        sameSite: "Lax",
        secure: deps.tls,
        path: "/",
        maxAge: 60,
        // Over TLS `__Host-`: no other host of the domain can plant one.
        ...(deps.tls && { prefix: "host" as const }),
      },
    );
    return c.redirect(`${publicPath(deps.publicURL, deps.pathPrefix)}/`, 303);
  }
}

/** Whether a browser is loading this as a page (not a script's request). */
function isNavigation(c: Context): boolean {
  return c.req.header("sec-fetch-mode") === "navigate" ||
    (c.req.header("accept") ?? "").includes("text/html");
}

/** The provider the path names; 404 for an unknown one. */
function providerOf(c: Context, deps: OidcRoutesDeps): Provider {
  const id = c.req.param("provider") ?? "";
  const provider = deps.providers.get(id);
  if (provider === undefined) {
    throw new ApiError(
      "not_found",
      `No identity provider "${id.slice(0, 64)}"`,
      {
        hint: "GET /api/v1/auth/providers lists them",
      },
    );
  }
  return provider;
}

/**
 * The password login's limiter, per client address only: a key shared by
 * every user of a provider would let one client lock everyone out.
 */
function limit(c: Context, deps: OidcRoutesDeps): void {
  const address = deps.clientAddress(c);
  const block = deps.limiter.check(address, limitKey(address));
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
}

function limitKey(address: string): string {
  return `\u0000oidc\u0000${address}`;
}

/** `promise`, with a provider that cannot be reached as a 502. */
async function idp<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    if (!(error instanceof IdpUnavailableError)) throw error;
    throw new ApiError("idp_unavailable", error.message, {
      headers: { "Retry-After": String(error.retryAfterSeconds) },
      hint: "log in with a local password meanwhile, or try again later",
      cause: error,
    });
  }
}

/** The callback's path as the browser sees it (the pre-auth cookie's path). */
function callbackPath(deps: OidcRoutesDeps, provider: Provider): string {
  return `${
    publicPath(deps.publicURL, deps.pathPrefix)
  }/api/v1/auth/oidc/${provider.id}/callback`;
}

/**
 * This server's origin as the browser sees it when auth.publicURL is not
 * set. The redirect URI built from it must be registered at the provider,
 * so a forged Host header only makes the provider refuse the login.
 */
function originOf(c: Context, deps: OidcRoutesDeps): string {
  const url = new URL(c.req.url);
  return `${deps.tls ? "https:" : url.protocol}//${url.host}`;
}
