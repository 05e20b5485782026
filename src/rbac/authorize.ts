/**
 * The decision: may this principal do this verb on this resource here?
 * Pure: the bindings, the principal and the request are all it reads.
 */
import {
  isZoneScoped,
  permission,
  PERMISSIONS,
  READ_VERBS,
  type Resource,
  roleGrants,
  type Verb,
} from "./permissions.ts";
import type { Principal } from "./principal.ts";
import { subjectFor, subjectMatches } from "./principal.ts";
import {
  CLUSTER,
  effectiveScope,
  scopeCovers,
  type ScopeLabel,
  scopeLabel,
  type ScopeRequest,
} from "./scope.ts";
import { type Binding, describeGrant, describeSubject } from "./binding.ts";

/** The scope of an AccessRequest (defined in scope.ts; here so callers of authorize() import one file). */
export type { ScopeRequest };

/** What a request wants to do. */
export interface AccessRequest {
  resource: Resource;
  verb: Verb;
  /**
   * Where: a zone for one zone's object or record sets, cluster otherwise
   * (including a list across every zone; visibleZones() filters one). A zone
   * on a resource that is not zone-scoped is checked as cluster.
   */
  scope: ScopeRequest;
  /**
   * The object belongs to the principal (its user, a token or session of
   * its own). Only the API can tell; it grants the table's self-service
   * rows without a binding.
   */
  self?: boolean | undefined;
}

/** What was missing, for a 403 that says what to ask for. */
export interface MissingPermission {
  resource: string;
  verb: string;
  /** The scope the request was checked at. */
  scope: ScopeLabel;
}

/**
 * The decision. `by` names the grant that allowed it, for the audit log.
 * `reason` says whose rights fell short: the principal's own (`role`), or
 * only the scopes of the token it used (`token`).
 */
export type Decision =
  | { allowed: true; by: string }
  | { allowed: false; missing: MissingPermission; reason: "role" | "token" };

/**
 * Decides a request. Allowed when a binding whose subjects name the
 * principal (or one of its groups) has a role granting (resource, verb) at
 * a scope covering the request, or when the table lets anyone do it on
 * their own object; and then, for a token with scopes, when one of those
 * scopes grants it too: a token's rights are its owner's intersected with
 * its scopes, so a token can never do more than the one who made it.
 * Unknown roles and malformed scopes grant nothing.
 */
export function authorize(
  principal: Principal,
  bindings: readonly Binding[],
  request: AccessRequest,
): Decision {
  const scope = effectiveScope(request.resource, request.scope);
  const deny = (reason: "role" | "token"): Decision => ({
    allowed: false,
    missing: {
      resource: request.resource,
      verb: request.verb,
      scope: scopeLabel(scope),
    },
    reason,
  });
  const row = permission(request.resource, request.verb);
  if (row === undefined) return deny("role");

  const owner = ownerGrant(principal, bindings, request, scope) ??
    (request.self === true && row.self === true &&
        principal.via !== "anonymous"
      ? SELF
      : undefined);
  if (owner === undefined) return deny("role");
  // No scopes, or an empty list (how an APIToken stores "all of it"): the
  // owner's rights, unnarrowed.
  if (
    principal.tokenScopes === undefined || principal.tokenScopes.length === 0
  ) {
    return { allowed: true, by: owner };
  }

  const token = principal.tokenScopes.find((t) =>
    roleGrants(t.role, request.resource, request.verb) &&
    scopeCovers(t.scope ?? CLUSTER, scope)
  );
  if (token !== undefined) {
    return {
      allowed: true,
      by: `${owner}; token scope ${
        describeGrant(token.role, token.scope ?? CLUSTER)
      }`,
    };
  }
  // A narrowed token may still read its owner's own objects, but not write
  // them: a read-only token must not mint a token with its owner's full rights.
  if (owner === SELF && READ_VERBS.has(request.verb)) {
    return { allowed: true, by: `${SELF}, read through a scoped token` };
  }
  return deny("token");
}

const SELF = "self-service on an own object";

/** The first binding that grants the request to the principal, described. */
function ownerGrant(
  principal: Principal,
  bindings: readonly Binding[],
  request: AccessRequest,
  scope: ScopeRequest,
): string | undefined {
  for (const binding of bindings) {
    if (!roleGrants(binding.role, request.resource, request.verb)) continue;
    if (!scopeCovers(binding.scope, scope)) continue;
    const subject = binding.subjects.find((s) => subjectMatches(s, principal));
    if (subject !== undefined) {
      return `${describeGrant(binding.role, binding.scope)} via ${
        describeSubject(subject)
      }`;
    }
  }
  return undefined;
}

/**
 * Which of `zones` (DNSZone names) a list may show the principal: all of
 * them with a cluster-wide list grant, otherwise those a zone binding (and
 * the token's scopes) cover. `resource` is dnsrecordsets when listing
 * record sets across zones.
 */
export function visibleZones(
  principal: Principal,
  bindings: readonly Binding[],
  zones: readonly string[],
  resource: "dnszones" | "dnsrecordsets" = "dnszones",
): string[] {
  return zones.filter((name) =>
    authorize(principal, bindings, {
      resource,
      verb: "list",
      scope: { kind: "zone", name },
    }).allowed
  );
}

/** Every (resource, verb) the zone-admin role grants within a zone. */
const ZONE_ADMIN_RIGHTS = PERMISSIONS.filter((p) =>
  p.roles.includes("zone-admin") && isZoneScoped(p.resource)
);

/**
 * The binding the API should make after `principal` created the zone
 * `zone`, so the creator can go on administering it; undefined when none is
 * needed: the creator already holds every zone-admin right there (the case
 * for every role of today's table that may create a zone), is anonymous,
 * or could not have created it. Decided on the owner's lasting rights, not
 * the token used: the binding outlives the request.
 */
export function creatorBinding(
  principal: Principal,
  bindings: readonly Binding[],
  zone: string,
): Binding | undefined {
  const subject = subjectFor(principal);
  if (subject === undefined) return undefined;
  const owner: Principal = { ...principal, tokenScopes: undefined };
  const scope: ScopeRequest = { kind: "zone", name: zone };
  const may = (resource: Resource, verb: Verb) =>
    authorize(owner, bindings, { resource, verb, scope }).allowed;
  if (!may("dnszones", "create")) return undefined;
  if (ZONE_ADMIN_RIGHTS.every((p) => may(p.resource, p.verb))) return undefined;
  return {
    role: "zone-admin",
    scope: { kind: "zone", name: zone },
    subjects: [subject],
  };
}
