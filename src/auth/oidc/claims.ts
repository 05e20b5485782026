/**
 * From the claims of a validated ID token to who logged in: a user name
 * `<provider>:<name>` (so a provider's "admin" is never the local "admin"
 * and never matches a local user's binding), the groups with their
 * prefix, and the identity key (provider, iss, sub), which is what stays
 * the same for a person: names and emails get reassigned, `sub` does not.
 * An email names someone only when the provider says it verified it.
 */

/** How a provider's claims are read (auth.identityProviders[].claimMappings). */
export interface ClaimMappings {
  username: { claim: string; prefix: string };
  groups: { claim: string; prefix: string };
}

/** Who logged in, as kudurru names them. */
export interface OidcIdentity {
  /** `<provider>:<prefix><name>`. */
  username: string;
  /** Groups as the mapping prefixed them. */
  groups: string[];
  /** The identity key: never the email. */
  key: { provider: string; iss: string; sub: string };
}

/** A login the claims do not allow, with what to tell the user. */
export class LoginRefusedError extends Error {
  constructor(readonly reason: string, message: string) {
    super(message);
  }
}

/** The claims tried, in order, when the configured one is missing. */
const USERNAME_FALLBACKS = ["preferred_username", "upn", "email", "sub"];

/** Longest name or group kept; anything longer is refused, not cut. */
const MAX_NAME = 256;

/** Groups read from one token at most (a session keeps far fewer). */
const MAX_GROUPS = 5_000;

/** The identity in `claims` of an ID token from `provider`. */
export function mapClaims(
  provider: string,
  mappings: ClaimMappings,
  claims: Record<string, unknown>,
): OidcIdentity {
  const iss = claims.iss;
  const sub = claims.sub;
  if (typeof iss !== "string" || typeof sub !== "string" || sub === "") {
    throw new LoginRefusedError(
      "claims",
      "The identity provider's token has no issuer or subject",
    );
  }
  const name = usernameOf(mappings.username.claim, claims);
  return {
    username: `${provider}:${mappings.username.prefix}${name}`,
    groups: groupsOf(mappings.groups, claims),
    key: { provider, iss, sub },
  };
}

function usernameOf(claim: string, claims: Record<string, unknown>): string {
  for (
    const name of [
      claim,
      ...USERNAME_FALLBACKS.filter((c) => c !== claim),
    ]
  ) {
    if (name === "email" && claims.email_verified !== true) continue;
    const value = claims[name];
    if (typeof value === "string" && value.trim() !== "") {
      return checkedName(value.trim(), name);
    }
  }
  // sub is always there (mapClaims checked it); this is for a blank one.
  throw new LoginRefusedError("claims", "The token names no user");
}

function groupsOf(
  mapping: ClaimMappings["groups"],
  claims: Record<string, unknown>,
): string[] {
  // Entra ID sends a pointer instead of the groups when there are too many
  // for a token (over 200 in a JWT): the groups would be silently missing,
  // so their bindings would silently not apply. Refuse and say why.
  const names = claims._claim_names;
  const overage = claims.hasgroups === true || claims.hasgroups === "true" ||
    (typeof names === "object" && names !== null &&
      mapping.claim in (names as Record<string, unknown>));
  if (overage) {
    throw new LoginRefusedError(
      "group_overage",
      "The identity provider left the groups out of the token because the user is in too many (group overage); " +
        "have it send only the groups assigned to the application (Entra ID: groupMembershipClaims ApplicationGroup)",
    );
  }
  const value = claims[mapping.claim];
  if (value === undefined || value === null) return [];
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list)) {
    throw new LoginRefusedError(
      "claims",
      `The "${mapping.claim}" claim is neither a string nor a list`,
    );
  }
  if (list.length > MAX_GROUPS) {
    throw new LoginRefusedError(
      "claims",
      `The "${mapping.claim}" claim lists more than ${MAX_GROUPS} groups`,
    );
  }
  const out = new Set<string>();
  for (const g of list) {
    if (typeof g !== "string" || g === "") continue;
    out.add(`${mapping.prefix}${checkedName(g, mapping.claim)}`);
  }
  return [...out];
}

function checkedName(value: string, claim: string): string {
  // deno-lint-ignore no-control-regex
  if (value.length > MAX_NAME || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new LoginRefusedError(
      "claims",
      `The "${claim}" claim is too long or holds control characters`,
    );
  }
  return value;
}
