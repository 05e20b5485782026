import assert from "node:assert/strict";
import YAML from "yaml";
import {
  MASK,
  maskSecrets,
  renderEffectiveConfig,
  shownConfig,
} from "./debug.ts";
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

Deno.test("shownConfig writes durations and sizes as text, and parses back the same", () => {
  const c = config({
    cache: { maxBytes: "512MB", serveStale: { maxWait: "1800ms" } },
    upstreams: { groups: { default: { servers: ["9.9.9.9"], timeout: "1s" } } },
    auth: { bootstrap: { adminPassword: "hunter2" } },
  });
  assert.equal(c.cache.maxTTL, 86_400_000);
  const shown = shownConfig(c);
  assert.equal(shown.cache?.maxTTL, "24h");
  assert.equal(shown.cache?.maxBytes, "512MB");
  assert.equal(shown.cache?.serveStale?.maxWait, "1800ms");
  assert.equal(shown.querylog?.retention?.maxDBBytes, "10GiB");
  assert.equal(shown.upstreams?.groups?.default?.timeout, "1s");
  assert.equal(shown.cache?.maxEntries, 200_000, "numbers stay numbers");
  assert.equal(shown.auth?.bootstrap?.adminPassword, MASK);
  const back = config(shown);
  assert.deepEqual(back.cache, c.cache);
  assert.deepEqual(back.upstreams, c.upstreams);
  assert.deepEqual(back.querylog, c.querylog);
});
