/** The provider registry: refused configurations, secrets, discovery backoff. */
import assert from "node:assert/strict";
import {
  IdpUnavailableError,
  isLoopback,
  type ProviderConfig,
  ProviderRegistry,
} from "./providers.ts";

function config(extra: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    id: "corp",
    displayName: "",
    issuer: "https://idp.example",
    clientID: "kudurru",
    clientSecretFile: "",
    clientSecret: "s3cret",
    cliClientID: "",
    scopes: ["openid", "profile"],
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
    ...extra,
  };
}

const now = () => 0;

Deno.test("unsafe or unusable providers are refused at start", async () => {
  const cases: [Partial<ProviderConfig>, RegExp][] = [
    [{
      provisioning: {
        autoProvision: "always",
        syncGroups: true,
        defaultRole: "admin",
      },
    }, /defaultRole may not be admin/],
    [{
      provisioning: {
        autoProvision: "always",
        syncGroups: true,
        defaultRole: "",
      },
    }, /always needs a defaultRole/],
    [{
      provisioning: {
        autoProvision: "mapped-only",
        syncGroups: true,
        defaultRole: "reader",
      },
    }, /"reader" is no role/],
    [{ issuer: "http://idp.example" }, /https/],
    [{ clientSecret: "" }, /no client secret/],
    [{ scopes: ["profile"] }, /openid/],
  ];
  for (const [extra, message] of cases) {
    await assert.rejects(
      ProviderRegistry.create([config(extra)], { now }),
      message,
    );
  }
  await assert.rejects(
    ProviderRegistry.create([config(), config()], { now }),
    /twice/,
  );
});

Deno.test("the secret file is read; the label defaults to the id", async () => {
  const registry = await ProviderRegistry.create([
    config({ clientSecret: "", clientSecretFile: "/run/secret" }),
  ], { now, readFile: (path) => Promise.resolve(`from ${path}\n`) });
  assert.equal(registry.get("corp")!.displayName, "corp");
  // Without a CLI client, bearer ID tokens are for the web login's client.
  assert.equal(registry.get("corp")!.cliClientID, "kudurru");
  assert.deepEqual(registry.list().map((p) => p.id), ["corp"]);
  assert.equal(registry.get("other"), undefined);
});

Deno.test("a failed discovery is retried only after a growing backoff", async () => {
  // A port nobody listens on: refused at once.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  let t = 0;
  const registry = await ProviderRegistry.create([
    config({ issuer: `http://127.0.0.1:${port}` }),
  ], { now: () => t });
  const provider = registry.get("corp")!;
  const first = await provider.configuration().catch((e) => e);
  assert.ok(first instanceof IdpUnavailableError);
  assert.equal(first.retryAfterSeconds, 2);
  t = 1_000;
  const held = await provider.configuration().catch((e) => e);
  assert.match(held.message, /tries again in 1 s/);
  t = 2_500;
  const second = await provider.configuration().catch((e) => e);
  assert.equal(second.retryAfterSeconds, 4);
});

Deno.test("plain http only on this host", () => {
  assert.ok(isLoopback(new URL("http://127.0.0.1:8080")));
  assert.ok(isLoopback(new URL("http://[::1]/")));
  assert.ok(isLoopback(new URL("http://localhost/")));
  assert.ok(!isLoopback(new URL("http://127.0.0.1.evil.example/")));
  assert.ok(!isLoopback(new URL("http://10.0.0.1/")));
});
