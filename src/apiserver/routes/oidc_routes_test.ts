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
  OTHER_CLIENT_ID,
  OTHER_CLIENT_SECRET,
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
  opts: {
    bindings?: unknown[];
    provider?: Record<string, unknown>;
    tls?: boolean;
    /** auth.publicURL, which the provider registers as the API's origin. */
    publicURL?: string;
    /** listeners.api.pathPrefix */
    pathPrefix?: string;
  } = {},
) {
  const idp = await startTestProvider(
    users,
    opts.publicURL === undefined
      ? {}
      : { apiOrigin: opts.publicURL.replace(/\/$/, "") },
  );
  const fixture = await apiFixture({
    config: {
      auth: {
        identityProviders: [providerSettings(idp.issuer, opts.provider)],
        ...(opts.publicURL !== undefined && { publicURL: opts.publicURL }),
      },
      rbac: { bindings: opts.bindings ?? BINDINGS },
      ...(opts.pathPrefix !== undefined &&
        { listeners: { api: { pathPrefix: opts.pathPrefix } } }),
    },
    ...(opts.tls !== undefined && { tls: opts.tls }),
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
    `${API_ORIGIN}/api/v1/auth/oidc/corp/login?next=${
      encodeURIComponent(next)
    }`,
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
  // No client id of the CLI is configured: none is listed, and no secret.
  assert.deepEqual(JSON.parse(providers.body).data.providers, [
    {
      id: "corp",
      displayName: "Corp SSO",
      issuer: t.idp.issuer,
      scopes: ["openid", "profile", "email", "groups"],
    },
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
  assert.deepEqual(data.provider, "corp");
  assert.ok(
    data.permissions.dnsrecordsets?.includes("update"),
    JSON.stringify(data),
  );
  assert.ok(
    !data.permissions.settings?.includes("update"),
    "operator, not admin",
  );
});

/** The error an answer carries. */
function errorOf(
  step: { body: string },
): { key: string; reason?: string; message: string } {
  return JSON.parse(step.body).error;
}

Deno.test("the pre-auth cookie is good for one callback only", async () => {
  await using t = await setup();
  const callback = await toCallback(t.browser, "alice");
  const preauth = t.browser.jar.get(API_ORIGIN)!.get("kudurru_oidc")!;
  assert.ok(preauth);
  const first = await t.browser.request(callback);
  assert.equal(first.status, 302, first.body);

  // The same cookie and the same callback again, as a replay would send them.
  const replay = new Browser((req) => t.fixture.api.app.request(req));
  replay.jar.set(API_ORIGIN, new Map([["kudurru_oidc", preauth]]));
  const again = await replay.request(callback);
  assert.equal(again.status, 403);
  assert.equal(errorOf(again).key, "login_refused");
  assert.equal(errorOf(again).reason, "replayed");
  assert.ok(
    !again.headers.getSetCookie().some((c) => /kudurru_session=v1/.test(c)),
  );

  // A callback without the cookie: a login started in another browser.
  const stranger = new Browser((req) => t.fixture.api.app.request(req));
  const none = await stranger.request(callback);
  assert.equal(none.status, 403);
  assert.equal(errorOf(none).reason, "no_login");
});

Deno.test("an ID token with another nonce is refused", async () => {
  await using t = await setup();
  const callback = await toCallback(t.browser, "alice", "/", (u) => {
    u.searchParams.set("nonce", "attacker-chosen-nonce-0123456789");
    return u;
  });
  const done = await t.browser.request(callback);
  assert.equal(done.status, 403, done.body);
  assert.equal(errorOf(done).reason, "id_token");
  assert.match(errorOf(done).message, /nonce/);
  // Refused or not, the pre-auth cookie is gone.
  assert.ok(
    done.headers.getSetCookie().some((c) => /^kudurru_oidc=;/.test(c)),
  );
  const status = await t.browser.request(`${API_ORIGIN}/api/v1/auth/status`);
  assert.equal(JSON.parse(status.body).data.authenticated, false);
});

Deno.test("a state that does not match the cookie is refused", async () => {
  await using t = await setup();
  const callback = new URL(await toCallback(t.browser, "alice"));
  callback.searchParams.set("state", "some-other-state");
  const done = await t.browser.request(callback.href);
  assert.equal(done.status, 403, done.body);
  assert.equal(errorOf(done).reason, "id_token");
  assert.match(errorOf(done).message, /state/);
});

Deno.test("an ID token issued to another client is refused (audience)", async () => {
  await using t = await setup();
  const start = await t.browser.request(
    `${API_ORIGIN}/api/v1/auth/oidc/corp/login?next=/`,
  );
  const authorize = new URL(start.headers.get("location")!);
  const nonce = authorize.searchParams.get("nonce")!;
  const form = await t.browser.follow(authorize.href);
  const signed = await t.browser.signIn(
    form.steps.at(-1)!.url,
    "alice",
    isCallback,
  );
  // A genuine ID token, signed by the provider, for the same user and
  // nonce, but issued to another client.
  const otherToken = await idTokenForOtherClient(t, nonce);
  const tokenEndpoint = `${t.idp.issuer}/token`;
  const realFetch = globalThis.fetch;
  // The token response is swapped in flight, as a mix-up or a
  // man-in-the-middle would: kudurru must check the audience itself.
  globalThis.fetch = async (input, init) => {
    const res = await realFetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (url !== tokenEndpoint) return res;
    const body = await res.json();
    return Response.json({ ...body, id_token: otherToken }, {
      status: res.status,
    });
  };
  let done;
  try {
    done = await t.browser.request(signed.next!);
  } finally {
    globalThis.fetch = realFetch;
  }
  assert.equal(done.status, 403, done.body);
  assert.equal(errorOf(done).reason, "id_token");
  assert.match(errorOf(done).message, /aud/);
});

/** An ID token from the provider's other client, with `nonce`, for the signed-in user. */
async function idTokenForOtherClient(
  t: Awaited<ReturnType<typeof setup>>,
  nonce: string,
): Promise<string> {
  const verifier = "v".repeat(43);
  const challenge = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)),
  ).toBase64({ alphabet: "base64url", omitPadding: true });
  const redirect = `${API_ORIGIN}/api/v1/auth/oidc/corp/callback`;
  const url = new URL(`${t.idp.issuer}/auth`);
  for (
    const [k, v] of Object.entries({
      client_id: OTHER_CLIENT_ID,
      response_type: "code",
      scope: "openid profile email groups",
      redirect_uri: redirect,
      state: "other-state",
      nonce,
      code_challenge: challenge,
      code_challenge_method: "S256",
    })
  ) url.searchParams.set(k, v);
  const back = await t.browser.follow(url.href, isCallback);
  assert.ok(back.next, "the provider's session signed the other client in");
  const code = new URL(back.next).searchParams.get("code")!;
  const res = await fetch(`${t.idp.issuer}/token`, {
    method: "POST",
    headers: {
      authorization: `Basic ${
        btoa(`${OTHER_CLIENT_ID}:${OTHER_CLIENT_SECRET}`)
      }`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirect,
      code_verifier: verifier,
    }),
  });
  const tokens = await res.json();
  assert.ok(tokens.id_token, JSON.stringify(tokens));
  return tokens.id_token;
}

Deno.test("a user no binding names is refused, and gets no session", async () => {
  await using t = await setup();
  const done = await t.browser.request(await toCallback(t.browser, "bob"));
  assert.equal(done.status, 403, done.body);
  assert.equal(errorOf(done).key, "login_refused");
  assert.equal(errorOf(done).reason, "no_binding");
  assert.match(errorOf(done).message, /corp:bob has no role/);
  assert.ok(
    !done.headers.getSetCookie().some((c) => /kudurru_session=v1/.test(c)),
  );
});

Deno.test("claimValidationRules refuse a login whose claim differs or is absent, with the rule's message", async () => {
  const users: TestUsers = {
    alice: { ...USERS.alice, tid: "tenant-a" },
    mallory: { preferred_username: "mallory", groups: ["dns-ops"], tid: "x" },
    nobody: { preferred_username: "nobody", groups: ["dns-ops"] },
  };
  await using t = await setup(users, {
    provider: {
      claimValidationRules: [{
        claim: "tid",
        requiredValue: "tenant-a",
        message: "Only accounts of the Corp tenant may log in",
      }],
    },
  });
  // A bound user of another tenant, and one whose token has no tid.
  for (const login of ["mallory", "nobody"]) {
    const browser = new Browser((req) => t.fixture.api.app.request(req));
    const done = await browser.request(await toCallback(browser, login));
    assert.equal(done.status, 403, `${login}: ${done.body}`);
    assert.equal(errorOf(done).key, "login_refused");
    assert.equal(errorOf(done).reason, "claim_rule");
    assert.equal(
      errorOf(done).message,
      "Only accounts of the Corp tenant may log in",
    );
    assert.ok(
      !done.headers.getSetCookie().some((c) => /kudurru_session=v1/.test(c)),
    );
  }
  const ok = await t.browser.request(await toCallback(t.browser, "alice"));
  assert.equal(ok.status, 302, ok.body);
  const status = await t.browser.request(`${API_ORIGIN}/api/v1/auth/status`);
  assert.equal(JSON.parse(status.body).data.user, "corp:alice");
});

Deno.test("a browser's refused login goes back to the login page with the error in a cookie", async () => {
  await using t = await setup();
  const callback = await toCallback(t.browser, "bob");
  const page = { accept: "text/html,application/xhtml+xml" };
  const done = await t.browser.request(callback, { headers: page });
  assert.equal(done.status, 303, done.body);
  assert.equal(done.headers.get("location"), "/");
  const cookies = done.headers.getSetCookie();
  assert.ok(!cookies.some((c) => /kudurru_session=v1/.test(c)));
  const error = cookies.find((c) => c.startsWith("kudurru_login_error="))!;
  assert.ok(error, cookies.join("\n"));
  // The page's script reads it, briefly: not HttpOnly, a minute, every path.
  assert.doesNotMatch(error, /HttpOnly/);
  assert.match(error, /Max-Age=60/);
  assert.match(error, /Path=\//);
  const value = JSON.parse(
    decodeURIComponent(error.slice(error.indexOf("=") + 1, error.indexOf(";"))),
  );
  assert.equal(value.key, "login_refused");
  assert.equal(value.reason, "no_binding");
  assert.match(value.message, /corp:bob has no role/);
});

Deno.test("a browser whose provider cannot be reached goes back to the login page; a script gets the JSON", async () => {
  await using t = await setup();
  await t.idp.stop();
  const page = { accept: "text/html,application/xhtml+xml" };
  const down = await t.browser.request(
    `${API_ORIGIN}/api/v1/auth/oidc/corp/login?next=/zones`,
    { headers: page },
  );
  assert.equal(down.status, 303, down.body);
  assert.match(
    decodeURIComponent(down.headers.getSetCookie().join("\n")),
    /"key":"idp_unavailable"/,
  );
  // A request that is no page load still gets the JSON error.
  const script = await t.browser.request(
    `${API_ORIGIN}/api/v1/auth/oidc/corp/login?next=/zones`,
  );
  assert.equal(script.status, 502);
  assert.equal(errorOf(script).key, "idp_unavailable");
});

Deno.test("an unverified email names nobody", async () => {
  // The admin binding names an email; the token carries that email, unverified.
  await using t = await setup({
    "u-7f3a": { email: "boss@corp.example", email_verified: false },
  }, {
    bindings: [{
      role: "admin",
      scope: { kind: "cluster" },
      subjects: [{ kind: "User", name: "corp:boss@corp.example" }],
    }],
  });
  const done = await t.browser.request(await toCallback(t.browser, "u-7f3a"));
  assert.equal(done.status, 403, done.body);
  assert.equal(errorOf(done).reason, "no_binding");
  // Named by its subject instead.
  assert.match(errorOf(done).message, /^corp:u-7f3a has no role/);
});

Deno.test("a token that leaves the groups out (overage) is refused with why", async () => {
  await using t = await setup({
    carol: { preferred_username: "carol", hasgroups: true },
  });
  const done = await t.browser.request(await toCallback(t.browser, "carol"));
  assert.equal(done.status, 403, done.body);
  assert.equal(errorOf(done).reason, "group_overage");
  assert.match(errorOf(done).message, /too many/);
});

Deno.test("a user in 200 groups fits in the session cookie", async () => {
  const groups = Array.from(
    { length: 200 },
    (_, i) =>
      `a-rather-long-directory-group-name-${String(i).padStart(3, "0")}`,
  );
  await using t = await setup({
    dave: { preferred_username: "dave", groups },
  }, {
    bindings: [{
      role: "operator",
      scope: { kind: "cluster" },
      subjects: [{
        kind: "Group",
        name: "corp:a-rather-long-directory-group-name-117",
      }],
    }],
  });
  const done = await t.browser.request(await toCallback(t.browser, "dave"));
  assert.equal(done.status, 302, done.body);
  const session = done.headers.getSetCookie().find((c) =>
    c.startsWith("kudurru_session=")
  )!;
  assert.ok(session.length < 4096, `${session.length} bytes`);
  assert.ok(!session.includes("group-name-000"));
  const status = await t.browser.request(`${API_ORIGIN}/api/v1/auth/status`);
  const data = JSON.parse(status.body).data;
  assert.equal(data.user, "corp:dave");
  assert.ok(data.permissions.dnsrecordsets?.includes("update"));
});

Deno.test("a provider that is down is idp_unavailable, and not asked again at once", async () => {
  await using t = await setup();
  await t.idp.stop();
  const url = `${API_ORIGIN}/api/v1/auth/oidc/corp/login?next=/`;
  const down = await t.browser.request(url);
  assert.equal(down.status, 502, down.body);
  assert.equal(errorOf(down).key, "idp_unavailable");
  assert.ok(Number(down.headers.get("retry-after")) >= 1);
  assert.equal(down.headers.getSetCookie().length, 0);
  const soon = await t.browser.request(url);
  assert.equal(soon.status, 502);
  assert.match(errorOf(soon).message, /tries again in/);
  // Local logins go on meanwhile.
  const providers = await t.browser.request(
    `${API_ORIGIN}/api/v1/auth/providers`,
  );
  assert.equal(providers.status, 200);
});

Deno.test("next must be a path on this server", async () => {
  await using t = await setup();
  for (
    const next of [
      "//evil.example",
      "https://evil.example/",
      "/\\evil.example",
      "javascript:alert(1)",
      "zones",
    ]
  ) {
    const res = await t.browser.request(
      `${API_ORIGIN}/api/v1/auth/oidc/corp/login?next=${
        encodeURIComponent(next)
      }`,
    );
    assert.equal(res.status, 400, next);
    assert.equal(res.headers.getSetCookie().length, 0, next);
  }
  const unknown = await t.browser.request(
    `${API_ORIGIN}/api/v1/auth/oidc/nope/login`,
  );
  assert.equal(unknown.status, 404);
});

Deno.test("logout answers the provider's end-session URL", async () => {
  await using t = await setup();
  assert.equal(
    (await t.browser.request(await toCallback(t.browser, "alice"))).status,
    302,
  );
  const status = await t.browser.request(`${API_ORIGIN}/api/v1/auth/status`);
  const csrf = JSON.parse(status.body).data.csrf;
  const out = await t.browser.request(
    `${API_ORIGIN}/api/v1/auth/oidc/corp/logout`,
    { method: "POST", headers: { "x-kudurru-csrf": csrf } },
  );
  assert.equal(out.status, 200, out.body);
  const end = new URL(JSON.parse(out.body).data.endSessionUrl);
  assert.equal(end.origin, t.idp.issuer);
  assert.equal(end.searchParams.get("client_id"), "kudurru");
  const after = await t.browser.request(`${API_ORIGIN}/api/v1/auth/status`);
  assert.equal(JSON.parse(after.body).data.authenticated, false);
});

Deno.test("logout under a path prefix sends the browser back to the web UI under that prefix", async () => {
  await using t = await setup(USERS, { pathPrefix: "/dns/" });
  const out = await t.browser.request(
    `${API_ORIGIN}/api/v1/auth/oidc/corp/logout`,
    { method: "POST" },
  );
  assert.equal(out.status, 200, out.body);
  assert.equal(
    new URL(JSON.parse(out.body).data.endSessionUrl).searchParams.get(
      "post_logout_redirect_uri",
    ),
    `${API_ORIGIN}/dns/`,
  );
});

Deno.test("account routes of local users answer a provider's user without a crash", async () => {
  await using t = await setup(USERS, {
    bindings: [{
      role: "admin",
      scope: { kind: "cluster" },
      subjects: [{ kind: "Group", name: "corp:dns-ops" }],
    }],
  });
  assert.equal(
    (await t.browser.request(await toCallback(t.browser, "alice"))).status,
    302,
  );
  const status = await t.browser.request(`${API_ORIGIN}/api/v1/auth/status`);
  const csrf = JSON.parse(status.body).data.csrf;
  const headers = {
    "x-kudurru-csrf": csrf,
    "content-type": "application/json",
    origin: API_ORIGIN,
  };
  for (
    const [method, path, body] of [
      ["DELETE", "/api/v1/auth/sessions", undefined],
      ["POST", "/api/v1/auth/password", '{"current":"a","new":"b"}'],
      ["POST", "/api/v1/auth/totp", undefined],
      ["GET", "/api/v1/users", undefined],
    ] as const
  ) {
    const res = await t.browser.request(`${API_ORIGIN}${path}`, {
      method,
      headers,
      ...(body !== undefined && { body }),
    });
    assert.ok(res.status < 500, `${method} ${path}: ${res.status} ${res.body}`);
  }
});

Deno.test("a provider's user lists its sessions, ends another one, and logs out everywhere", async () => {
  await using t = await setup();
  const laptop = t.browser;
  const phone = new Browser((req) => t.fixture.api.app.request(req));
  for (
    const [browser, agent] of [[laptop, "Laptop"], [phone, "Phone"]] as const
  ) {
    const done = await browser.request(await toCallback(browser, "alice"), {
      headers: { "user-agent": agent },
    });
    assert.equal(done.status, 302, done.body);
  }
  const csrfOf = async (browser: Browser) =>
    JSON.parse((await browser.request(`${API_ORIGIN}/api/v1/auth/status`)).body)
      .data.csrf;
  const sessions = `${API_ORIGIN}/api/v1/account/sessions`;
  const listed = await laptop.request(sessions);
  assert.equal(listed.status, 200, listed.body);
  const items = JSON.parse(listed.body).data.items;
  assert.deepEqual(
    items.map((s: { userAgent: string; current: boolean }) => [
      s.userAgent,
      s.current,
    ]),
    [["Phone", false], ["Laptop", true]],
  );
  const ended = await laptop.request(`${sessions}/${items[0].id}`, {
    method: "DELETE",
    headers: { "x-kudurru-csrf": await csrfOf(laptop) },
  });
  assert.equal(ended.status, 204, ended.body);
  const phoneAfter = await phone.request(`${API_ORIGIN}/api/v1/dnszones`);
  assert.equal(phoneAfter.status, 401, phoneAfter.body);
  assert.equal(
    (await laptop.request(`${API_ORIGIN}/api/v1/dnszones`)).status,
    200,
  );

  // Log out everywhere: this session ends too.
  const cookie = laptop.jar.get(API_ORIGIN)!.get("kudurru_session")!;
  assert.ok(cookie);
  const everywhere = await laptop.request(
    `${API_ORIGIN}/api/v1/auth/sessions`,
    {
      method: "DELETE",
      headers: { "x-kudurru-csrf": await csrfOf(laptop) },
    },
  );
  assert.equal(everywhere.status, 204, everywhere.body);
  // The old cookie, sent again as a copy of it would be, no longer opens.
  const copy = new Browser((req) => t.fixture.api.app.request(req));
  copy.jar.set(API_ORIGIN, new Map([["kudurru_session", cookie]]));
  assert.equal(
    (await copy.request(`${API_ORIGIN}/api/v1/dnszones`)).status,
    401,
  );
});

Deno.test("over TLS the pre-auth cookie is __Secure- and the redirect URI https", async () => {
  await using t = await setup(USERS, { tls: true });
  const start = await t.browser.request(
    `${API_ORIGIN}/api/v1/auth/oidc/corp/login`,
  );
  assert.equal(start.status, 302, start.body);
  const cookie = start.headers.getSetCookie()[0]!;
  assert.match(cookie, /^__Secure-kudurru_oidc=v1\./);
  assert.match(cookie, /; Secure/);
  const authorize = new URL(start.headers.get("location")!);
  assert.equal(
    authorize.searchParams.get("redirect_uri"),
    "https://localhost/api/v1/auth/oidc/corp/callback",
  );
});

Deno.test("behind a proxy: auth.publicURL is the base of the redirect URI, and the login completes", async () => {
  // The proxy serves https://dns.example.test/kudurru/… and strips /kudurru.
  const publicURL = "https://dns.example.test/kudurru";
  await using t = await setup(USERS, { publicURL: `${publicURL}/` });
  const start = await t.browser.request(
    `${API_ORIGIN}/api/v1/auth/oidc/corp/login?next=${
      encodeURIComponent("/kudurru/zones")
    }`,
  );
  assert.equal(start.status, 302, start.body);
  const authorize = new URL(start.headers.get("location")!);
  assert.equal(
    authorize.searchParams.get("redirect_uri"),
    `${publicURL}/api/v1/auth/oidc/corp/callback`,
  );
  // The browser sees https and the path: the cookie is Secure, on that path.
  const preauth = start.headers.getSetCookie()[0]!;
  assert.match(preauth, /^__Secure-kudurru_oidc=v1\./);
  assert.match(preauth, /Path=\/kudurru\/api\/v1\/auth\/oidc\/corp\/callback/);

  const toKudurru = (u: URL) => u.href.startsWith(`${publicURL}/`);
  const form = await t.browser.follow(authorize.href);
  const signed = await t.browser.signIn(
    form.steps.at(-1)!.url,
    "alice",
    toKudurru,
  );
  assert.ok(signed.next, "the provider sent the browser to the public URL");
  // What the proxy forwards: the same request, the prefix stripped.
  const forwarded = signed.next.replace(publicURL, API_ORIGIN);
  const done = await t.browser.request(forwarded);
  assert.equal(done.status, 302, done.body);
  assert.equal(done.headers.get("location"), "/kudurru/zones");
  assert.match(
    done.headers.getSetCookie().join("\n"),
    /__Host-kudurru_session=v1\./,
  );
  const status = await t.browser.request(`${API_ORIGIN}/api/v1/auth/status`);
  assert.equal(JSON.parse(status.body).data.user, "corp:alice");

  // The provider's logout sends the browser back to the public URL.
  const out = await t.browser.request(
    `${API_ORIGIN}/api/v1/auth/oidc/corp/logout`,
    {
      method: "POST",
      headers: { "x-kudurru-csrf": JSON.parse(status.body).data.csrf },
    },
  );
  assert.equal(out.status, 200, out.body);
  assert.equal(
    new URL(JSON.parse(out.body).data.endSessionUrl).searchParams.get(
      "post_logout_redirect_uri",
    ),
    `${publicURL}/`,
  );

  // The web UI's <base> is the path the browser sees; a refused login
  // goes back there.
  const page = await t.browser.request(`${API_ORIGIN}/`, {
    headers: { accept: "text/html" },
  });
  assert.match(page.body, /<base href="\/kudurru\/">/);
  const refused = await t.browser.request(
    `${API_ORIGIN}/api/v1/auth/oidc/corp/callback?code=x&state=y`,
    { headers: { accept: "text/html" } },
  );
  assert.equal(refused.status, 303, refused.body);
  assert.equal(refused.headers.get("location"), "/kudurru/");
});
