/**
 * The bearer ID token verifier's cache, against a real provider: a token
 * verified once is not verified again (nor its keys fetched) until it
 * expires or 15 minutes pass; the cache is bounded; refusals are not kept.
 */
import assert from "node:assert/strict";
import * as jose from "jose";
import { BearerRefusedError, BearerVerifier, looksLikeJwt } from "./bearer.ts";
import { ProviderRegistry } from "./providers.ts";
import {
  CLI_CLIENT_ID,
  providerSettings,
  startTestProvider,
} from "./testdata/test_provider.ts";
import type { ProviderConfig } from "./providers.ts";
import { configSchema } from "../../config/schema.ts";

async function setup(maxEntries?: number) {
  const idp = await startTestProvider({});
  const config = configSchema.parse({
    auth: {
      identityProviders: [
        providerSettings(idp.issuer, { cliClientID: CLI_CLIENT_ID }),
      ],
    },
  });
  const registry = await ProviderRegistry.create(
    config.auth.identityProviders as ProviderConfig[],
    { now: Date.now },
  );
  const clock = { t: Date.now() };
  const verifier = new BearerVerifier(registry.list(), {
    now: () => clock.t,
    ...(maxEntries !== undefined && { maxEntries }),
  });
  const token = async (sub: string, ttlS = 3600) => {
    const now = Math.floor(clock.t / 1000);
    return await new jose.SignJWT({
      iss: idp.issuer,
      aud: CLI_CLIENT_ID,
      sub,
      iat: now,
      exp: now + ttlS,
    }).setProtectedHeader({ alg: "RS256" }).sign(idp.signingKey);
  };
  return { idp, verifier, clock, token, [Symbol.asyncDispose]: idp.stop };
}

Deno.test("a verified token is reused until 15 minutes pass or it expires", async () => {
  await using t = await setup();
  const alice = await t.token("alice");
  const first = await t.verifier.verify(alice);
  assert.equal(first.identity.username, "corp:alice");
  assert.equal(t.verifier.verified, 1);
  assert.equal(t.idp.jwksFetches(), 1);
  await t.verifier.verify(alice);
  assert.equal(t.verifier.verified, 1, "the second request used the cache");
  t.clock.t += 15 * 60_000 + 1;
  await t.verifier.verify(alice);
  assert.equal(t.verifier.verified, 2, "verified again after 15 minutes");

  // A token that expires sooner is kept only until then.
  const short = await t.token("bob", 120);
  await t.verifier.verify(short);
  t.clock.t += 121_000 + 60_000; // past exp and the clock skew allowed
  await assert.rejects(t.verifier.verify(short), /expired/);
  assert.equal(t.verifier.verified, 3);
});

Deno.test("the cache is bounded, the oldest verdict goes first", async () => {
  await using t = await setup(2);
  const tokens = [
    await t.token("a"),
    await t.token("b"),
    await t.token("c"),
  ];
  for (const token of tokens) await t.verifier.verify(token);
  assert.equal(t.verifier.cached, 2);
  await t.verifier.verify(tokens[2]!);
  assert.equal(t.verifier.verified, 3);
  await t.verifier.verify(tokens[0]!);
  assert.equal(t.verifier.verified, 4, "the oldest was evicted");
});

Deno.test("a refused token is not kept", async () => {
  await using t = await setup();
  const other = await new jose.SignJWT({
    iss: t.idp.issuer,
    aud: CLI_CLIENT_ID,
    sub: "x",
    iat: Math.floor(t.clock.t / 1000),
    exp: Math.floor(t.clock.t / 1000) + 60,
  }).setProtectedHeader({ alg: "RS256" }).sign(
    (await jose.generateKeyPair("RS256")).privateKey,
  );
  for (let i = 0; i < 2; i++) {
    await assert.rejects(t.verifier.verify(other), BearerRefusedError);
  }
  assert.equal(t.verifier.cached, 0);
  assert.equal(t.verifier.verified, 0);
});

Deno.test("a kdr_ token is not taken for a JWT", () => {
  assert.ok(looksLikeJwt("eyJh.eyJi.c2ln"));
  assert.ok(!looksLikeJwt("kdr_abc_def"));
  assert.ok(!looksLikeJwt("kdr_a.b.c"));
  assert.ok(!looksLikeJwt("a.b"));
  assert.ok(!looksLikeJwt("a.b.c d"));
});
