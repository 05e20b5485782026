import assert from "node:assert/strict";
import YAML from "yaml";
import { MASK, maskSecrets, renderEffectiveConfig } from "./debug.ts";
import { type Config, configSchema } from "./schema.ts";

function config(input: unknown): Config {
  return configSchema.parse(input);
}

const idp = {
  id: "corp",
  issuer: "https://sso.example.com/",
  clientID: "kudurru",
  clientSecret: "oidc-secret",
};

Deno.test("maskSecrets masks a set top-level secret", () => {
  const got = maskSecrets(
    config({ auth: { bootstrap: { adminPassword: "hunter2" } } }),
  );
  assert.equal(got.auth.bootstrap.adminPassword, MASK);
});

Deno.test("maskSecrets masks secrets inside list items", () => {
  const got = maskSecrets(config({ auth: { identityProviders: [idp] } }));
  assert.equal(got.auth.identityProviders[0]?.clientSecret, MASK);
  assert.equal(got.auth.identityProviders[0]?.clientID, "kudurru");
});

Deno.test("maskSecrets leaves unset secrets empty", () => {
  assert.equal(maskSecrets(config({})).auth.bootstrap.adminPassword, "");
});

Deno.test("maskSecrets does not change its input", () => {
  const c = config({ auth: { bootstrap: { adminPassword: "hunter2" } } });
  maskSecrets(c);
  assert.equal(c.auth.bootstrap.adminPassword, "hunter2");
});

Deno.test("renderEffectiveConfig prints YAML without the secret", () => {
  const text = renderEffectiveConfig(
    config({ auth: { identityProviders: [idp] } }),
  );
  assert.ok(!text.includes("oidc-secret"));
  const back = YAML.parse(text) as Config;
  assert.equal(back.cache.maxTTL, "24h");
  assert.equal(back.auth.identityProviders[0]?.clientSecret, MASK);
});
