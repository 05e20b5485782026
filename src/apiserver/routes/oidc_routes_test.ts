/**
 * OpenID Connect login end to end: a real provider on loopback
 * (testdata/test_provider.ts), kudurru's API in-process, and a browser
 * that follows every redirect with its own cookies. Each refusal is one
 * an attacker or a misconfiguration would cause.
 */
import assert from "node:assert/strict";
import { apiFixture } from "../testdata/api_fixture.ts";
import {
  API_ORIGIN,
  Browser,
  providerSettings,
  startTestProvider,
  type TestUsers,
} from "../../auth/oidc/testdata/test_provider.ts";

const USERS: TestUsers = {
  alice: {
    preferred_username: "alice",
    email: "alice@corp.example",
    email_verified: true,
    groups: ["dns-ops", "staff"],
  },
  bob: { preferred_username: "bob", groups: ["staff"] },
};

const BINDINGS = [{
  role: "operator",
  scope: { kind: "cluster" },
  subjects: [{ kind: "Group", name: "corp:dns-ops" }],
}];

async function setup(
  users: TestUsers = USERS,
  opts: { bindings?: unknown[]; provider?: Record<string, unknown> } = {},
) {
  const idp = await startTestProvider(users);
  const fixture = await apiFixture({
    config: {
      auth: {
        identityProviders: [providerSettings(idp.issuer, opts.provider)],
      },
      rbac: { bindings: opts.bindings ?? BINDINGS },
    },
  });
  const browser = new Browser((req) => fixture.api.app.request(req));
  return {
    idp,
    fixture,
    browser,
    async [Symbol.asyncDispose]() {
      await idp.stop();
      await fixture[Symbol.asyncDispose]();
    },
  };
}

const isCallback = (u: URL) =>
  u.origin === API_ORIGIN && u.pathname.endsWith("/callback");

/** Starts a login and signs `login` in at the provider; stops before the callback. */
async function toCallback(
  browser: Browser,
  login: string,
  next = "/zones",
  rewrite: (authorize: URL) => URL = (u) => u,
): Promise<string> {
  const start = await browser.request(
    `${API_ORIGIN}/api/v1/auth/oidc/corp/login?next=${encodeURIComponent(next)}`,
  );
  assert.deepEqual(start.status, 302, start.body);
  const authorize = rewrite(new URL(start.headers.get("location")!));
  const form = await browser.follow(authorize.href);
  const page = form.steps.at(-1)!;
  assert.deepEqual(page.status, 200, page.body);
  assert.match(page.url, /\/interaction\//);
  const signed = await browser.signIn(page.url, login, isCallback);
  assert.ok(signed.next, "the provider sent the browser back to kudurru");
  return signed.next;
}

Deno.test("a provider login ends in a session with the role of a group binding", async () => {
  await using t = await setup();
  const providers = await t.browser.request(
    `${API_ORIGIN}/api/v1/auth/providers`,
  );
  assert.deepEqual(JSON.parse(providers.body).data.providers, [
    { id: "corp", displayName: "Corp SSO" },
  ]);

  const start = await t.browser.request(
    `${API_ORIGIN}/api/v1/auth/oidc/corp/login?next=/zones`,
  );
  assert.deepEqual(start.status, 302);
  const authorize = new URL(start.headers.get("location")!);
  assert.deepEqual(authorize.origin, t.idp.issuer);
  assert.deepEqual(authorize.searchParams.get("code_challenge_method"), "S256");
  assert.ok(authorize.searchParams.get("state"));
  assert.ok(authorize.searchParams.get("nonce"));
  assert.ok(authorize.searchParams.get("code_challenge"));
  assert.deepEqual(
    authorize.searchParams.get("redirect_uri"),
    `${API_ORIGIN}/api/v1/auth/oidc/corp/callback`,
  );
  const preauth = start.headers.getSetCookie()[0]!;
  assert.match(preauth, /^kudurru_oidc=v1\./);
  assert.match(preauth, /HttpOnly/);
  assert.match(preauth, /SameSite=Lax/);
  assert.match(preauth, /Path=\/api\/v1\/auth\/oidc\/corp\/callback/);
  assert.match(preauth, /Max-Age=600/);
  // The verifier is sealed: nothing of it is readable in the cookie.
  assert.ok(!preauth.includes(authorize.searchParams.get("state")!));

  const form = await t.browser.follow(authorize.href);
  const signed = await t.browser.signIn(
    form.steps.at(-1)!.url,
    "alice",
    isCallback,
  );
  const done = await t.browser.request(signed.next!);
  assert.deepEqual(done.status, 302, done.body);
  assert.deepEqual(done.headers.get("location"), "/zones");
  const cookies = done.headers.getSetCookie().join("\n");
  assert.match(cookies, /kudurru_session=v1\./);
  assert.match(cookies, /kudurru_oidc=;/); // the pre-auth cookie is cleared

  const status = await t.browser.request(`${API_ORIGIN}/api/v1/auth/status`);
  const data = JSON.parse(status.body).data;
  assert.deepEqual(data.authenticated, true);
  assert.deepEqual(data.user, "corp:alice");
  assert.deepEqual(data.via, "session");
  assert.ok(
    data.permissions.dnsrecordsets?.includes("update"),
    JSON.stringify(data),
  );
  assert.ok(!data.permissions.settings?.includes("update"), "operator, not admin");
});
