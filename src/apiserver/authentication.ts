/**
 * Who is calling: a bearer token (`Authorization: Bearer kdr_…`, or an
 * identity provider's ID token, a JWT) or a session cookie. A token that does not check out is a 401 at once (the
 * same answer for an unknown id, a wrong secret, an expired token or a
 * disabled owner); a cookie that does not is as good as none, and is
 * cleared.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { looksLikeJwt } from "../auth/oidc/bearer.ts";
import type { SealingKeys } from "../auth/sealed.ts";
import {
  openSession,
  SESSION_COOKIE,
  type SessionTimes,
} from "../auth/sessions.ts";
import type { TokenChecker } from "../auth/tokens.ts";
import type { SessionRecords } from "../auth/session_records.ts";
import type { Store } from "../store/store.ts";
import type { Authenticate } from "./app.ts";
import type { Authenticated } from "./authenticated.ts";
import { ApiError } from "./errors.ts";

export interface AuthenticationOptions {
  store: Store;
  tokens: TokenChecker;
  sessionKeys: SealingKeys;
  times: SessionTimes;
  /** Whether cookies are Secure and `__Host-` (TLS terminates here). */
  tls: boolean;
  now: () => number;
  /** The client's address, for last use of a token. */
  clientAddress(c: Context): string;
  /** Whether an identity provider is still configured (its sessions end when not). */
  idpKnown?: (id: string) => boolean;
  /** The caller a bearer ID token (a JWT) names; without it a JWT is refused. */
  idToken?: (token: string) => Promise<Authenticated>;
  /** Told when a session is used, for its last-seen time. */
  records?: Pick<SessionRecords, "saw">;
}

/** The app's authenticate function. */
export function authentication(opts: AuthenticationOptions): Authenticate {
  return async (c) => {
    const header = c.req.header("authorization");
    if (header !== undefined) return await byToken(c, header, opts);
    const cookie = opts.tls
      ? getCookie(c, SESSION_COOKIE, "host")
      : getCookie(c, SESSION_COOKIE);
    if (cookie === undefined) return undefined;
    const now = opts.now();
    const session = await openSession(
      opts.store,
      cookie,
      opts.sessionKeys,
      opts.times,
      now,
      opts.idpKnown,
    );
    if (session === undefined) {
      clearSessionCookie(c, opts.tls);
      return undefined;
    }
    if (session.refreshed !== undefined) {
      setSessionCookie(c, session.refreshed, opts);
    }
    const id = session.claims.sid;
    if (id !== undefined) opts.records?.saw(id, now);
    return {
      principal: {
        kind: "User",
        name: session.claims.u,
        // A provider's login: the groups its bindings named at login.
        groups: session.claims.g ?? [],
        via: "session",
      },
      session: {
        csrf: session.claims.csrf,
        mustChangePassword: session.user?.spec?.mustChangePassword ?? false,
        ...(id !== undefined && { id }),
      },
    };
  };
}

async function byToken(
  c: Context,
  header: string,
  opts: AuthenticationOptions,
): Promise<Authenticated> {
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  if (m && opts.idToken !== undefined && looksLikeJwt(m[1]!)) {
    return await opts.idToken(m[1]!);
  }
  const now = opts.now();
  const valid = m ? await opts.tokens.check(m[1]!, now) : undefined;
  if (valid === undefined) {
    throw new ApiError("unauthorized", "The token is not valid", {
      hint:
        "send Authorization: Bearer kdr_<id>_<secret>, a token that exists and has not expired",
    });
  }
  await opts.tokens.used(valid.token, opts.clientAddress(c), now);
  return {
    principal: {
      kind: valid.owner.kind,
      name: valid.owner.name,
      groups: [],
      via: "token",
      tokenScopes: valid.token.spec!.scopes,
    },
    tokenId: valid.token.metadata.name,
  };
}

/** Sends the session cookie: HttpOnly, SameSite=Lax, Secure over TLS. */
export function setSessionCookie(
  c: Context,
  value: string,
  opts: { tls: boolean; times: SessionTimes },
): void {
  setCookie(c, SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: "Lax",
    secure: opts.tls,
    path: "/",
    maxAge: Math.floor(opts.times.lifetimeMs / 1000),
    ...(opts.tls && { prefix: "host" as const }),
  });
}

/** Removes the session cookie. */
export function clearSessionCookie(c: Context, tls: boolean): void {
  deleteCookie(c, SESSION_COOKIE, {
    path: "/",
    secure: tls,
    ...(tls && { prefix: "host" as const }),
  });
}
