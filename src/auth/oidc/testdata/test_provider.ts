/**
 * A real OpenID provider for tests (oidc-provider, the certified Node.js
 * implementation) on loopback, with its own RSA signing key, a confidential
 * client for kudurru, a public native client for `kudurru login` (loopback
 * redirects on any port, RFC 8252 §7.3), another client, users with
 * groups, and a browser
 * that follows redirects with a cookie jar, so a test drives the login the
 * way a person's browser would.
 */
import Provider from "oidc-provider";
import { createServer, type Server } from "node:http";
import { exportJWK, generateKeyPair } from "jose";

/** The client kudurru logs in as. */
export const CLIENT_ID = "kudurru";
export const CLIENT_SECRET = "kudurru-test-secret-0123456789abcdef";
/** Another client of the same provider. */
export const OTHER_CLIENT_ID = "other-app";
export const OTHER_CLIENT_SECRET = "other-test-secret-0123456789abcdef";
/** The public client of `kudurru login` (cliClientID). */
export const CLI_CLIENT_ID = "kudurru-cli";
/** Where kudurru's test API is (api.app.request's origin). */
export const API_ORIGIN = "http://localhost";

/** A user of the provider: its account id and the claims it has. */
export type TestUsers = Record<string, Record<string, unknown>>;

export interface TestProvider extends AsyncDisposable {
  issuer: string;
  port: number;
  provider: Provider;
  /** The key the provider signs with (its JWKS publishes it). */
  signingKey: CryptoKey;
  /** How many times the provider's keys (jwks_uri) were fetched. */
  jwksFetches(): number;
  stop(): Promise<void>;
}

/**
 * Starts the provider on 127.0.0.1 with `users`; `providerId` names the
 * callback path, `apiOrigin` the origin kudurru's API is reached at (a
 * benchmark serves it on a real port).
 */
export async function startTestProvider(
  users: TestUsers,
  opts: { providerId?: string; apiOrigin?: string } = {},
): Promise<TestProvider> {
  const providerId = opts.providerId ?? "corp";
  const apiOrigin = opts.apiOrigin ?? API_ORIGIN;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...await exportJWK(privateKey), use: "sig", alg: "RS256" };
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  const issuer = `http://127.0.0.1:${port}`;
  const redirect = `${apiOrigin}/api/v1/auth/oidc/${providerId}/callback`;
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    cookies: { keys: ["test-cookie-key-0123456789"] },
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [redirect],
        post_logout_redirect_uris: [`${apiOrigin}/`],
      },
      {
        client_id: CLI_CLIENT_ID,
        application_type: "native",
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        // A native client's loopback redirect matches on any port.
        redirect_uris: ["http://127.0.0.1/callback"],
      },
      {
        client_id: OTHER_CLIENT_ID,
        client_secret: OTHER_CLIENT_SECRET,
        redirect_uris: [redirect],
      },
    ],
    scopes: ["openid", "profile", "email", "groups"],
    claims: {
      openid: ["sub"],
      // hd (Google's Workspace domain) and tid (Entra ID's tenant), for
      // claimValidationRules.
      profile: ["preferred_username", "name", "upn", "hd", "tid"],
      email: ["email", "email_verified"],
      groups: ["groups", "hasgroups", "_claim_names", "_claim_sources"],
    },
    // The claims in the ID token itself, as Authentik, Keycloak and Entra send them.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    ttl: { IdToken: 3600 },
    // A refresh token for the CLI without offline_access and its consent.
    issueRefreshToken: (_ctx: unknown, client: { clientId: string }) =>
      Promise.resolve(client.clientId === CLI_CLIENT_ID),
    findAccount: (_ctx: unknown, id: string) => {
      const claims = users[id];
      if (claims === undefined) return undefined;
      return {
        accountId: id,
        claims: () => ({ sub: id, ...claims }),
      };
    },
    // No consent screen: the tests' users have agreed.
    loadExistingGrant: async (ctx: GrantContext) => {
      const grantId = ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (grantId) return await ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope("openid profile email groups");
      await grant.save();
      return grant;
    },
  });
  let jwks = 0;
  const callback = provider.callback();
  server.on("request", (req, res) => {
    if (req.url?.startsWith("/jwks")) jwks++;
    callback(req, res);
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    issuer,
    port,
    provider,
    signingKey: privateKey,
    jwksFetches: () => jwks,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** What loadExistingGrant uses of oidc-provider's context (it ships no types). */
interface GrantContext {
  oidc: {
    session: {
      grantIdFor(clientId: string): string | undefined;
      accountId: string;
    };
    client: { clientId: string };
    provider: {
      Grant: {
        find(id: string): Promise<unknown>;
        new (init: { clientId: string; accountId: string }): {
          addOIDCScope(scope: string): void;
          save(): Promise<string>;
        };
      };
    };
  };
}

/** The configuration entry of the test provider (auth.identityProviders[]). */
export function providerSettings(
  issuer: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: "corp",
    displayName: "Corp SSO",
    issuer,
    clientID: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    scopes: ["openid", "profile", "email", "groups"],
    claimMappings: { groups: { prefix: "corp:" } },
    ...extra,
  };
}

/** What one request of the browser got. */
export interface Step {
  url: string;
  status: number;
  headers: Headers;
  body: string;
}

/**
 * A browser: a cookie jar per origin, redirects followed by hand. Requests
 * to API_ORIGIN go to `api` (the app in-process), the others over loopback.
 */
export class Browser {
  readonly jar = new Map<string, Map<string, string>>();

  constructor(
    private readonly api: (req: Request) => Response | Promise<Response>,
  ) {}

  /** One request, cookies sent and stored. */
  async request(url: string, init: RequestInit = {}): Promise<Step> {
    const u = new URL(url);
    const headers = new Headers(init.headers);
    const cookies = this.jar.get(u.origin);
    if (cookies && cookies.size > 0) {
      headers.set(
        "cookie",
        [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
      );
    }
    const req = new Request(url, { ...init, headers, redirect: "manual" });
    const res = u.origin === API_ORIGIN
      ? await this.api(req)
      : await fetch(req);
    for (const set of res.headers.getSetCookie()) this.#store(u.origin, set);
    return {
      url,
      status: res.status,
      headers: res.headers,
      body: await res.text(),
    };
  }

  /**
   * Follows redirects from `url`; stops before a URL `stopBefore` accepts
   * (its URL is the last step's location) or at a page that is no redirect.
   */
  async follow(
    url: string,
    stopBefore: (url: URL) => boolean = () => false,
  ): Promise<{ steps: Step[]; next?: string }> {
    const steps: Step[] = [];
    let current = url;
    for (let i = 0; i < 20; i++) {
      const step = await this.request(current);
      steps.push(step);
      const location = step.headers.get("location");
      if (step.status < 300 || step.status >= 400 || location === null) {
        return { steps };
      }
      current = new URL(location, current).href;
      if (stopBefore(new URL(current))) return { steps, next: current };
    }
    throw new Error("too many redirects");
  }

  /**
   * Logs `login` in at the provider's login form (devInteractions) that the
   * last step showed, and follows on.
   */
  async signIn(
    interactionUrl: string,
    login: string,
    stopBefore: (url: URL) => boolean = () => false,
  ): Promise<{ steps: Step[]; next?: string }> {
    const step = await this.request(interactionUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ prompt: "login", login, password: "x" }),
    });
    const location = step.headers.get("location");
    if (location === null) {
      throw new Error(`the login form answered ${step.status}: ${step.body}`);
    }
    const rest = await this.follow(
      new URL(location, interactionUrl).href,
      stopBefore,
    );
    const last = rest.steps.at(-1);
    if (
      rest.next === undefined && last?.status === 200 &&
      /\/interaction\//.test(last.url)
    ) {
      // A native client's login is confirmed once more (oidc-provider's
      // native_client_prompt): a loopback redirect may be any local program.
      const consent = await this.#consent(last.url, stopBefore);
      return { ...consent, steps: [step, ...rest.steps, ...consent.steps] };
    }
    return { ...rest, steps: [step, ...rest.steps] };
  }

  async #consent(
    interactionUrl: string,
    stopBefore: (url: URL) => boolean,
  ): Promise<{ steps: Step[]; next?: string }> {
    const step = await this.request(interactionUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ prompt: "consent" }),
    });
    const location = step.headers.get("location");
    if (location === null) {
      throw new Error(`the consent form answered ${step.status}: ${step.body}`);
    }
    const rest = await this.follow(
      new URL(location, interactionUrl).href,
      stopBefore,
    );
    return { ...rest, steps: [step, ...rest.steps] };
  }

  #store(origin: string, header: string): void {
    const [pair] = header.split(";");
    const eq = pair!.indexOf("=");
    const name = pair!.slice(0, eq).trim();
    const value = pair!.slice(eq + 1).trim();
    const jar = this.jar.get(origin) ?? new Map<string, string>();
    this.jar.set(origin, jar);
    if (value === "" || /max-age=0/i.test(header)) jar.delete(name);
    else jar.set(name, value);
  }
}

/** What the provider's token endpoint answered the CLI's client. */
export interface CliTokens {
  id_token: string;
  refresh_token?: string;
}

/**
 * Signs `login` in at the provider for the CLI's public client, as
 * `kudurru login --provider` would (PKCE, a loopback redirect), and
 * exchanges the code: a genuine ID token for bearer tests.
 */
export async function cliTokens(
  issuer: string,
  login: string,
): Promise<CliTokens> {
  const browser = new Browser(() => {
    throw new Error("this browser only talks to the provider");
  });
  const verifier = "c".repeat(43);
  const challenge = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)),
  ).toBase64({ alphabet: "base64url", omitPadding: true });
  const redirect = "http://127.0.0.1:9/callback";
  const url = new URL(`${issuer}/auth`);
  for (
    const [k, v] of Object.entries({
      client_id: CLI_CLIENT_ID,
      response_type: "code",
      scope: "openid profile email groups",
      redirect_uri: redirect,
      state: "cli-state",
      nonce: "cli-nonce",
      code_challenge: challenge,
      code_challenge_method: "S256",
    })
  ) url.searchParams.set(k, v);
  const back = (u: URL) => u.href.startsWith(redirect);
  const form = await browser.follow(url.href, back);
  const signed = await browser.signIn(form.steps.at(-1)!.url, login, back);
  if (signed.next === undefined) throw new Error("no redirect to the CLI");
  const code = new URL(signed.next).searchParams.get("code");
  if (code === null) throw new Error(`no code in ${signed.next}`);
  const res = await fetch(`${issuer}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: CLI_CLIENT_ID,
      code,
      redirect_uri: redirect,
      code_verifier: verifier,
    }),
  });
  const tokens = await res.json();
  if (typeof tokens.id_token !== "string") {
    throw new Error(`the token endpoint answered ${JSON.stringify(tokens)}`);
  }
  return tokens;
}
