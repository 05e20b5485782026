/**
 * What a login through a provider is allowed to keep: the role bindings
 * decide, the same bindings a local user's requests are checked against.
 * The session keeps only the groups that some binding names (never the raw
 * list: a user in 200 groups still fits a 4 KiB cookie), so every request
 * is still checked against the bindings in force: removing a binding takes
 * effect at once, not at the end of the session.
 *
 * `provisioning.autoProvision` decides who a binding must name:
 * `mapped-only` (the default) lets in whoever some binding names, by user
 * or group; `never` only those a binding names one by one, as a User, so a
 * group at the provider admits nobody new; `always` with a `defaultRole`
 * lets in everyone the provider knows, with that role at the least: they
 * get a group only kudurru gives out, which one binding per provider
 * (provisioningBindings) binds to the role.
 */
import type { Binding } from "../../rbac/binding.ts";
import { type Principal, subjectMatches } from "../../rbac/principal.ts";
import { ROLES } from "../../rbac/permissions.ts";
import { LoginRefusedError, type OidcIdentity } from "./claims.ts";

/** Bound groups a session keeps at most (a cookie is 4 KiB). */
export const MAX_SESSION_GROUPS = 32;

/** Who a provider lets in (auth.identityProviders[].provisioning). */
export interface Provisioning {
  autoProvision: "always" | "mapped-only" | "never";
  defaultRole: string;
}

const MAPPED_ONLY: Provisioning = {
  autoProvision: "mapped-only",
  defaultRole: "",
};

/**
 * Group names kudurru gives out itself: a provider's groups with this
 * start are dropped, whatever its prefix, so no one claims the default
 * role's group at a provider that does not give it.
 */
const RESERVED_GROUPS = "system:kudurru:";

/** The group that carries `provider`'s default role. */
export function defaultRoleGroup(provider: string): string {
  return `${RESERVED_GROUPS}default-role:${provider}`;
}

/**
 * The bindings that give each `always` provider's users its default role,
 * to add to those of the configuration.
 */
export function provisioningBindings(
  providers: readonly { id: string; provisioning: Provisioning }[],
): Binding[] {
  return providers
    .filter((p) =>
      p.provisioning.autoProvision === "always" &&
      p.provisioning.defaultRole !== ""
    )
    .map((p) => ({
      role: p.provisioning.defaultRole,
      scope: { kind: "cluster" as const },
      subjects: [{ kind: "Group" as const, name: defaultRoleGroup(p.id) }],
    }));
}

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
  provisioning: Provisioning = MAPPED_ONLY,
): ResolvedGrants {
  const never = provisioning.autoProvision === "never";
  const principal: Principal = {
    kind: "User",
    name: identity.username,
    groups: identity.groups.filter((g) => !g.startsWith(RESERVED_GROUPS)),
    via: "session",
  };
  if (
    never &&
    !bindings.some((b) =>
      b.subjects.some((s) => s.kind === "User" && subjectMatches(s, principal))
    )
  ) {
    throw new LoginRefusedError(
      "not_provisioned",
      `${identity.username} is not a known user here: this provider lets in only users a role binding names (kind User); ask an admin to bind ${identity.username}`,
    );
  }
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
  if (
    roles.size === 0 && provisioning.autoProvision === "always" &&
    provisioning.defaultRole !== ""
  ) {
    groups.add(defaultRoleGroup(identity.key.provider));
    roles.add(`${provisioning.defaultRole} at cluster`);
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
