/**
 * A bearer ID token (src/auth/oidc/bearer.ts) as a caller of the API: the
 * same user name and bound groups a web login of that person gets
 * (claims.ts, grants.ts), with the grants resolved against the bindings in
 * force at every request. Its refusals as the API answers them: a token
 * that does not check out is 401, a person kudurru does not let in is 403
 * `login_refused` (as the web login's), a provider whose keys cannot be
 * fetched is `idp_unavailable`, never a 401 that would send a script to
 * log in again for nothing.
 */
import {
  BearerRefusedError,
  type BearerVerifier,
} from "../auth/oidc/bearer.ts";
import { LoginRefusedError } from "../auth/oidc/claims.ts";
import { resolveGrants } from "../auth/oidc/grants.ts";
import { IdpUnavailableError } from "../auth/oidc/providers.ts";
import type { Logger } from "../log/logger.ts";
import type { Binding } from "../rbac/binding.ts";
import type { Authenticated } from "./authenticated.ts";
import { ApiError } from "./errors.ts";

/** The caller a bearer ID token names. */
export function idTokenAuthentication(deps: {
  verifier: BearerVerifier;
  bindings(): Promise<readonly Binding[]>;
  logger: Logger;
}): (token: string) => Promise<Authenticated> {
  return async (token) => {
    try {
      const { provider, identity } = await deps.verifier.verify(token);
      const grants = resolveGrants(
        identity,
        await deps.bindings(),
        provider.settings.provisioning,
      );
      return {
        principal: {
          kind: "User",
          name: identity.username,
          groups: grants.groups,
          via: "token",
        },
      };
    } catch (error) {
      if (error instanceof BearerRefusedError) {
        throw new ApiError("unauthorized", error.message, {
          hint:
            "send a current ID token of a configured identity provider, issued to its cliClientID (kudurru login --provider gets one)",
        });
      }
      if (error instanceof LoginRefusedError) {
        deps.logger.info("Refused an ID token", { reason: error.reason });
        throw new ApiError("login_refused", error.message, {
          details: { reason: error.reason },
        });
      }
      if (error instanceof IdpUnavailableError) {
        throw new ApiError("idp_unavailable", error.message, {
          headers: { "Retry-After": String(error.retryAfterSeconds) },
          hint: "try again later, or use an API token (kdr_…) meanwhile",
          cause: error,
        });
      }
      throw error;
    }
  };
}
