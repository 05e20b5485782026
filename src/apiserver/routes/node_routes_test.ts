import assert from "node:assert/strict";
import { VERSION } from "../../version.ts";
import { opsFixture, STARTED_AT } from "../testdata/ops_fixture.ts";

Deno.test("api node: name, version, uptime, listeners per transport, snapshot age, store", async (t) => {
  await using f = await opsFixture();
  f.bound = [
    { transport: "udp", hostname: "0.0.0.0", port: 53 },
    { transport: "tcp", hostname: "0.0.0.0", port: 53, socket: 0 },
    { transport: "tcp", hostname: "0.0.0.0", port: 53, socket: 1 },
    { transport: "udp", hostname: "::1", port: 5353 },
  ];
  f.down = ["[::1]:5353/udp: restarting after a crash"];
  await t.step("before the first snapshot", async () => {
    const res = await f.admin.request("GET", "/api/v1/node");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.snapshot, null);
  });
  await t.step("with a snapshot", async () => {
    f.snapshot = { version: 7, builtAt: "2026-06-01T11:59:30.000Z" };
    const res = await f.admin.request("GET", "/api/v1/node");
    const { store, ...node } = res.body.data;
    assert.deepEqual(node, {
      name: "test",
      version: VERSION,
      startedAt: STARTED_AT,
      uptimeSeconds: 3600,
      dataDir: "/var/lib/kudurru",
      objectsDir: "",
      listeners: {
        dns: {
          udp: ["0.0.0.0:53", "[::1]:5353"],
          tcp: ["0.0.0.0:53"],
        },
        down: ["[::1]:5353/udp: restarting after a crash"],
        api: "0.0.0.0:8080",
        ops: f.config.listeners.ops.address,
        metrics: f.config.listeners.metrics.address,
      },
      snapshot: {
        version: 7,
        builtAt: "2026-06-01T11:59:30.000Z",
        ageSeconds: 30,
      },
    });
    assert.equal(store.driver, "memory");
    assert.equal(store.schemaVersion, f.store.info().schemaVersion);
    assert.equal(store.clusterID, f.store.info().clusterID);
  });
});

Deno.test("api node health: every readiness check with its reason", async () => {
  await using f = await opsFixture();
  f.health.starting("loading objects");
  f.health.register("store", () => ({ ready: true }));
  let failed = ["ads: 404"];
  f.health.register(
    "lists",
    () =>
      failed.length === 0 ? { ready: true } : {
        ready: false,
        reason: `block lists failed to load: ${failed.join("; ")}`,
      },
  );
  const starting = await f.viewer.request("GET", "/api/v1/node/health");
  assert.equal(starting.status, 200, "answered whether ready or not");
  assert.deepEqual(starting.body.data, {
    ready: false,
    checks: [
      {
        name: "startup",
        ready: false,
        reason: "still starting: loading objects",
      },
      { name: "store", ready: true },
      {
        name: "lists",
        ready: false,
        reason: "block lists failed to load: ads: 404",
      },
    ],
  });
  f.health.markStarted();
  failed = [];
  const ready = await f.viewer.request("GET", "/api/v1/node/health");
  assert.equal(ready.body.data.ready, true);
  f.health.setLameduck();
  const lameduck = await f.viewer.request("GET", "/api/v1/node/health");
  assert.equal(lameduck.body.data.ready, false);
  assert.equal(lameduck.body.data.checks[1].name, "lameduck");
});

Deno.test("api config: secrets masked, durations as text, binding subjects only for those who may list rolebindings", async () => {
  await using f = await opsFixture({
    config: {
      auth: { bootstrap: { adminPassword: "a secret never shown" } },
      rbac: {
        bindings: [{
          role: "viewer",
          subjects: [{ kind: "User", name: "vera" }],
        }],
      },
    },
  });
  const admin = await f.admin.request("GET", "/api/v1/config");
  assert.equal(admin.status, 200, JSON.stringify(admin.body));
  const shown = admin.body.data;
  assert.equal(shown.source, "/etc/kudurru/kudurru.yaml");
  assert.equal(shown.startedAt, STARTED_AT);
  assert.equal(shown.config.auth.bootstrap.adminPassword, "********");
  assert.equal(shown.config.auth.session.idleTimeout, "30m");
  assert.equal(shown.config.node.name, "test");
  assert.deepEqual(shown.config.rbac.bindings[0].subjects, [
    { kind: "User", name: "vera" },
  ]);
  assert.equal(shown.hidden, undefined);
  assert.doesNotMatch(JSON.stringify(shown), /a secret never shown/);

  const viewer = await f.viewer.request("GET", "/api/v1/config");
  assert.equal(viewer.status, 200, JSON.stringify(viewer.body));
  assert.deepEqual(viewer.body.data.hidden, ["rbac.bindings[].subjects"]);
  assert.deepEqual(viewer.body.data.config.rbac.bindings, [
    { role: "viewer", scope: { kind: "cluster" } },
  ]);
  assert.doesNotMatch(JSON.stringify(viewer.body), /vera|a secret never shown/);
  assert.deepEqual(
    { ...viewer.body.data.config, rbac: undefined },
    { ...shown.config, rbac: undefined },
    "only the subjects differ",
  );
});

Deno.test("api config: nothing is hidden when no binding is configured", async () => {
  await using f = await opsFixture();
  const viewer = await f.viewer.request("GET", "/api/v1/config");
  assert.equal(viewer.body.data.hidden, undefined);
  assert.deepEqual(viewer.body.data.config.rbac, { bindings: [] });
});

Deno.test("api loader: the last load's sources, counts and diagnoses", async () => {
  await using f = await opsFixture();
  const before = await f.viewer.request("GET", "/api/v1/loader");
  assert.equal(before.status, 200, JSON.stringify(before.body));
  assert.equal(before.body.data.loads, 0);
  assert.deepEqual(before.body.data.diagnoses, []);
  await f.loader.load();
  const after = await f.viewer.request("GET", "/api/v1/loader");
  const status = after.body.data;
  assert.equal(status.loads, 1);
  assert.equal(status.inlineSource, "kudurru.yaml");
  assert.equal(status.counts.invalid, 1);
  assert.deepEqual(status.diagnosisCounts, { error: 1, warning: 0, info: 0 });
  const [d] = status.diagnoses;
  assert.equal(d.severity, "error");
  assert.equal(d.reason, "Invalid");
  assert.equal(d.source, "kudurru.yaml");
  assert.equal(d.object, "ClientGroup/default/kids");
  assert.match(d.message, /colour/);
  assert.equal(typeof status.lastLoad, "string");
});

Deno.test("api node, health, config and loader need a caller", async () => {
  await using f = await opsFixture();
  for (
    const path of [
      "/api/v1/node",
      "/api/v1/node/health",
      "/api/v1/config",
      "/api/v1/loader",
    ]
  ) {
    const res = await f.client().request("GET", path);
    assert.equal(res.status, 401, path);
  }
});
