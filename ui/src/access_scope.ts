/**
 * Roles, scopes and names as the access page reads and writes them: a
 * binding's or a token's scope as text ("cluster", "zone:home") and back,
 * a binding's default name, and a token's lifetime choices.
 */
import { fill, strings } from "./strings.ts";

/** The roles of the permissions table (docs/api.md). */
export const ROLES = ["viewer", "operator", "admin", "auditor", "zone-admin"];

export interface Scope {
  kind: string;
  name?: string;
}

/** "cluster", "zone:home". */
export function scopeLabel(scope: Scope | undefined): string {
  if (scope === undefined || scope.kind === "cluster") return "cluster";
  return `${scope.kind}:${scope.name ?? ""}`;
}

/** A token scope as `role at scope`: "viewer at cluster". */
export function grantLabel(grant: { role: string; scope?: Scope }): string {
  return fill(strings.access.token.grant, {
    role: grant.role,
    scope: scopeLabel(grant.scope),
  });
}

/** The scope of a binding or token from the form: cluster, or a zone by name. */
export function scopeOf(kind: "cluster" | "zone", zone: string): Scope {
  return kind === "cluster" ? { kind } : { kind, name: zone.trim() };
}

/**
 * A binding's name when the form leaves it empty: subject, role and zone
 * ("bob-viewer", "ops-zone-admin-home"), made a valid object name.
 */
export function bindingName(
  subject: string,
  role: string,
  scope: Scope,
): string {
  const parts = [subject, role, scope.kind === "cluster" ? "" : scope.name];
  return parts.filter((p) => p !== undefined && p !== "").join("-")
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 63)
    .replace(/-+$/, "");
}

/** The lifetimes a new token may have, in seconds (0: no expiry). */
export const TOKEN_LIFETIMES = {
  "1d": 86_400,
  "7d": 7 * 86_400,
  "30d": 30 * 86_400,
  "90d": 90 * 86_400,
  "365d": 365 * 86_400,
  never: 0,
} as const;

export type TokenLifetime = keyof typeof TOKEN_LIFETIMES;
