/**
 * Login sessions as sealed cookies: the cookie holds who logged in, when,
 * when last seen and the CSRF value, sealed with the session key, so the
 * server keeps no session table. A session ends after `idle` without a
 * request (sliding) or `lifetime` after the login, and every session of a
 * user ends when the user's sessionsValidAfter moves past its login
 * (password change, "log out everywhere", disabling the user).
 *
 * A login through an identity provider has no User object (its name,
 * `<provider>:<name>`, is no object name): its session carries the
 * provider and the groups that bindings named at login, and ends when the
 * provider is no longer configured.
 *
 * A session has an id that must stay in its user's session record
 * (session_records.ts, keyed by the user name, a provider's user's too):
 * the user can list its sessions and end one. Cookies from before records
 * have no id and hold until they run out.
 */
import type { User } from "../api/v1alpha1/auth_kinds.ts";
import type { Store } from "../store/store.ts";
import { findUser } from "./accounts.ts";
import { sessionRecorded } from "./session_records.ts";
import { toBase64url } from "./base64url.ts";
import { open, seal, type SealingKeys } from "./sealed.ts";

/**
 * The cookie's name. Over TLS it is sent as `__Host-kudurru_session`
 * (Secure, no Domain, path /), which no other host can set.
 */
export const SESSION_COOKIE = "kudurru_session";

/** What the sealed cookie holds. */
export interface SessionClaims {
  /** The user's name. */
  u: string;
  /** Issued at (ms since the epoch). */
  iat: number;
  /** Last seen (ms): the idle timeout counts from here. */
  seen: number;
  /** The CSRF value writes must echo. */
  csrf: string;
  /** The session's id in the user's record. */
  sid?: string;
  /** The identity provider of a login through one (src/auth/oidc/). */
  idp?: string;
  /** That login's groups that some binding named: never the raw list. */
  g?: string[];
}

/** How long sessions last (auth.session). */
export interface SessionTimes {
  idleMs: number;
  lifetimeMs: number;
}

/** Seconds between refreshes of `seen`: not every request needs a new cookie. */
const REFRESH_AFTER_MS = 60_000;

/** A new session for `user`, sealed. */
export async function newSession(
  user: User,
  keys: SealingKeys,
  now: number,
): Promise<{ cookie: string; claims: SessionClaims }> {
  const claims: SessionClaims = {
    u: user.metadata.name,
    iat: now,
    seen: now,
    csrf: toBase64url(crypto.getRandomValues(new Uint8Array(18))),
    sid: toBase64url(crypto.getRandomValues(new Uint8Array(12))),
  };
  return { cookie: await seal(claims, keys), claims };
}

/** A new session for `name`, logged in through the provider `idp`. */
export async function newIdpSession(
  name: string,
  idp: string,
  groups: string[],
  keys: SealingKeys,
  now: number,
): Promise<{ cookie: string; claims: SessionClaims }> {
  const claims: SessionClaims = {
    u: name,
    iat: now,
    seen: now,
    csrf: toBase64url(crypto.getRandomValues(new Uint8Array(18))),
    sid: toBase64url(crypto.getRandomValues(new Uint8Array(12))),
    idp,
    g: groups,
  };
  return { cookie: await seal(claims, keys), claims };
}

/** A session that holds, with the user, and a refreshed cookie when one is due. */
export interface LiveSession {
  claims: SessionClaims;
  /** The local user; undefined for a login through an identity provider. */
  user: User | undefined;
  /** Set when the cookie should be sent again with a later `seen`. */
  refreshed?: string;
}

/**
 * The session of `cookie`, or undefined when it does not open, has run out,
 * was revoked, or its user is gone or disabled.
 */
export async function openSession(
  store: Store,
  cookie: string,
  keys: SealingKeys,
  times: SessionTimes,
  now: number,
  idpKnown: (id: string) => boolean = () => false,
): Promise<LiveSession | undefined> {
  const claims = asClaims(await open(cookie, keys));
  if (claims === undefined) return undefined;
  if (now - claims.seen > times.idleMs) return undefined;
  if (now - claims.iat > times.lifetimeMs) return undefined;
  if (claims.iat > now + 60_000) return undefined; // from the future: a clock or a forgery
  if (claims.idp !== undefined) {
    if (!idpKnown(claims.idp)) return undefined;
    // A provider's users are named `<provider>:<name>`, never like local ones.
    if (!claims.u.startsWith(`${claims.idp}:`)) return undefined;
    if (!await recorded(store, claims)) return undefined;
    return await refreshed(claims, undefined, keys, now);
  }
  const user = await findUser(store, claims.u);
  if (user === undefined || user.spec!.disabled) return undefined;
  const after = user.spec!.sessionsValidAfter;
  if (after !== undefined && claims.iat < Date.parse(after)) return undefined;
  if (!await recorded(store, claims)) return undefined;
  return await refreshed(claims, user, keys, now);
}

/** Whether the session's id is still in its user's record (one without an id: yes). */
async function recorded(store: Store, claims: SessionClaims): Promise<boolean> {
  return claims.sid === undefined ||
    await sessionRecorded(store, claims.u, claims.sid);
}

async function refreshed(
  claims: SessionClaims,
  user: User | undefined,
  keys: SealingKeys,
  now: number,
): Promise<LiveSession> {
  if (now - claims.seen < REFRESH_AFTER_MS) return { claims, user };
  const next = { ...claims, seen: now };
  return { claims: next, user, refreshed: await seal(next, keys) };
}

function asClaims(value: unknown): SessionClaims | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const c = value as Partial<SessionClaims>;
  if (
    typeof c.u !== "string" || typeof c.iat !== "number" ||
    typeof c.seen !== "number" || typeof c.csrf !== "string"
  ) return undefined;
  if (c.sid !== undefined && typeof c.sid !== "string") return undefined;
  if (c.idp !== undefined) {
    if (
      typeof c.idp !== "string" || !Array.isArray(c.g) ||
      !c.g.every((g) => typeof g === "string")
    ) return undefined;
  } else if (c.g !== undefined) return undefined;
  return c as SessionClaims;
}
