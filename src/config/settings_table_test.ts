import assert from "node:assert/strict";
import { configSchema } from "./schema.ts";
import { settingsTable } from "./settings_table.ts";

const rows = settingsTable();
const row = (key: string) => {
  const r = rows.find((s) => s.key === key);
  assert.ok(r, `no row ${key}`);
  return r;
};

Deno.test("settingsTable gives every key and item field a help text", () => {
  for (const s of rows) {
    assert.ok(s.help.length > 0, s.key);
    for (const f of s.fields ?? []) {
      assert.ok(f.help.length > 0, `${s.key} ${f.key}`);
    }
  }
});

Deno.test("settingsTable derives the environment variable from the key", () => {
  assert.equal(
    row("cache.prefetch.threshold").env,
    "KUDURRU_CACHE__PREFETCH__THRESHOLD",
  );
  assert.equal(new Set(rows.map((s) => s.env)).size, rows.length);
});

Deno.test("settingsTable describes a row fully", () => {
  const { fields: _, ...r } = row("blocking.defaultResponse");
  assert.deepEqual(r, {
    key: "blocking.defaultResponse",
    section: "blocking",
    scope: "cluster",
    type: "enum",
    default: "zeroIP",
    allowed: ["zeroIP", "nxdomain", "customIP", "refused"],
    help:
      "Answer for blocked names (refused is discouraged: clients retry elsewhere)",
    // Read at start only: upstreams, cache and ratelimit apply live.
    restartRequired: true,
    envLocked: false,
    writeOnly: false,
    hostOnly: false,
    env: "KUDURRU_BLOCKING__DEFAULTRESPONSE",
  });
});

Deno.test("settingsTable marks live only what a running server applies at once", () => {
  const live = settingsTable().filter((s) => !s.hostOnly && !s.restartRequired)
    .map((s) => s.section);
  assert.deepEqual([...new Set(live)].sort(), [
    "cache",
    "ratelimit",
    "upstreams",
  ]);
});

Deno.test("settingsTable marks privileged keys hostOnly", async (t) => {
  const hostOnly = [
    "node.dataDir",
    "listeners.dns",
    "listeners.api.address",
    "listeners.api.tls.certFile",
    "listeners.proxyProtocolFrom",
    "blocking.listsDir",
    "auth.kubernetes.mode",
    "edge.enabled",
    "vip.enabled",
    "objects",
    "objectsDir",
  ];
  for (const key of hostOnly) {
    await t.step(key, () => assert.equal(row(key).hostOnly, true));
  }
  await t.step(
    "cache.maxTTL is not",
    () => assert.equal(row("cache.maxTTL").hostOnly, false),
  );
});

Deno.test("settingsTable marks node settings restartRequired", () => {
  assert.equal(row("node.name").restartRequired, true);
  assert.equal(row("listeners.dot").restartRequired, true);
  assert.equal(row("cache.maxEntries").restartRequired, false);
});

Deno.test("settingsTable marks secrets writeOnly", () => {
  assert.equal(row("auth.bootstrap.adminPassword").writeOnly, true);
  const idp = row("auth.identityProviders").fields?.find((f) =>
    f.key === "clientSecret"
  );
  assert.equal(idp?.writeOnly, true);
});

Deno.test("settingsTable marks keys locked by the environment", () => {
  const locked = settingsTable(["cache.maxTTL"]);
  assert.equal(locked.find((s) => s.key === "cache.maxTTL")?.envLocked, true);
  assert.equal(locked.find((s) => s.key === "cache.minTTL")?.envLocked, false);
});

/** The value at a dotted key. */
function valueAt(config: unknown, key: string): unknown {
  let value = config;
  for (const part of key.split(".")) {
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

Deno.test("settingsTable defaults agree with the parsed empty config", () => {
  const config = configSchema.parse({});
  for (const s of rows) {
    const value = valueAt(config, s.key);
    assert.equal(s.default === undefined, value === undefined, s.key);
    // The table shows defaults as written ("24h"), the config holds them
    // parsed (ms): written in the file, each gives the empty file's value.
    const input = s.key.split(".").reduceRight<unknown>(
      (inner, part) => ({ [part]: inner }),
      s.default,
    );
    assert.deepEqual(valueAt(configSchema.parse(input), s.key), value, s.key);
  }
});

Deno.test("settingsTable lists the fields of list items", () => {
  const fields = row("listeners.doh").fields?.map((f) =>
    `${f.key}${f.required ? "!" : ""}`
  );
  assert.deepEqual(fields, [
    "address!",
    "path",
    "tls.auto",
    "tls.certFile",
    "tls.keyFile",
    "trustedProxies",
  ]);
});
