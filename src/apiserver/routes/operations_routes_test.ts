import assert from "node:assert/strict";
import {
  BLOCKING_DISABLED_KEY,
  readBlockingDisabledUntil,
} from "../../blocking/blocking_state.ts";
import { blockList, opsFixture } from "../testdata/ops_fixture.ts";

const NOW = Date.parse("2026-06-01T12:00:00Z");

Deno.test("api blocking: on, paused for 5m as the CLI pauses it, back on", async (t) => {
  await using f = await opsFixture();
  await t.step("on by default", async () => {
    const on = await f.admin.request("GET", "/api/v1/blocking");
    assert.equal(on.status, 200, JSON.stringify(on.body));
    assert.deepEqual(on.body.data, { enabled: true, configured: true });
  });
  await t.step("a pause is the runtime value the CLI writes", async () => {
    const paused = await f.admin.request("PUT", "/api/v1/blocking", {
      enabled: false,
      for: "5m",
    });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    assert.deepEqual(paused.body.data, {
      enabled: false,
      configured: true,
      reason: "paused",
      disabledUntil: "2026-06-01T12:05:00.000Z",
      remainingSeconds: 300,
      setBy: "admin",
      setAt: "2026-06-01T12:00:00.000Z",
    });
    // What every node's watch reads (watchBlockingState).
    assert.equal(
      await readBlockingDisabledUntil(f.store, () => new Date(f.clock.t)),
      NOW + 5 * 60_000,
    );
    const row = f.store.audit.at(-1)!;
    assert.deepEqual(
      [row.key.kind, row.key.name, row.action, row.actor],
      ["Runtime", BLOCKING_DISABLED_KEY, "set", "admin"],
    );
  });
  await t.step("the state counts down and runs out by itself", async () => {
    f.clock.advance(60_500);
    const later = await f.admin.request("GET", "/api/v1/blocking");
    assert.equal(later.body.data.remainingSeconds, 240);
    f.clock.advance(240_000);
    const over = await f.admin.request("GET", "/api/v1/blocking");
    assert.deepEqual(over.body.data, { enabled: true, configured: true });
  });
  await t.step("enabled: true ends a pause now", async () => {
    await f.admin.request("PUT", "/api/v1/blocking", {
      enabled: false,
      for: "1h30m",
    });
    const on = await f.admin.request("PUT", "/api/v1/blocking", {
      enabled: true,
    });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    assert.deepEqual(on.body.data, { enabled: true, configured: true });
    assert.equal(await f.store.getRuntime(BLOCKING_DISABLED_KEY), undefined);
    assert.equal(f.store.audit.at(-1)!.action, "delete");
  });
  await t.step("enabled: false without for pauses 5m, as the CLI", async () => {
    const paused = await f.admin.request("PUT", "/api/v1/blocking", {
      enabled: false,
    });
    assert.equal(paused.body.data.remainingSeconds, 300);
  });
});

Deno.test("api blocking: bodies the CLI would refuse are 422 naming the field", async () => {
  await using f = await opsFixture();
  const cases: [unknown, string, string, RegExp, RegExp?][] = [
    [{ enabled: false, until: "5m" }, "unknown_field", "until", /unknown/],
    [{}, "invalid", "enabled", /is required/],
    [{ enabled: "no" }, "invalid", "enabled", /true or false/],
    [{ enabled: false, for: 5 }, "invalid", "for", /duration/],
    [
      { enabled: false, for: "5" },
      "invalid",
      "for",
      /not a duration/,
      /"5s" or "5m"/,
    ],
    [{ enabled: false, for: "500ms" }, "invalid", "for", /too short/, /"500m"/],
    [
      { enabled: false, for: "25h" },
      "invalid",
      "for",
      /24h limit/,
      /blocking\.enabled: false/,
    ],
    [{ enabled: true, for: "5m" }, "invalid", "for", /only for pausing/],
  ];
  for (const [body, key, path, message, hint] of cases) {
    const res = await f.admin.request("PUT", "/api/v1/blocking", body);
    const what = JSON.stringify(body);
    assert.equal(res.status, 422, what);
    assert.equal(res.body.error.key, key, what);
    assert.equal(res.body.error.issues[0].path, path, what);
    assert.match(res.body.error.message, message, what);
    if (hint) assert.match(res.body.error.hint, hint, what);
  }
  assert.equal(await f.store.getRuntime(BLOCKING_DISABLED_KEY), undefined);
  const notJson = await f.admin.request("PUT", "/api/v1/blocking", "{");
  assert.equal(notJson.status, 400);
});

Deno.test("api blocking: off in the configuration stays off, and says why", async () => {
  await using f = await opsFixture({
    config: { blocking: { enabled: false } },
  });
  const off = await f.admin.request("GET", "/api/v1/blocking");
  assert.deepEqual(off.body.data, {
    enabled: false,
    configured: false,
    reason: "configuration",
  });
  const on = await f.admin.request("PUT", "/api/v1/blocking", {
    enabled: true,
  });
  assert.equal(on.status, 200);
  assert.equal(on.body.data.enabled, false);
  assert.equal(on.body.data.reason, "configuration");
});

Deno.test("api cache flush: everything, one name, a subtree", async () => {
  await using f = await opsFixture();
  f.flushAnswer = 12;
  const all = await f.admin.request("POST", "/api/v1/cache/flush", {});
  assert.equal(all.status, 200, JSON.stringify(all.body));
  assert.deepEqual(all.body.data, { flushed: 12, subtree: false });
  const bare = await f.admin.request("POST", "/api/v1/cache/flush");
  assert.equal(bare.status, 200, "no body at all is {}");
  f.flushAnswer = 2;
  const one = await f.admin.request("POST", "/api/v1/cache/flush", {
    name: "ads.example.com",
  });
  assert.deepEqual(one.body.data, {
    flushed: 2,
    name: "ads.example.com",
    subtree: false,
  });
  await f.admin.request("POST", "/api/v1/cache/flush", {
    name: "example.com.",
    subtree: true,
  });
  await f.admin.request("POST", "/api/v1/cache/flush", {
    name: ".",
    subtree: true,
  });
  assert.deepEqual(f.flushes, [
    { name: undefined, subtree: false },
    { name: undefined, subtree: false },
    { name: "ads.example.com", subtree: false },
    { name: "example.com.", subtree: true },
    { name: ".", subtree: true },
  ]);
  // Each flush has its audit row: who, how, from where, what.
  const rows = f.store.audit.filter((r) => r.key.kind === "Cache");
  assert.deepEqual(
    rows.map((r) => [r.key.name, r.action, r.actor, r.after]),
    [
      ["(all)", "flush", "admin", { subtree: false }],
      ["(all)", "flush", "admin", { subtree: false }],
      ["ads.example.com", "flush", "admin", { subtree: false }],
      ["example.com.", "flush", "admin", { subtree: true }],
      [".", "flush", "admin", { subtree: true }],
    ],
  );
  assert.equal(rows[0]!.manager, "operation");
  assert.equal(rows[0]!.authorization, "session");
});

Deno.test("api cache flush: a flush the audit trail cannot record is refused and not run", async () => {
  await using f = await opsFixture();
  f.store.recordOperation = () =>
    Promise.reject(new Error("database or disk is full"));
  const res = await f.admin.request("POST", "/api/v1/cache/flush", {});
  assert.equal(res.status, 503, JSON.stringify(res.body));
  assert.deepEqual(f.flushes, []);
});

Deno.test("api cache flush: a bad name or shape is 422 and flushes nothing", async () => {
  await using f = await opsFixture();
  const cases: [unknown, string, string][] = [
    [{ name: "a..b" }, "invalid", "name"],
    [{ name: "x".repeat(64) + ".example" }, "invalid", "name"],
    [{ name: "" }, "invalid", "name"],
    [{ name: 7 }, "invalid", "name"],
    [{ name: "." }, "invalid", "name"],
    [{ subtree: true }, "invalid", "subtree"],
    [{ name: "a.example", subtree: "yes" }, "invalid", "subtree"],
    [{ names: ["a.example"] }, "unknown_field", "names"],
  ];
  for (const [body, key, path] of cases) {
    const res = await f.admin.request("POST", "/api/v1/cache/flush", body);
    const what = JSON.stringify(body);
    assert.equal(res.status, 422, what);
    assert.equal(res.body.error.key, key, what);
    assert.equal(res.body.error.issues[0].path, path, what);
  }
  assert.deepEqual(f.flushes, []);
});

Deno.test("api list refresh: asks the fetcher for that list and says what came of it", async (t) => {
  await using f = await opsFixture({ refreshWaitMs: 50 });
  await f.store.apply(blockList("ads"), { manager: "api" });
  await f.store.apply(blockList("off", { enabled: false }), { manager: "api" });
  const path = "/api/v1/namespaces/default/blocklists/ads:refresh";
  await t.step("fetched: the sources' outcomes", async () => {
    f.refresh = () =>
      Promise.resolve({
        state: "fetched",
        sources: [{
          url: "https://lists.example/ads.txt",
          ok: true,
          changed: true,
          fetchedAt: "2026-06-01T12:00:01.000Z",
        }],
      });
    const res = await f.admin.request("POST", path);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data, {
      namespace: "default",
      name: "ads",
      state: "fetched",
      sources: [{
        url: "https://lists.example/ads.txt",
        ok: true,
        changed: true,
        fetchedAt: "2026-06-01T12:00:01.000Z",
      }],
    });
    assert.deepEqual(f.refreshes, [{
      kind: "BlockList",
      namespace: "default",
      name: "ads",
    }]);
    const row = f.store.audit.at(-1)!;
    assert.deepEqual(
      [row.key, row.action, row.actor, row.manager],
      [f.refreshes[0], "refresh", "admin", "operation"],
    );
  });
  await t.step("slow downloads: 202, the status will tell", async () => {
    f.refresh = () => new Promise(() => {});
    const res = await f.admin.request("POST", path);
    assert.equal(res.status, 202);
    assert.equal(res.body.data.state, "pending");
  });
  await t.step("another node leads: 503 naming it", async () => {
    f.refresh = () => Promise.resolve({ state: "notLeader", leader: "node-b" });
    const res = await f.admin.request("POST", path);
    assert.equal(res.status, 503);
    assert.equal(res.body.error.key, "unavailable");
    assert.match(res.body.error.message, /node-b/);
  });
  await t.step(
    "the fetcher has not seen it yet: 404 with Retry-After",
    async () => {
      f.refresh = () => Promise.resolve({ state: "unknown" });
      const res = await f.admin.request("POST", path);
      assert.equal(res.status, 404);
      assert.equal(res.headers.get("retry-after"), "1");
    },
  );
  await t.step(
    "no enabled URL source: nothing to fetch, fetcher not asked",
    async () => {
      const before = f.refreshes.length;
      const res = await f.admin.request(
        "POST",
        "/api/v1/namespaces/default/blocklists/off:refresh",
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.data.state, "nothing");
      assert.equal(f.refreshes.length, before);
      assert.notEqual(f.store.audit.at(-1)!.key.name, "off", "nothing done");
    },
  );
  await t.step("no such list, or no :refresh: 404", async () => {
    for (
      const p of [
        "/api/v1/namespaces/default/blocklists/nope:refresh",
        "/api/v1/namespaces/lab/blocklists/ads:refresh",
        "/api/v1/namespaces/default/blocklists/ads",
        "/api/v1/namespaces/default/blocklists/:refresh",
      ]
    ) {
      const res = await f.admin.request("POST", p);
      assert.equal(res.status, 404, p);
      assert.equal(res.body.error.key, "not_found", p);
    }
  });
});

Deno.test("api operations: a viewer token reads the state and is refused every write with what is missing", async () => {
  await using f = await opsFixture();
  await f.store.apply(blockList("ads"), { manager: "api" });
  const read = await f.viewer.request("GET", "/api/v1/blocking");
  assert.equal(read.status, 200, JSON.stringify(read.body));
  const writes: [string, string, unknown, object][] = [
    ["PUT", "/api/v1/blocking", { enabled: false, for: "5m" }, {
      resource: "blocking",
      verb: "set",
    }],
    ["POST", "/api/v1/cache/flush", {}, { resource: "cache", verb: "flush" }],
    ["POST", "/api/v1/namespaces/default/blocklists/ads:refresh", undefined, {
      resource: "blocklists",
      verb: "refresh",
    }],
  ];
  for (const [method, path, body, missing] of writes) {
    const res = await f.viewer.request(method, path, body);
    assert.equal(res.status, 403, path);
    assert.equal(res.body.error.key, "forbidden", path);
    assert.deepEqual(res.body.error.missing, { ...missing, scope: "cluster" });
  }
  assert.equal(await f.store.getRuntime(BLOCKING_DISABLED_KEY), undefined);
  assert.deepEqual(f.flushes, []);
  assert.deepEqual(f.refreshes, []);
  const anonymous = await f.client().request("GET", "/api/v1/blocking");
  assert.equal(anonymous.status, 401);
});

Deno.test("api operations, node and audit routes: valid OpenAPI 3.1, each route a row of the permissions table", async () => {
  const { Validator } = await import("@seriousme/openapi-schema-validator");
  const { permission } = await import("../../rbac/permissions.ts");
  await using f = await opsFixture();
  const doc = await f.client().request("GET", "/api/v1/openapi.json");
  const result = await new Validator().validate(doc.body);
  assert.equal(
    result.valid,
    true,
    String(JSON.stringify(result.errors)).slice(0, 2000),
  );
  for (
    const path of [
      "/api/v1/blocking",
      "/api/v1/cache/flush",
      "/api/v1/namespaces/{namespace}/blocklists/{name}:refresh",
      "/api/v1/node",
      "/api/v1/node/health",
      "/api/v1/config",
      "/api/v1/loader",
      "/api/v1/audit",
      "/api/v1/audit/{id}",
    ]
  ) {
    assert.ok(doc.body.paths[path], path);
  }
  for (const route of f.api.routes.routes) {
    if ("public" in route.guard) continue;
    assert.ok(
      permission(route.guard.resource, route.guard.verb) !== undefined,
      `${route.method} ${route.path}`,
    );
  }
});
