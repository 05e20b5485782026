/**
 * The settings over the API: live keys apply at once, others wait for a
 * restart, host-only and environment-set keys are refused by name, bad
 * values are refused whole, and the changes outlive the process (they are
 * read back from the Store).
 */
import assert from "node:assert/strict";
import type { Config } from "../../config/schema.ts";
import { memoryLogger } from "../../log/logger.ts";
import { createMemoryStore } from "../../store/memory/memory_store.ts";
import { ClusterSettings } from "../cluster_settings.ts";
import { ADMIN_PASSWORD, apiFixture } from "../testdata/api_fixture.ts";
import { settingsRoutes } from "./settings_routes.ts";

/** kudurru.yaml as loaded: the file's values with the environment's. */
const INPUT = {
  node: { name: "test", dataDir: "/tmp/unused" },
  cache: { maxTTL: "2h", minTTL: "5s" },
  blocking: { blockTTL: "10m" },
};
const MERGE_PATCH = { "content-type": "application/merge-patch+json" };

async function settingsFixture() {
  const store = createMemoryStore();
  const open = () =>
    ClusterSettings.open({
      store,
      input: structuredClone(INPUT),
      // As if KUDURRU_CACHE__MINTTL were set.
      lockedByEnv: ["cache.minTTL"],
      logger: memoryLogger(),
    });
  const settings = await open();
  const live: Config[] = [];
  settings.onLive((config) => live.push(config));
  const f = await apiFixture({
    store,
    extraRoutes: () => [settingsRoutes(settings)],
  });
  const client = f.client();
  await client.login("admin", ADMIN_PASSWORD);
  const row = async (key: string) => {
    const answer = await client.request("GET", "/api/v1/settings");
    assert.equal(answer.status, 200);
    return answer.body.data.settings.find((s: { key: string }) =>
      s.key === key
    );
  };
  return { f, client, settings, live, row, open };
}

Deno.test("api settings: a live key applies at once and is kept in the Store", async () => {
  const { f, client, live, row, open } = await settingsFixture();
  await using _ = f;
  assert.equal((await row("cache.maxTTL")).value, "2h");
  assert.equal((await row("cache.maxTTL")).source, "file");
  const patched = await client.request(
    "PATCH",
    "/api/v1/settings",
    { cache: { maxTTL: "1h" } },
    MERGE_PATCH,
  );
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.deepEqual(patched.body.data.applied, ["cache.maxTTL"]);
  assert.deepEqual(patched.body.data.restartRequired, []);
  assert.equal(live.length, 1);
  assert.equal(live[0]!.cache.maxTTL, 3_600_000);
  const shown = await row("cache.maxTTL");
  assert.equal(shown.value, "1h");
  assert.equal(shown.source, "api");
  assert.equal(shown.live, true);
  // A restart reads them back.
  const again = await open();
  assert.equal(again.effective.cache.maxTTL, 3_600_000);
  assert.equal(again.effective.cache.minTTL, 5_000);
});

Deno.test("api settings: a key read at start waits for the restart, and says so", async () => {
  const { f, client, live, row } = await settingsFixture();
  await using _ = f;
  const patched = await client.request(
    "PATCH",
    "/api/v1/settings",
    { blocking: { blockTTL: "5m" } },
    MERGE_PATCH,
  );
  assert.equal(patched.status, 200);
  assert.deepEqual(patched.body.data.applied, []);
  assert.deepEqual(patched.body.data.restartRequired, ["blocking.blockTTL"]);
  assert.equal(live.length, 0, "nothing applied live");
  const shown = await row("blocking.blockTTL");
  assert.equal(shown.value, "5m");
  assert.equal(shown.pendingRestart, true);
});

Deno.test("api settings: null gives the key back to the file", async () => {
  const { f, client, row } = await settingsFixture();
  await using _ = f;
  await client.request("PATCH", "/api/v1/settings", {
    cache: { maxTTL: "1h" },
  }, MERGE_PATCH);
  const undone = await client.request("PATCH", "/api/v1/settings", {
    cache: { maxTTL: null },
  }, MERGE_PATCH);
  assert.deepEqual(undone.body.data.applied, ["cache.maxTTL"]);
  assert.deepEqual(undone.body.data.overrides, { cache: {} });
  const shown = await row("cache.maxTTL");
  assert.equal(shown.value, "2h");
  assert.equal(shown.source, "file");
});

Deno.test("api settings refuses host-only, environment-set and unknown keys by name, and bad values whole", async (t) => {
  const { f, client, settings, live } = await settingsFixture();
  await using _ = f;
  const refusals: [string, Record<string, unknown>, RegExp][] = [
    [
      "host-only",
      { listeners: { api: { address: "0.0.0.0:80" } } },
      /listeners\.api\.address.*host-only/,
    ],
    ["a node section", { node: { dataDir: "/" } }, /host-only/],
    [
      "a file to read and a secret",
      {
        auth: {
          identityProviders: [{
            name: "x",
            issuer: "https://idp.example/",
            clientID: "kudurru",
            clientSecretFile: "/etc/shadow",
          }],
        },
      },
      /auth\.identityProviders.*host-only/,
    ],
    [
      "set by the environment",
      { cache: { minTTL: "1s", maxTTL: "1h" } },
      /cache\.minTTL.*KUDURRU_CACHE__MINTTL/,
    ],
    [
      "misspelt",
      { cache: { maxTtl: "1h" } },
      /did you mean \\"cache\.maxTTL\\"/,
    ],
    ["a bad value", { cache: { maxTTL: "forever" } }, /maxTTL/],
    ["a section as a value", { cache: 5 }, /is a section/],
  ];
  for (const [name, patch, message] of refusals) {
    await t.step(name, async () => {
      const answer = await client.request(
        "PATCH",
        "/api/v1/settings",
        patch,
        MERGE_PATCH,
      );
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.equal(answer.body.error.key, "invalid");
      assert.match(JSON.stringify(answer.body.error.issues), message);
    });
  }
  assert.equal(live.length, 0);
  assert.deepEqual(settings.view().overrides, {}, "nothing was stored");
  assert.equal(settings.effective.cache.maxTTL, 7_200_000);
});

Deno.test("api settings: reading is for viewers, changing for admins", async () => {
  const { f, client } = await settingsFixture();
  await using _ = f;
  const made = await client.request("POST", "/api/v1/tokens", {
    description: "widget",
    scopes: [{ role: "viewer" }],
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const viewer = f.client();
  viewer.token = made.body.data.token;
  assert.equal((await viewer.request("GET", "/api/v1/settings")).status, 200);
  const refused = await viewer.request("PATCH", "/api/v1/settings", {
    cache: { maxTTL: "1h" },
  }, MERGE_PATCH);
  assert.equal(refused.status, 403);
  assert.equal(refused.body.error.missing.resource, "settings");
});

Deno.test("api settings: each key carries what a form needs: type, default, allowed values, its variable and when it applies", async () => {
  const { f, client, row } = await settingsFixture();
  await using _ = f;
  const maxTTL = await row("cache.maxTTL");
  assert.equal(maxTTL.type, "duration");
  assert.equal(maxTTL.default, "24h", "as kudurru.yaml spells it");
  assert.equal(maxTTL.env, "KUDURRU_CACHE__MAXTTL");
  assert.equal(maxTTL.restartRequired, false);
  assert.equal(maxTTL.live, true);
  const response = await row("blocking.defaultResponse");
  assert.equal(response.type, "enum");
  assert.ok(response.allowed.includes("nxdomain"), response.allowed);
  assert.equal(response.restartRequired, true);
  assert.equal((await row("cache.serveStale.enabled")).type, "boolean");
  assert.equal((await row("cache.maxEntries")).type, "integer");
  const minTTL = await row("cache.minTTL");
  assert.equal(minTTL.envLocked, true);
  assert.equal(minTTL.source, "env");
  const secret = await row("auth.bootstrap.adminPassword");
  assert.equal("default" in secret, false, "no default shown for a secret");
  const answer = await client.request("GET", "/api/v1/settings");
  assert.match(answer.body.data.sections.cache, /\w/, "section help");
});
