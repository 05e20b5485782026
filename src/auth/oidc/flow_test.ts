/**
 * The login flow against a real provider without the API around it: a
 * token that validates, and one that has expired by our clock.
 */
import assert from "node:assert/strict";
import { LoginRefusedError } from "./claims.ts";
import { finishLogin, startLogin } from "./flow.ts";
import { type ProviderConfig, ProviderRegistry } from "./providers.ts";
import {
  API_ORIGIN,
  Browser,
  CLIENT_ID,
  CLIENT_SECRET,
  startTestProvider,
} from "./testdata/test_provider.ts";

const REDIRECT = `${API_ORIGIN}/api/v1/auth/oidc/corp/callback`;

function settings(issuer: string): ProviderConfig {
  return {
    id: "corp",
    displayName: "",
    issuer,
    clientID: CLIENT_ID,
    clientSecretFile: "",
    clientSecret: CLIENT_SECRET,
    cliClientID: "",
    scopes: ["openid", "profile", "groups"],
    claimMappings: {
      username: { claim: "preferred_username", prefix: "" },
      groups: { claim: "groups", prefix: "" },
    },
    claimValidationRules: [],
    provisioning: {
      autoProvision: "mapped-only",
      syncGroups: true,
      defaultRole: "",
    },
  };
}

/** Logs alice in at the provider; the claims, or what finishLogin threw. */
async function login(clockSkewSeconds: number): Promise<unknown> {
  await using idp = await startTestProvider({
    alice: { preferred_username: "alice", groups: ["ops"] },
  });
  const registry = await ProviderRegistry.create([settings(idp.issuer)], {
    now: Date.now,
    clockSkewSeconds,
  });
  const provider = registry.get("corp")!;
  const { url, preAuth } = await startLogin(
    provider,
    REDIRECT,
    "/",
    Date.now(),
  );
  const browser = new Browser(() => {
    throw new Error("no API in this test");
  });
  const form = await browser.follow(url.href);
  const back = await browser.signIn(
    form.steps.at(-1)!.url,
    "alice",
    (u) => u.href.startsWith(REDIRECT),
  );
  assert.ok(back.next);
  return await finishLogin(provider, preAuth, new URL(back.next)).catch((
    e,
  ) => e);
}

Deno.test("a valid login gives the ID token's claims", async () => {
  const claims = await login(0) as Record<string, unknown>;
  assert.equal(claims.sub, "alice");
  assert.equal(claims.aud, CLIENT_ID);
  assert.deepEqual(claims.groups, ["ops"]);
});

Deno.test("an ID token expired by our clock is refused", async () => {
  // Two hours on, the provider's one-hour token has expired.
  const error = await login(7200);
  assert.ok(error instanceof LoginRefusedError, String(error));
  assert.equal(error.reason, "id_token");
  assert.match(error.message, /"exp"/);
});
