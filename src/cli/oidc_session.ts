/**
 * A context's ID token, current: one that has expired (or is about to) is
 * renewed with the context's refresh token at the provider, as a public
 * client, and the contexts file is written again with the new tokens; one
 * without a refresh token means logging in again. An API token (`kdr_`)
 * context passes through untouched.
 */
import * as client from "openid-client";
import { decodeJwt } from "jose";
import {
  type CliContext,
  readContexts,
  withContext,
  writeContexts,
} from "./contexts.ts";
import { publicClient } from "./oidc_login.ts";

/** Renewed this long before the expiry, so a request does not race it. */
const MARGIN_MS = 30_000;

/**
 * `context` with an ID token good for a while yet.
 *
 * @throws {Error} "session expired" when it cannot be renewed
 */
export async function freshContext(
  context: CliContext,
  path: string,
  now: () => number = Date.now,
): Promise<CliContext> {
  const oidc = context.oidc;
  if (oidc === undefined) return context;
  if (expiresAt(context.token) > now() + MARGIN_MS) return context;
  const again =
    `session expired: run kudurru login --server ${context.server} --provider ${oidc.provider} again`;
  if (oidc.refreshToken === undefined) throw new Error(again);
  const config = await publicClient(oidc.issuer, oidc.clientID);
  let tokens;
  try {
    tokens = await client.refreshTokenGrant(config, oidc.refreshToken);
  } catch (err) {
    // A refresh token that expired or was revoked: log in again.
    throw new Error(
      `${again} (the provider did not renew it: ${
        err instanceof Error ? err.message.slice(0, 200) : String(err)
      })`,
      { cause: err },
    );
  }
  if (tokens.id_token === undefined) {
    throw new Error(`${again} (the provider renewed no ID token)`);
  }
  const renewed: CliContext = {
    ...context,
    token: tokens.id_token,
    oidc: {
      ...oidc,
      // Providers that rotate refresh tokens send a new one each time.
      refreshToken: tokens.refresh_token ?? oidc.refreshToken,
    },
  };
  const file = await readContexts(path);
  await writeContexts(path, withContext(file, renewed));
  return renewed;
}

/** When the JWT `token` expires, in ms; 0 when it says nothing readable. */
function expiresAt(token: string): number {
  try {
    const exp = decodeJwt(token).exp;
    return typeof exp === "number" ? exp * 1000 : 0;
  } catch {
    return 0;
  }
}
