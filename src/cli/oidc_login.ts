/**
 * `kudurru login --provider`: an OpenID Connect login of a native app
 * (RFC 8252). The server says which providers it takes (issuer, public
 * client id, scopes; never a secret); the CLI discovers the provider,
 * listens on 127.0.0.1 on a random port (RFC 8252 §7.3), sends the
 * browser to the provider with state, nonce and PKCE S256, and exchanges
 * the code the provider sends back, as a public client. openid-client
 * validates the ID token (signature, issuer, audience, nonce, times). The
 * ID token is what the CLI then sends as its bearer token; the refresh
 * token, when the provider gives one, renews it (oidc_session.ts).
 */
import * as client from "openid-client";
import { isLoopback } from "../auth/oidc/providers.ts";
import { type ApiClient, describeFailure, failureOf } from "./api_client.ts";
import type { CommandIO } from "./command.ts";

/** What a login through a provider gives the context. */
export interface OidcTokens {
  idToken: string;
  refreshToken?: string;
  issuer: string;
  clientID: string;
  provider: string;
}

/** A provider as GET /api/v1/auth/providers lists it. */
interface ListedProvider {
  id: string;
  issuer: string;
  cliClientID?: string;
  scopes?: string[];
}

/** How long the browser has to come back. */
export const CALLBACK_TIMEOUT_MS = 5 * 60_000;

const PAGE =
  "<!doctype html><meta charset=utf-8><title>kudurru</title><p>The login went back to the kudurru CLI. You can close this window.</p>\n";

/**
 * The provider of `server` named `wanted`, or its only one.
 *
 * @throws {Error} naming the providers there are when it is ambiguous
 */
export async function pickProvider(
  api: ApiClient,
  wanted: string | undefined,
): Promise<ListedProvider & { cliClientID: string }> {
  const res = await api.request("GET", "/api/v1/auth/providers", {
    signal: AbortSignal.timeout(30_000),
  });
  if (!res.ok) {
    throw new Error(
      `cannot list the server's identity providers: ${
        describeFailure(await failureOf(res))
      }`,
    );
  }
  const list = ((await res.json()) as { data?: { providers?: unknown } })
    .data?.providers;
  const providers = Array.isArray(list) ? list as ListedProvider[] : [];
  const ids = providers.map((p) => p.id).join(", ");
  let found: ListedProvider | undefined;
  if (wanted === undefined) {
    if (providers.length !== 1) {
      throw new Error(
        providers.length === 0
          ? `${api.server} has no identity provider: log in with --username or --token-file`
          : `${api.server} has several identity providers: choose one with --provider (${ids})`,
      );
    }
    found = providers[0];
  } else {
    found = providers.find((p) => p.id === wanted);
    if (found === undefined) {
      throw new Error(
        `${api.server} has no identity provider "${wanted}"${
          ids === "" ? "" : ` (it has: ${ids})`
        }`,
      );
    }
  }
  if (typeof found?.cliClientID !== "string" || found.cliClientID === "") {
    throw new Error(
      `the identity provider "${found?.id}" has no client for the CLI: an admin sets its cliClientID (a public client at the provider)`,
    );
  }
  return found as ListedProvider & { cliClientID: string };
}

/** The discovered configuration of a public client at `issuer`. */
export async function publicClient(
  issuer: string,
  clientID: string,
): Promise<client.Configuration> {
  const url = new URL(issuer);
  try {
    return await client.discovery(url, clientID, undefined, client.None(), {
      timeout: 30,
      // Plain HTTP only to a provider on this machine.
      ...(isLoopback(url) && { execute: [client.allowInsecureRequests] }),
    });
  } catch (err) {
    throw new Error(
      `cannot reach the identity provider at ${issuer}: ${messageOf(err)}`,
      { cause: err },
    );
  }
}

/**
 * Logs in at `provider` through the browser and a loopback listener.
 *
 * @throws {Error} when the provider refuses, the browser does not come
 *   back in time, or the answer does not check out
 */
export async function browserLogin(
  provider: ListedProvider & { cliClientID: string },
  io: CommandIO,
  opts: { openBrowser: boolean; timeoutMs?: number },
): Promise<OidcTokens> {
  const config = await publicClient(provider.issuer, provider.cliClientID);
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const { promise: called, resolve } = Promise.withResolvers<URL>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: () => {},
  }, (req) => {
    const url = new URL(req.url);
    if (url.pathname !== "/callback") {
      return new Response("not found\n", { status: 404 });
    }
    resolve(url);
    return new Response(PAGE, {
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  });
  try {
    const redirectUri = `http://127.0.0.1:${server.addr.port}/callback`;
    const authorize = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: (provider.scopes ?? ["openid"]).join(" "),
      response_type: "code",
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    });
    io.stderr(
      `Log in at the identity provider "${provider.id}" in a browser:\n\n  ${authorize.href}\n\nWaiting for the browser to come back to ${redirectUri} …\n`,
    );
    if (opts.openBrowser) await tryOpen(authorize.href);
    const timeoutMs = opts.timeoutMs ?? CALLBACK_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const callback = await Promise.race([
      called,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `the browser did not come back within ${
                  timeoutMs / 60_000
                } minutes: run kudurru login again`,
              ),
            ),
          timeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    const error = callback.searchParams.get("error");
    if (error !== null) {
      throw new Error(
        `the identity provider refused the login: ${error.slice(0, 100)}${
          callback.searchParams.has("error_description")
            ? ` (${
              callback.searchParams.get("error_description")!.slice(0, 200)
            })`
            : ""
        }`,
      );
    }
    // The URL as the provider sent it: the registered redirect with its query.
    const current = new URL(redirectUri);
    current.search = callback.search;
    let tokens;
    try {
      tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
        idTokenExpected: true,
      });
    } catch (err) {
      throw new Error(`the login could not be verified: ${detailOf(err)}`, {
        cause: err,
      });
    }
    if (tokens.id_token === undefined) {
      throw new Error("the identity provider sent no ID token");
    }
    return {
      idToken: tokens.id_token,
      ...(tokens.refresh_token !== undefined &&
        { refreshToken: tokens.refresh_token }),
      issuer: provider.issuer,
      clientID: provider.cliClientID,
      provider: provider.id,
    };
  } finally {
    await server.shutdown();
  }
}

/** Opens `url` in the desktop's browser when there is an opener; never fails. */
async function tryOpen(url: string): Promise<void> {
  const opener = Deno.build.os === "darwin" ? "open" : "xdg-open";
  try {
    const child = new Deno.Command(opener, {
      args: [url],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    // The opener may stay with the browser; do not wait for it.
    child.unref();
    await Promise.resolve();
  } catch {
    // No opener (a server, a container): the URL is printed.
  }
}

/** openid-client's failed check (oauth4webapi's message), without any token. */
function detailOf(err: unknown): string {
  const outer = err instanceof Error ? err : new Error(String(err));
  const inner = outer.cause instanceof Error ? outer.cause : outer;
  const code = (outer as { error?: unknown }).error;
  return (typeof code === "string"
    ? `${inner.message} (${code})`
    : inner.message)
    .slice(0, 300);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
