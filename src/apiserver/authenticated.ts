/**
 * The caller of one request as the API knows it: a principal for the
 * permission checks, and how it proved who it is (a session cookie needs a
 * CSRF header on writes; a token does not).
 */
import type { Context } from "hono";
import type { Principal } from "../rbac/principal.ts";

/** Where the authenticated caller is kept on the request. */
export const AUTHENTICATED = "kudurruAuthenticated";

export interface Authenticated {
  principal: Principal;
  /**
   * A session: the CSRF value writes must echo in X-Kudurru-CSRF, and its
   * id in the user's session record (session_records.ts) when it has one.
   */
  session?: { csrf: string; mustChangePassword: boolean; id?: string };
  /** A token: its id, for last-used bookkeeping and the audit row. */
  tokenId?: string;
}

/** The caller of `c`, if authenticated. */
export function authenticatedOf(c: Context): Authenticated | undefined {
  return c.get(AUTHENTICATED as never) as Authenticated | undefined;
}

/** How the audit row names the caller's proof ("session", "token kdr_abc…"). */
export function authorizationPath(who: Authenticated | undefined): string {
  if (who === undefined) return "anonymous";
  if (who.tokenId !== undefined) return `token ${who.tokenId}`;
  return who.principal.via;
}
