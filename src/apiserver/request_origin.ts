/**
 * Who made a request, how they proved it and where from: the fields every
 * API write passes to the Store for its audit row (`actor` today;
 * `authorization` and `client` too from schema 3 on, when ApplyOptions,
 * DeleteOptions and SetRuntimeOptions take them). Kept apart from the
 * route modules and api_server.ts so that both can import it.
 */
import type { Context } from "hono";
import { authenticatedOf, authorizationPath } from "./authenticated.ts";

export interface RequestOrigin {
  /** The user, or `serviceaccount:<name>`; "anonymous" without a caller. */
  actor: string;
  /** "session", "token <id>", "socket"; "anonymous" without a caller. */
  authorization: string;
  /** The client's address as the socket saw it ("unknown" without one, in tests). */
  client: string;
}

/** The origin of `c`'s request. */
export function requestOrigin(c: Context): RequestOrigin {
  const who = authenticatedOf(c);
  const principal = who?.principal;
  return {
    actor: principal === undefined
      ? "anonymous"
      : principal.kind === "ServiceAccount"
      ? `serviceaccount:${principal.name}`
      : principal.name,
    authorization: authorizationPath(who),
    client: (c.env as Deno.ServeHandlerInfo<Deno.NetAddr> | undefined)
      ?.remoteAddr?.hostname ?? "unknown",
  };
}
