/**
 * `claimValidationRules`: claims a provider's token must carry before
 * anything else is read from it, such as Google's `hd` (the Workspace
 * domain: any Google account can get a token for a client) or Entra ID's
 * `tid` (one tenant). The form of Kubernetes' structured authentication
 * without CEL: a claim and the value it must have. A string claim must
 * equal the value, a list must contain it; booleans are compared as the
 * text "true" or "false". An absent claim, or one of another type (a
 * number, an object), fails: a rule that cannot be checked lets nobody in.
 */
import { LoginRefusedError } from "./claims.ts";

/** One rule (auth.identityProviders[].claimValidationRules[]). */
export interface ClaimRule {
  claim: string;
  requiredValue: string;
  /** What a refused user is told; "" for "claim <claim> must be <value>". */
  message: string;
}

/**
 * Checks every rule against `claims`.
 *
 * @throws {LoginRefusedError} reason `claim_rule`, with the first rule that failed
 */
export function checkClaimRules(
  rules: readonly ClaimRule[],
  claims: Record<string, unknown>,
): void {
  for (const rule of rules) {
    if (satisfies(claims[rule.claim], rule.requiredValue)) continue;
    throw new LoginRefusedError(
      "claim_rule",
      rule.message || `claim ${rule.claim} must be ${rule.requiredValue}`,
    );
  }
}

function satisfies(value: unknown, required: string): boolean {
  if (Array.isArray(value)) return value.some((v) => asText(v) === required);
  return asText(value) === required;
}

function asText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  return undefined;
}
