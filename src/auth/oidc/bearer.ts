/**
 * ID tokens as bearer tokens (`Authorization: Bearer <JWT>`), for the CLI
 * after `kudurru login --provider` and for automation that gets an ID
 * token from the provider (a CI job's). The token is routed by its `iss`
 * (read unverified, only to pick the provider) and then checked as
 * OpenID Connect Core §3.1.3.7 says for an ID token: the signature
 * against the provider's published keys (JWKS) with an algorithm it
 * advertises, the issuer, `aud` naming the provider's CLI client (and
 * `azp` that client when `aud` names several), `exp` to come and `iat`
 * past. An access token (`typ` at+jwt, RFC 9068) is refused: it is meant
 * for a resource server, and one issued to another application must not
 * open kudurru.
 *
 * A verified token is kept (only the identity it names, never a refusal)
 * under SHA-256 of the token until it expires or 15 minutes pass, so a
 * script's every request does not verify a signature again; the grants are
 * resolved at every request against the bindings in force.
 */
import * as jose from "jose";
import { checkClaimRules } from "./claim_rules.ts";
import { mapClaims, type OidcIdentity } from "./claims.ts";
import { IdpUnavailableError, type Provider } from "./providers.ts";

/** A token that does not check out: a 401, with what failed. */
export class BearerRefusedError extends Error {}

/** A verified token: who it names, and through which provider. */
export interface BearerIdentity {
  provider: Provider;
  identity: OidcIdentity;
}

/** Longest a verdict is reused, whatever the token's expiry. */
const MAX_CACHE_MS = 15 * 60_000;
/** Verdicts kept at most; the oldest goes first. */
const MAX_CACHE_ENTRIES = 10_000;
/** Seconds of clock difference with the provider that `exp` and `iat` allow. */
const CLOCK_SKEW_S = 60;
/** How long a fetch of the provider's keys may take. */
const JWKS_TIMEOUT_MS = 10_000;

/** Whether `token` looks like a JWT (three base64url parts) rather than a kdr_ token. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token) &&
    !token.startsWith("kdr_");
}

/** Checks bearer ID tokens against the configured providers. */
export class BearerVerifier {
  readonly #providers: readonly Provider[];
  readonly #now: () => number;
  readonly #maxEntries: number;
  readonly #jwks = new Map<
    Provider,
    ReturnType<typeof jose.createRemoteJWKSet>
  >();
  /** sha256(token) → the identity and until when it holds; in insertion order. */
  readonly #cache = new Map<string, { value: BearerIdentity; until: number }>();
  /** Signatures verified (not answered from the cache), for tests and metrics. */
  verified = 0;

  constructor(
    providers: readonly Provider[],
    opts: {
      /**
       * The wall clock, in ms: token times are the provider's, so they are
       * checked against the real time, as openid-client checks the web
       * login's ID token.
       */
      now?: () => number;
      maxEntries?: number;
    } = {},
  ) {
    this.#providers = providers;
    this.#now = opts.now ?? Date.now;
    this.#maxEntries = opts.maxEntries ?? MAX_CACHE_ENTRIES;
  }

  /** How many verdicts are kept. */
  get cached(): number {
    return this.#cache.size;
  }

  /**
   * Who `token` names.
   *
   * @throws {BearerRefusedError} when it is no valid ID token for kudurru
   * @throws {LoginRefusedError} (claims.ts) when its claims name nobody kudurru can take
   * @throws {IdpUnavailableError} when the provider's keys cannot be fetched
   */
  async verify(token: string): Promise<BearerIdentity> {
    const key = await sha256(token);
    const now = this.#now();
    const hit = this.#cache.get(key);
    if (hit !== undefined) {
      if (hit.until > now) return hit.value;
      this.#cache.delete(key);
    }
    const { value, exp } = await this.#verify(token, now);
    this.verified++;
    const until = Math.min(exp * 1000, now + MAX_CACHE_MS);
    this.#cache.set(key, { value, until });
    while (this.#cache.size > this.#maxEntries) {
      this.#cache.delete(this.#cache.keys().next().value!);
    }
    return value;
  }

  async #verify(
    token: string,
    now: number,
  ): Promise<{ value: BearerIdentity; exp: number }> {
    let unverified: jose.JWTPayload;
    let header: jose.ProtectedHeaderParameters;
    try {
      unverified = jose.decodeJwt(token);
      header = jose.decodeProtectedHeader(token);
    } catch {
      throw new BearerRefusedError("The bearer token is not a JWT");
    }
    const typ = header.typ?.toLowerCase();
    if (typ === "at+jwt" || typ === "application/at+jwt") {
      throw new BearerRefusedError(
        "The bearer token is an access token (typ at+jwt); send the ID token",
      );
    }
    const aud = typeof unverified.aud === "string"
      ? [unverified.aud]
      : Array.isArray(unverified.aud)
      ? unverified.aud
      : [];
    // Several providers may share an issuer with different clients.
    const candidates = this.#providers.filter((p) =>
      p.settings.issuer === unverified.iss
    );
    if (candidates.length === 0) {
      throw new BearerRefusedError(
        `No identity provider has the token's issuer ${
          JSON.stringify(String(unverified.iss ?? "")).slice(0, 200)
        }`,
      );
    }
    const provider = candidates.find((p) => aud.includes(p.cliClientID));
    if (provider === undefined) {
      throw new BearerRefusedError(
        `The ID token is not for kudurru: its audience does not name the client ${
          candidates.map((p) => p.cliClientID).join(" or ")
        }`,
      );
    }
    const config = await provider.configuration();
    const metadata = config.serverMetadata();
    let payload: jose.JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(
        token,
        this.#keysOf(provider, metadata),
        {
          issuer: metadata.issuer,
          audience: provider.cliClientID,
          // OpenID Connect Discovery: RS256 when the provider names none.
          algorithms: metadata.id_token_signing_alg_values_supported ??
            ["RS256"],
          requiredClaims: ["iss", "sub", "aud", "exp", "iat"],
          clockTolerance: CLOCK_SKEW_S,
          currentDate: new Date(now),
        },
      ));
    } catch (error) {
      throw classify(provider, error);
    }
    if (payload.iat! > now / 1000 + CLOCK_SKEW_S) {
      throw new BearerRefusedError("The ID token was issued in the future");
    }
    const audience = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    // Core §3.1.3.7: with several audiences, azp names the client the
    // token was issued to; when present it must be ours.
    if (
      (audience.length > 1 || payload.azp !== undefined) &&
      payload.azp !== provider.cliClientID
    ) {
      throw new BearerRefusedError(
        `The ID token was issued to another client (azp ${
          JSON.stringify(String(payload.azp ?? "")).slice(0, 100)
        })`,
      );
    }
    // Before anything is read from the claims; a refusal is not kept.
    checkClaimRules(
      provider.settings.claimValidationRules,
      payload as Record<string, unknown>,
    );
    const identity = mapClaims(
      provider.id,
      provider.settings.claimMappings,
      payload as Record<string, unknown>,
    );
    return { value: { provider, identity }, exp: payload.exp! };
  }

  #keysOf(
    provider: Provider,
    metadata: { jwks_uri?: string | undefined },
  ): ReturnType<typeof jose.createRemoteJWKSet> {
    let keys = this.#jwks.get(provider);
    if (keys === undefined) {
      if (metadata.jwks_uri === undefined) {
        throw new IdpUnavailableError(
          provider.id,
          `The identity provider "${provider.id}" publishes no jwks_uri`,
          60,
        );
      }
      keys = jose.createRemoteJWKSet(new URL(metadata.jwks_uri), {
        timeoutDuration: JWKS_TIMEOUT_MS,
      });
      this.#jwks.set(provider, keys);
    }
    return keys;
  }
}

/** A failed verification: the provider's keys unreachable, or a check that failed. */
function classify(provider: Provider, error: unknown): Error {
  if (
    error instanceof TypeError || error instanceof jose.errors.JWKSTimeout ||
    (error instanceof jose.errors.JOSEError &&
      error.code === "ERR_JOSE_GENERIC" &&
      /JSON Web Key Set/.test(error.message)) ||
    error instanceof jose.errors.JWKSInvalid
  ) {
    return new IdpUnavailableError(
      provider.id,
      `The keys of the identity provider "${provider.id}" could not be fetched`,
      5,
      { cause: error },
    );
  }
  if (error instanceof jose.errors.JWKSNoMatchingKey) {
    return new BearerRefusedError(
      `The ID token is signed with a key the identity provider "${provider.id}" does not publish`,
    );
  }
  if (error instanceof jose.errors.JWTExpired) {
    return new BearerRefusedError("The ID token has expired");
  }
  if (error instanceof jose.errors.JOSEError) {
    // jose's messages name the failed check and hold nothing of the token.
    return new BearerRefusedError(
      `The ID token is not valid: ${error.message.slice(0, 200)}`,
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return new Uint8Array(digest).toHex();
}
