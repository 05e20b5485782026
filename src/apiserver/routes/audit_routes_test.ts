import assert from "node:assert/strict";
import { queryMemoryAudit } from "../../store/memory/memory_audit.ts";
import type { MemoryAuditRow } from "../../store/memory/memory_store.ts";
import type { AuditExtras } from "../../store/audit_query.ts";
import { ADMIN_PASSWORD, apiFixture } from "../testdata/api_fixture.ts";
import { opsFixture } from "../testdata/ops_fixture.ts";
import { auditRoutes } from "./audit_routes.ts";

const ZONE = {
  metadata: { name: "home" },
  spec: {
    zoneName: "home.test.",
    type: "primary",
    soa: { mname: "ns.home.test.", rname: "admin.home.test." },
  },
};

Deno.test("api audit: the API's own writes, newest first, filtered and paged", async (t) => {
  await using f = await opsFixture();
  f.clock.advance(60_000);
  const since = new Date(f.clock.t).toISOString();
  await f.admin.request("POST", "/api/v1/dnszones", ZONE);
  f.clock.advance(1000);
  await f.admin.request(
    "PATCH",
    "/api/v1/dnszones/home",
    { metadata: { labels: { site: "a" } } },
    { "content-type": "application/merge-patch+json" },
  );
  f.clock.advance(1000);
  await f.admin.request("PUT", "/api/v1/blocking", { enabled: false });
  const pick = (items: Record<string, unknown>[]) =>
    items.map((r) => `${r.action} ${r.kind} ${r.name} ${r.actor}`);

  await t.step("newest first, since a time", async () => {
    const res = await f.admin.request(
      "GET",
      `/api/v1/audit?since=${encodeURIComponent(since)}`,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(pick(res.body.data.items), [
      "set Runtime blocking.disabledUntil admin",
      "update DNSZone home admin",
      "create DNSZone home admin",
    ]);
    const [set, update] = res.body.data.items;
    assert.equal(set.namespace, undefined, "no empty namespace");
    // Schema 3: how the caller proved who it is, and from where.
    assert.equal(set.authorization, "session");
    assert.equal(set.client, "unknown", "no socket in an in-process request");
    assert.equal(update.authorization, "session");
    assert.equal(update.resourceVersion, String(update.resourceVersion));
    assert.equal(update.manager, "api");
    assert.equal(update.generation, 1, "a label is no spec change");
    assert.equal(res.body.data.continue, undefined);
  });
  await t.step("since as a duration back from now", async () => {
    const res = await f.admin.request("GET", "/api/v1/audit?since=1500ms");
    assert.deepEqual(pick(res.body.data.items), [
      "set Runtime blocking.disabledUntil admin",
      "update DNSZone home admin",
    ]);
  });
  await t.step("kind by its plural, name, action", async () => {
    const zones = await f.admin.request(
      "GET",
      "/api/v1/audit?kind=dnszones&name=home&action=create",
    );
    assert.deepEqual(pick(zones.body.data.items), [
      "create DNSZone home admin",
    ]);
    // The login recorded its session; then blocking was paused.
    const runtime = await f.admin.request("GET", "/api/v1/audit?kind=Runtime");
    assert.deepEqual(pick(runtime.body.data.items), [
      "set Runtime blocking.disabledUntil admin",
      "set Runtime sessions.admin admin",
    ]);
  });
  await t.step("keyset pages cover every row once", async () => {
    const all = await f.admin.request("GET", "/api/v1/audit?actor=admin");
    const ids: number[] = [];
    let next: string | undefined;
    do {
      const page = await f.admin.request(
        "GET",
        `/api/v1/audit?actor=admin&limit=2${
          next ? `&continue=${encodeURIComponent(next)}` : ""
        }`,
      );
      assert.ok(page.body.data.items.length <= 2);
      ids.push(...page.body.data.items.map((r: { id: number }) => r.id));
      next = page.body.data.continue;
    } while (next !== undefined);
    assert.deepEqual(ids, all.body.data.items.map((r: { id: number }) => r.id));
    assert.ok(ids.length >= 4, "the token made at setup is there too");
  });
  await t.step("one row by id", async () => {
    const list = await f.admin.request("GET", "/api/v1/audit?limit=1");
    const [newest] = list.body.data.items;
    const one = await f.admin.request("GET", `/api/v1/audit/${newest.id}`);
    assert.equal(one.status, 200, JSON.stringify(one.body));
    const { before, after, ...row } = one.body.data;
    assert.deepEqual(row, newest, "the list's row, and the bodies");
    assert.equal(before, undefined, "blocking was on: no value before");
    assert.equal(after.value, "2026-06-01T12:06:02.000Z", "5m after 12:01:02");
  });
});

Deno.test("api audit: a bad query is 400 saying which part, a missing row 404", async () => {
  await using f = await opsFixture();
  const cases: [string, RegExp][] = [
    ["/api/v1/audit?limit=0", /limit/],
    ["/api/v1/audit?limit=1001", /limit/],
    ["/api/v1/audit?limit=ten", /limit/],
    ["/api/v1/audit?since=yesterday", /since/],
    ["/api/v1/audit?continue=garbage", /continue token/],
    ["/api/v1/audit/abc", /not an audit row id/],
    ["/api/v1/audit/0", /not an audit row id/],
  ];
  for (const [path, message] of cases) {
    const res = await f.admin.request("GET", path);
    assert.equal(res.status, 400, path);
    assert.equal(res.body.error.key, "bad_request", path);
    assert.match(res.body.error.message, message, path);
  }
  const since = await f.admin.request("GET", "/api/v1/audit?since=yesterday");
  assert.equal(since.body.error.field, "since");
  assert.match(since.body.error.hint, /duration/);
  const missing = await f.admin.request("GET", "/api/v1/audit/99999");
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.key, "not_found");
});

Deno.test("api audit: a viewer is refused, an auditor reads", async () => {
  await using f = await opsFixture();
  const refused: [string, string][] = [
    ["/api/v1/audit", "list"],
    ["/api/v1/audit/1", "get"],
  ];
  for (const [path, verb] of refused) {
    const res = await f.viewer.request("GET", path);
    assert.equal(res.status, 403, path);
    assert.equal(res.body.error.key, "forbidden");
    assert.deepEqual(res.body.error.missing, {
      resource: "audit",
      verb,
      scope: "cluster",
    });
  }
  const made = await f.admin.request("POST", "/api/v1/tokens", {
    description: "review",
    scopes: [{ role: "auditor" }],
  });
  const auditor = f.client();
  auditor.token = made.body.data.token;
  const res = await auditor.request("GET", "/api/v1/audit");
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.ok(res.body.data.items.length > 0);
});

Deno.test("api audit: a v3 row shows authorization and client; its bodies only when read alone", async () => {
  const rows: (MemoryAuditRow & AuditExtras)[] = [{
    time: "2026-06-01T12:00:00.000Z",
    actor: "alice",
    manager: "api",
    action: "update",
    generation: 2,
    key: { kind: "DNSZone", namespace: "", name: "home" },
    resourceVersion: 9,
    authorization: "token abc123",
    client: "192.0.2.7",
    before: { spec: { type: "primary" } },
    after: { spec: { type: "secondary" } },
  }];
  await using f = await apiFixture({
    extraRoutes: (shared) => [
      auditRoutes({
        readAudit: (q) =>
          Promise.resolve().then(() => queryMemoryAudit(rows, q)),
        now: shared.now,
      }),
    ],
  });
  const admin = f.client();
  await admin.login("admin", ADMIN_PASSWORD);
  const list = await admin.request("GET", "/api/v1/audit");
  assert.deepEqual(list.body.data.items, [{
    id: 1,
    time: "2026-06-01T12:00:00.000Z",
    actor: "alice",
    manager: "api",
    action: "update",
    kind: "DNSZone",
    name: "home",
    resourceVersion: "9",
    generation: 2,
    authorization: "token abc123",
    client: "192.0.2.7",
  }]);
  const one = await admin.request("GET", "/api/v1/audit/1");
  assert.deepEqual(one.body.data.before, { spec: { type: "primary" } });
  assert.deepEqual(one.body.data.after, { spec: { type: "secondary" } });
});
