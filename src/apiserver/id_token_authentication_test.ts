/**
 * Bearer ID tokens on the API, against a real provider on loopback
 * (testdata/test_provider.ts): a genuine token of the CLI's client is the
 * user with the grants a web login gets; each refused token is one a
 * confused client or an attacker would send. Tokens crafted here are
 * signed with the provider's own key (or, for "unknown key", one it does
 * not publish), so only the claim under test is wrong.
 */
import assert from "node:assert/strict";
import * as jose from "jose";
import { apiFixture } from "./testdata/api_fixture.ts";
import {
  CLI_CLIENT_ID,
  CLIENT_ID,
  cliTokens,
  OTHER_CLIENT_ID,
  providerSettings,
  startTestProvider,
  type TestUsers,
} from "../auth/oidc/testdata/test_provider.ts";

const USERS: TestUsers = {
  alice: { preferred_username: "alice", groups: ["staff"], hd: "example.com" },
  carol: { preferred_username: "carol", groups: ["visitors"] },
  // Bound as staff, but of another Workspace domain, and of none.
  frank: { preferred_username: "frank", groups: ["staff"], hd: "example.org" },
  gina: { preferred_username: "gina", groups: ["staff"] },
};

const VIEWERS = [{
  role: "viewer",
  scope: { kind: "cluster" },
  subjects: [{ kind: "Group", name: "corp:staff" }],
}];

const ZONE = {
  apiVersion: "kudurru.io/v1alpha1",
  kind: "DNSZone",
  metadata: { name: "home" },
  spec: {
    type: "primary",
    origin: "home.test.",
    soa: { mname: "ns1.home.test.", rname: "admin.home.test." },
    nameservers: ["ns1.home.test."],
    defaultTTL: 300,
  },
};

async function setup(
  opts: { bindings?: unknown[]; provider?: Record<string, unknown> } = {},
) {
  const idp = await startTestProvider(USERS);
  const fixture = await apiFixture({
    config: {
      auth: {
        identityProviders: [
          providerSettings(idp.issuer, {
            cliClientID: CLI_CLIENT_ID,
            ...opts.provider,
          }),
        ],
      },
      rbac: { bindings: opts.bindings ?? VIEWERS },
    },
  });
  /** One request with `token` as the bearer; status and parsed body. */
  const call = async (
    token: string,
    path = "/api/v1/auth/status",
    init: RequestInit = {},
  ) => {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${token}`);
    const res = await fixture.api.app.request(
      new Request(`http://localhost${path}`, { ...init, headers }),
    );
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text === "" ? undefined : JSON.parse(text),
    };
  };
  return {
    idp,
    fixture,
    call,
    async [Symbol.asyncDispose]() {
      await idp.stop();
      await fixture[Symbol.asyncDispose]();
    },
  };
}

/** A token signed with `key` (the provider's own by default) with `claims` over alice's. */
async function craft(
  idp: { issuer: string; signingKey: CryptoKey },
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
  key: CryptoKey = idp.signingKey,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return await new jose.SignJWT({
    iss: idp.issuer,
    sub: "alice",
    aud: CLI_CLIENT_ID,
    iat: now,
    exp: now + 600,
    preferred_username: "alice",
    groups: ["staff"],
    ...claims,
  }).setProtectedHeader({ alg: "RS256", typ: "JWT", ...header }).sign(key);
}

Deno.test("an ID token of the CLI's client is the user, with the grants of its groups", async () => {
  await using t = await setup();
  const { id_token } = await cliTokens(t.idp.issuer, "alice");
  const status = await t.call(id_token);
  assert.equal(status.status, 200, JSON.stringify(status.body));
  assert.equal(status.body.data.authenticated, true);
  assert.equal(status.body.data.user, "corp:alice");
  assert.equal(status.body.data.via, "token");

  const list = await t.call(id_token, "/api/v1/dnszones");
  assert.equal(list.status, 200, JSON.stringify(list.body));
  // A viewer reads, and may not write: the answer says what is missing.
  const write = await t.call(id_token, "/api/v1/dnszones", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(ZONE),
  });
  assert.equal(write.status, 403, JSON.stringify(write.body));
  assert.equal(write.body.error.key, "forbidden");
  assert.equal(write.body.error.missing.verb, "create");
  // The keys were fetched once, for the first request only.
  assert.equal(t.idp.jwksFetches(), 1);
});

Deno.test("a token for another client, or issued to one, is refused", async () => {
  await using t = await setup();
  const other = await t.call(await craft(t.idp, { aud: OTHER_CLIENT_ID }));
  assert.equal(other.status, 401, JSON.stringify(other.body));
  assert.equal(other.body.error.key, "unauthorized");
  assert.match(other.body.error.message, /audience does not name/);
  // With cliClientID set, the web login's client is another client too.
  const web = await t.call(await craft(t.idp, { aud: CLIENT_ID }));
  assert.equal(web.status, 401);

  // Several audiences: azp must name the CLI's client.
  const both = [CLI_CLIENT_ID, OTHER_CLIENT_ID];
  const wrongAzp = await t.call(
    await craft(t.idp, { aud: both, azp: OTHER_CLIENT_ID }),
  );
  assert.equal(wrongAzp.status, 401, JSON.stringify(wrongAzp.body));
  assert.match(wrongAzp.body.error.message, /azp/);
  const noAzp = await t.call(await craft(t.idp, { aud: both }));
  assert.equal(noAzp.status, 401);
  const rightAzp = await t.call(
    await craft(t.idp, { aud: both, azp: CLI_CLIENT_ID }),
  );
  assert.equal(rightAzp.status, 200, JSON.stringify(rightAzp.body));
});

Deno.test("expired, future, unknown-key, access and foreign tokens are refused", async () => {
  await using t = await setup();
  const now = Math.floor(Date.now() / 1000);
  const cases: [string, string, RegExp][] = [
    [
      "expired",
      await craft(t.idp, { iat: now - 7200, exp: now - 3600 }),
      /expired/,
    ],
    [
      "issued in the future",
      await craft(t.idp, { iat: now + 3600, exp: now + 7200 }),
      /future|iat/,
    ],
    [
      "signed with a key the provider does not publish",
      await craft(
        t.idp,
        {},
        { kid: "not-published" },
        (await jose.generateKeyPair("RS256")).privateKey,
      ),
      /does not publish/,
    ],
    [
      "signed with another key under no kid",
      await craft(
        t.idp,
        {},
        {},
        (await jose.generateKeyPair("RS256")).privateKey,
      ),
      /signature/,
    ],
    ["an access token", await craft(t.idp, {}, { typ: "at+jwt" }), /access/],
    [
      "an access token (media type)",
      await craft(t.idp, {}, { typ: "application/at+jwt" }),
      /access/,
    ],
    [
      "from an issuer kudurru does not know",
      await craft(t.idp, { iss: "https://elsewhere.example" }),
      /No identity provider has the token's issuer/,
    ],
    ["not a JWT", "a.b.c", /not a JWT/],
  ];
  for (const [what, token, message] of cases) {
    const res = await t.call(token);
    assert.equal(res.status, 401, `${what}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.error.key, "unauthorized", what);
    assert.match(res.body.error.message, message, what);
  }
  // A kdr_ token is still checked as one.
  const api = await t.call("kdr_abc_def");
  assert.equal(api.status, 401);
  assert.match(api.body.error.message, /The token is not valid/);
});

Deno.test("a user no binding names is refused as the web login refuses it", async () => {
  await using t = await setup();
  const { id_token } = await cliTokens(t.idp.issuer, "carol");
  const res = await t.call(id_token);
  assert.equal(res.status, 403, JSON.stringify(res.body));
  assert.equal(res.body.error.key, "login_refused");
  assert.equal(res.body.error.reason, "no_binding");
  assert.match(res.body.error.message, /corp:carol has no role/);
});

Deno.test("claimValidationRules refuse a token whose claim differs or is absent", async () => {
  await using t = await setup({
    provider: {
      claimValidationRules: [{ claim: "hd", requiredValue: "example.com" }],
    },
  });
  const alice = await t.call((await cliTokens(t.idp.issuer, "alice")).id_token);
  assert.equal(alice.status, 200, JSON.stringify(alice.body));
  assert.equal(alice.body.data.user, "corp:alice");
  for (const login of ["frank", "gina"]) {
    const { id_token } = await cliTokens(t.idp.issuer, login);
    const res = await t.call(id_token);
    assert.equal(res.status, 403, `${login}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.error.key, "login_refused");
    assert.equal(res.body.error.reason, "claim_rule");
    assert.equal(res.body.error.message, "claim hd must be example.com");
    // Refused every time: a refusal is not kept as a verdict.
    assert.equal((await t.call(id_token)).status, 403, login);
  }
});

Deno.test("a provider that is down is idp_unavailable, not a 401", async () => {
  await using t = await setup();
  const token = await craft(t.idp);
  await t.idp.stop();
  const res = await t.call(token);
  assert.equal(res.status, 502, JSON.stringify(res.body));
  assert.equal(res.body.error.key, "idp_unavailable");
  assert.ok(Number(res.headers.get("retry-after")) >= 1);
});

Deno.test("provisioning always gives the default role; never lets in only users bound by name", async () => {
  {
    await using t = await setup({
      provider: {
        provisioning: { autoProvision: "always", defaultRole: "viewer" },
      },
    });
    const carol = await t.call(
      await craft(t.idp, {
        sub: "carol",
        preferred_username: "carol",
        groups: ["visitors"],
      }),
      "/api/v1/dnszones",
    );
    assert.equal(carol.status, 200, JSON.stringify(carol.body));
    // No more than viewer: a write is refused.
    const write = await t.call(
      await craft(t.idp, { sub: "carol", preferred_username: "carol" }),
      "/api/v1/dnszones",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(ZONE),
      },
    );
    assert.equal(write.status, 403);
  }
  {
    await using t = await setup({
      provider: { provisioning: { autoProvision: "never" } },
      bindings: [
        ...VIEWERS,
        {
          role: "viewer",
          scope: { kind: "cluster" },
          subjects: [{ kind: "User", name: "corp:dave" }],
        },
      ],
    });
    const alice = await t.call(await craft(t.idp));
    assert.equal(alice.status, 403, JSON.stringify(alice.body));
    assert.equal(alice.body.error.reason, "not_provisioned");
    const dave = await t.call(
      await craft(t.idp, {
        sub: "dave",
        preferred_username: "dave",
        groups: ["staff"],
      }),
    );
    assert.equal(dave.status, 200, JSON.stringify(dave.body));
    assert.equal(dave.body.data.user, "corp:dave");
  }
});
