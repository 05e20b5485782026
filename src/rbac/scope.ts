/**
 * Scopes: where a grant applies (a binding's or a token's) and where a
 * request lands, and whether the one covers the other.
 */
import { isZoneScoped } from "./permissions.ts";

/**
 * Where a request lands: the whole cluster, or one zone. A zone is named by
 * its DNSZone object (metadata.name, what a record set's zoneRef names), not
 * by its DNS name, so there is nothing to normalise.
 */
export type ScopeRequest = { kind: "cluster" } | { kind: "zone"; name: string };

/**
 * A binding's scope, as the config's `rbac.bindings[].scope` spells it.
 * `zonegroup` (zones chosen by a label selector) and `clientgroup` (what a
 * client group may change about itself) are seams: bindings may name them,
 * and they grant nothing yet, because a request does not carry a zone's
 * labels and no resource belongs to a client group today.
 */
export interface BindingScope {
  kind: "cluster" | "zone" | "zonegroup" | "clientgroup";
  name?: string | undefined;
}

/** A scope as messages and `missing` write it: "cluster" or "zone:<name>". */
export type ScopeLabel = "cluster" | `zone:${string}`;

/** The cluster scope. */
export const CLUSTER: ScopeRequest = { kind: "cluster" };

/** "cluster" or "zone:<name>". */
export function scopeLabel(scope: ScopeRequest): ScopeLabel {
  return scope.kind === "zone" ? `zone:${scope.name}` : "cluster";
}

/** "cluster", "zone:<name>", "zonegroup:<name>"…, for any binding scope. */
export function bindingScopeLabel(scope: BindingScope): string {
  return named(scope) ? `${scope.kind}:${scope.name}` : scope.kind;
}

/**
 * The scope a request on `resource` is checked at. A resource that cannot be
 * granted per zone is always checked at cluster scope, so a zone binding can
 * never reach it however the caller phrased the request.
 */
export function effectiveScope(
  resource: string,
  scope: ScopeRequest,
): ScopeRequest {
  return scope.kind === "zone" && isZoneScoped(resource) ? scope : CLUSTER;
}

/**
 * Whether a grant at scope `grant` covers a request at `request` (an
 * effective scope). Cluster covers everything; a zone covers itself only,
 * not the zones below it, which are zones of their own with their own
 * bindings. A malformed scope (a zone without a name, a cluster with one)
 * covers nothing, as do the zonegroup and clientgroup seams.
 */
export function scopeCovers(
  grant: BindingScope,
  request: ScopeRequest,
): boolean {
  switch (grant.kind) {
    case "cluster":
      return !named(grant);
    case "zone":
      return named(grant) && request.kind === "zone" &&
        grant.name === request.name;
    default:
      return false;
  }
}

/** Whether a binding scope has a name ("" counts as none, as YAML `name:` does). */
export function named(
  scope: BindingScope,
): scope is BindingScope & { name: string } {
  return scope.name !== undefined && scope.name !== "";
}
