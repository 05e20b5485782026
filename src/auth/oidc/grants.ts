/**
 * What a login through a provider is allowed to keep: the role bindings
 * decide, the same bindings a local user's requests are checked against.
 * The session keeps only the groups that some binding names (never the raw
 * list: a user in 200 groups still fits a 4 KiB cookie), so every request
 * is still checked against the bindings in force: removing a binding takes
 * effect at once, not at the end of the session.
 */
import type { Binding } from "../../rbac/binding.ts";
import { type Principal, subjectMatches } from "../../rbac/principal.ts";
import { ROLES } from "../../rbac/permissions.ts";
import { LoginRefusedError, type OidcIdentity } from "./claims.ts";

/** Bound groups a session keeps at most (a cookie is 4 KiB). */
export const MAX_SESSION_GROUPS = 32;

/** The grants of a login: the groups to keep, and whether any role applies. */
export interface ResolvedGrants {
  /** The identity's groups that some binding names, sorted. */
  groups: string[];
  /** `role at scope` of each binding that applies, for the log and the answer. */
  roles: string[];
}

/**
 * The grants of `identity` under `bindings`.
 *
 * @throws {LoginRefusedError} when no binding applies (nothing to log in to)
 *   or more bound groups than a session holds
 */
export function resolveGrants(
  identity: OidcIdentity,
  bindings: readonly Binding[],
): ResolvedGrants {
  const principal: Principal = {
    kind: "User",
    name: identity.username,
    groups: identity.groups,
    via: "session",
  };
  const groups = new Set<string>();
  const roles = new Set<string>();
  for (const binding of bindings) {
    if (!(ROLES as readonly string[]).includes(binding.role)) continue;
    let applies = false;
    for (const subject of binding.subjects) {
      if (!subjectMatches(subject, principal)) continue;
      applies = true;
      if (subject.kind === "Group") groups.add(subject.name);
    }
    if (applies) {
      const scope = binding.scope.name === undefined
        ? binding.scope.kind
        : `${binding.scope.kind}:${binding.scope.name}`;
      roles.add(`${binding.role} at ${scope}`);
    }
  }
  if (roles.size === 0) {
    throw new LoginRefusedError(
      "no_binding",
      `${identity.username} has no role in kudurru: ask an admin to bind the user or one of its groups to a role`,
    );
  }
  if (groups.size > MAX_SESSION_GROUPS) {
    throw new LoginRefusedError(
      "too_many_bound_groups",
      `${identity.username} is in ${groups.size} groups that have roles; a session holds at most ${MAX_SESSION_GROUPS}: bind fewer, broader groups`,
    );
  }
  return { groups: [...groups].sort(), roles: [...roles].sort() };
}
