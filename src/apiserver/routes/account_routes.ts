/**
 * Users, service accounts, API tokens and role bindings: the account
 * routes, each kind in its own file (user_routes.ts,
 * serviceaccount_routes.ts, token_routes.ts, rolebinding_routes.ts) and
 * what they share in account_parts.ts. Password hashes, TOTP secrets and
 * token hashes never leave the server: what is listed is the rest. A
 * token's text is shown once, in the answer that made it.
 */
import type { AccountRoutesDeps } from "./account_parts.ts";
import type { RoutesTable } from "../routes_table.ts";
import { roleBindingRoutes } from "./rolebinding_routes.ts";
import { serviceAccountRoutes } from "./serviceaccount_routes.ts";
import { tokenRoutes } from "./token_routes.ts";
import { userRoutes } from "./user_routes.ts";

export type { AccountRoutesDeps } from "./account_parts.ts";

/** The account routes. */
export function accountRoutes(deps: AccountRoutesDeps) {
  return (routes: RoutesTable): void => {
    userRoutes(routes, deps);
    serviceAccountRoutes(routes, deps);
    tokenRoutes(routes, deps);
    roleBindingRoutes(routes, deps);
  };
}
