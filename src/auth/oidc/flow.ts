/**
 * The two halves of an authorization-code login with openid-client: the
 * redirect to the provider (state, nonce, PKCE S256, all fresh, kept in
 * the sealed pre-auth cookie) and the callback, where openid-client
 * checks the state, exchanges the code with the verifier and validates
 * the ID token: signature against the provider's keys, issuer, audience
 * (and azp), nonce, expiry and issue time. Nothing of the tokens is logged
 * or kept: only the claims go on, to claims.ts.
 */
import * as client from "openid-client";
import { IdpUnavailableError, type Provider } from "./providers.ts";
import { type PreAuth, PREAUTH_LIFETIME_MS } from "./preauth.ts";
import { LoginRefusedError } from "./claims.ts";

/** Where to send the browser, and the pre-auth to seal into its cookie. */
export async function startLogin(
  provider: Provider,
  redirectUri: string,
  next: string,
  now: number,
): Promise<{ url: URL; preAuth: PreAuth }> {
  const config = await provider.configuration();
  const verifier = client.randomPKCECodeVerifier();
  const preAuth: PreAuth = {
    p: provider.id,
    s: client.randomState(),
    n: client.randomNonce(),
    v: verifier,
    r: redirectUri,
    next,
    exp: now + PREAUTH_LIFETIME_MS,
  };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: provider.settings.scopes.join(" "),
    response_type: "code",
    state: preAuth.s,
    nonce: preAuth.n,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  });
  return { url, preAuth };
}

/**
 * The claims of the validated ID token of the login `callback` ends.
 *
 * @throws {LoginRefusedError} when the provider said no, or any check fails
 * @throws {IdpUnavailableError} when the provider cannot be reached
 */
export async function finishLogin(
  provider: Provider,
  preAuth: PreAuth,
  callback: URL,
): Promise<Record<string, unknown>> {
  const config = await provider.configuration();
  // The URL the provider redirected to, as sent: the redirect URI of the
  // login with the callback's query.
  const current = new URL(preAuth.r);
  current.search = callback.search;
  const error = callback.searchParams.get("error");
  if (error !== null) {
    throw new LoginRefusedError(
      "provider_error",
      `The identity provider refused the login: ${error.slice(0, 100)}`,
    );
  }
  let tokens;
  try {
    tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: preAuth.v,
      expectedState: preAuth.s,
      expectedNonce: preAuth.n,
      idTokenExpected: true,
    });
  } catch (error) {
    throw classify(provider.id, error);
  }
  const claims = tokens.claims();
  if (claims === undefined) {
    throw new LoginRefusedError("id_token", "The provider sent no ID token");
  }
  return { ...claims };
}

/** A failed exchange: the provider unreachable, or a check that failed. */
function classify(provider: string, error: unknown): Error {
  // fetch's own failures (refused, reset, timed out) are the provider's.
  if (
    error instanceof TypeError ||
    (error instanceof Error && error.name === "TimeoutError")
  ) {
    return new IdpUnavailableError(
      provider,
      `The identity provider "${provider}" could not be reached`,
      5,
      { cause: error },
    );
  }
  // openid-client wraps the failed check (oauth4webapi's error, whose
  // message names it: unexpected ID Token "nonce" claim value); the
  // messages hold no token. An error answer of the token endpoint has its
  // OAuth error code (invalid_grant).
  const outer = error instanceof Error ? error : new Error(String(error));
  const inner = outer.cause instanceof Error ? outer.cause : outer;
  const code = (outer as { error?: unknown }).error;
  const detail = typeof code === "string"
    ? `${inner.message} (${code})`
    : inner.message;
  return new LoginRefusedError(
    "id_token",
    `The login could not be verified: ${detail.slice(0, 200)}`,
  );
}

/** The provider's logout URL for `idToken`-less logout, when it has one. */
export async function endSessionUrl(
  provider: Provider,
  postLogoutRedirectUri: string,
): Promise<URL | undefined> {
  const config = await provider.configuration();
  if (config.serverMetadata().end_session_endpoint === undefined) {
    return undefined;
  }
  return client.buildEndSessionUrl(config, {
    client_id: provider.settings.clientID,
    post_logout_redirect_uri: postLogoutRedirectUri,
  });
}
