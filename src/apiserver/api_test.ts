import assert from "node:assert/strict";
import { ADMIN_PASSWORD, apiFixture } from "./testdata/api_fixture.ts";

const ZONE = {
  metadata: { name: "home" },
  spec: {
    zoneName: "home.test.",
    type: "primary",
    soa: { mname: "ns.home.test.", rname: "admin.home.test." },
  },
};

Deno.test("api login answers one 401 for an unknown user and a wrong password", async () => {
  await using f = await apiFixture();
  const unknown = await f.client().login("nobody", "whatever12");
  const wrong = await f.client().login("admin", "not the password");
  assert.equal(unknown.status, 401);
  assert.equal(wrong.status, 401);
  assert.deepEqual(unknown.body.error, wrong.body.error);
  assert.equal(typeof unknown.body.took_ms, "number");
});

Deno.test("api login sets a sealed HttpOnly cookie and status says who is logged in", async () => {
  await using f = await apiFixture();
  const client = f.client();
  const login = await client.login("admin", ADMIN_PASSWORD);
  assert.equal(login.status, 200);
  const cookie = login.headers.get("set-cookie")!;
  assert.match(cookie, /^kudurru_session=v1\./);
  assert.match(cookie, /HttpOnly/);
  assert.match(cookie, /SameSite=Lax/);
  const status = await client.request("GET", "/api/v1/auth/status");
  assert.equal(status.body.data.authenticated, true);
  assert.equal(status.body.data.user, "admin");
  assert.equal(status.body.data.hasDefaultCredentials, false);
});

Deno.test("api refuses a cookie write without the CSRF header, and takes it with", async () => {
  await using f = await apiFixture();
  const client = f.client();
  await client.login("admin", ADMIN_PASSWORD);
  const csrf = client.csrf;
  client.csrf = undefined;
  const refused = await client.request("POST", "/api/v1/dnszones", ZONE);
  assert.equal(refused.status, 403);
  assert.equal(refused.body.error.key, "csrf");
  client.csrf = csrf;
  const created = await client.request("POST", "/api/v1/dnszones", ZONE);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal(created.headers.get("location"), "/api/v1/dnszones/home");
  assert.equal(created.body.data.metadata.managedBy, "api");
});

Deno.test("api objects: ETag, If-Match conflict, merge patch, unknown fields, delete", async (t) => {
  await using f = await apiFixture();
  const client = f.client();
  await client.login("admin", ADMIN_PASSWORD);
  await client.request("POST", "/api/v1/dnszones", ZONE);
  const read = await client.request("GET", "/api/v1/dnszones/home");
  const etag = read.headers.get("etag")!;
  await t.step(
    "a stale If-Match is 409 conflict, nothing stored changes",
    async () => {
      const patched = await client.request(
        "PATCH",
        "/api/v1/dnszones/home",
        { metadata: { labels: { site: "a" } } },
        { "content-type": "application/merge-patch+json", "if-match": etag },
      );
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.equal(patched.body.data.metadata.labels.site, "a");
      const stale = await client.request(
        "PATCH",
        "/api/v1/dnszones/home",
        { metadata: { labels: { site: "b" } } },
        { "content-type": "application/merge-patch+json", "if-match": etag },
      );
      assert.equal(stale.status, 409);
      assert.equal(stale.body.error.key, "conflict");
      const now = await client.request("GET", "/api/v1/dnszones/home");
      assert.equal(now.body.data.metadata.labels.site, "a");
    },
  );
  await t.step("merge patch null removes a member", async () => {
    const patched = await client.request(
      "PATCH",
      "/api/v1/dnszones/home",
      { metadata: { labels: null } },
      { "content-type": "application/merge-patch+json" },
    );
    assert.equal(patched.body.data.metadata.labels, undefined);
  });
  await t.step("an unknown field is 422 naming its path", async () => {
    const bad = await client.request("PUT", "/api/v1/dnszones/home", {
      ...ZONE,
      spec: { ...ZONE.spec, colour: "red" },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.key, "unknown_field");
    assert.deepEqual(bad.body.error.issues[0].path, "spec.colour");
  });
  await t.step("malformed JSON is 400 invalid_json", async () => {
    const bad = await client.request("POST", "/api/v1/dnszones", "{nope");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.key, "invalid_json");
  });
  await t.step("delete is 204, then 404", async () => {
    const gone = await client.request("DELETE", "/api/v1/dnszones/home");
    assert.equal(gone.status, 204);
    const missing = await client.request("GET", "/api/v1/dnszones/home");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.key, "not_found");
  });
});

Deno.test("api object owned by a file is 409 managed_by naming the file", async () => {
  await using f = await apiFixture();
  await f.store.apply({
    apiVersion: "kudurru.io/v1alpha1",
    kind: "DNSZone",
    ...ZONE,
  }, { manager: "file:objects.d/zones.yaml" });
  const client = f.client();
  await client.login("admin", ADMIN_PASSWORD);
  const res = await client.request(
    "PATCH",
    "/api/v1/dnszones/home",
    { metadata: { labels: { a: "b" } } },
    { "content-type": "application/merge-patch+json" },
  );
  assert.equal(res.status, 409);
  assert.equal(res.body.error.key, "managed_by");
  assert.match(
    res.body.error.message,
    /managed by file objects\.d\/zones\.yaml/,
  );
  assert.equal(res.body.error.owner, "file:objects.d/zones.yaml");
});

Deno.test("api writes take over the first start's bootstrap objects", async () => {
  await using f = await apiFixture();
  const policy = (name: string) => ({
    apiVersion: "kudurru.io/v1alpha1",
    kind: "Policy",
    metadata: { name, namespace: "default" },
    spec: { clientGroupRefs: ["default"] },
  });
  await f.store.apply(policy("default"), { manager: "bootstrap" });
  await f.store.apply(policy("other"), { manager: "bootstrap" });
  const client = f.client();
  await client.login("admin", ADMIN_PASSWORD);
  const patched = await client.request(
    "PATCH",
    "/api/v1/namespaces/default/policies/default",
    { spec: { priority: 5 } },
    { "content-type": "application/merge-patch+json" },
  );
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.equal(patched.body.data.spec.priority, 5);
  assert.equal(patched.body.data.metadata.managedBy, "api");
  const gone = await client.request(
    "DELETE",
    "/api/v1/namespaces/default/policies/other",
  );
  assert.equal(gone.status, 204);
});

Deno.test("api read-only token reads and cannot write: 403 with what is missing", async () => {
  await using f = await apiFixture();
  const admin = f.client();
  await admin.login("admin", ADMIN_PASSWORD);
  const made = await admin.request("POST", "/api/v1/tokens", {
    description: "dashboard",
    scopes: [{ role: "viewer" }],
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.match(made.body.data.token, /^kdr_[a-z2-7]{12}_/);
  const widget = f.client();
  widget.token = made.body.data.token;
  const list = await widget.request("GET", "/api/v1/dnszones");
  assert.equal(list.status, 200, JSON.stringify(list.body));
  const write = await widget.request("POST", "/api/v1/dnszones", ZONE);
  assert.equal(write.status, 403);
  assert.equal(write.body.error.key, "forbidden");
  assert.deepEqual(write.body.error.missing, {
    resource: "dnszones",
    verb: "create",
    scope: "zone:home",
  });
  const listed = await admin.request("GET", "/api/v1/tokens");
  assert.equal(
    listed.body.data.items[0].secretHash,
    undefined,
    "no hash leaves",
  );
});

Deno.test("api a wrong or revoked token is 401", async () => {
  await using f = await apiFixture();
  const admin = f.client();
  await admin.login("admin", ADMIN_PASSWORD);
  const made = await admin.request("POST", "/api/v1/tokens", {});
  const text: string = made.body.data.token;
  const bad = f.client();
  bad.token = text.slice(0, -2) + (text.endsWith("AA") ? "BB" : "AA");
  assert.equal((await bad.request("GET", "/api/v1/dnszones")).status, 401);
  const revoked = await admin.request(
    "DELETE",
    `/api/v1/tokens/${made.body.data.id}`,
  );
  assert.equal(revoked.status, 204);
  const late = f.client();
  late.token = text;
  assert.equal((await late.request("GET", "/api/v1/dnszones")).status, 401);
});

Deno.test("api generated first password must be changed before anything else", async () => {
  await using f = await apiFixture({ adminPassword: null });
  const password = f.api.generatedPassword!;
  assert.ok(password.length >= 20);
  const client = f.client();
  await client.login("admin", password);
  const status = await client.request("GET", "/api/v1/auth/status");
  assert.equal(status.body.data.hasDefaultCredentials, true);
  const blocked = await client.request("GET", "/api/v1/dnszones");
  assert.equal(blocked.status, 403);
  assert.equal(blocked.body.error.key, "password_change_required");
  const changed = await client.request("POST", "/api/v1/auth/password", {
    current: password,
    new: "a much better password",
  });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  client.csrf = changed.body.data.csrf;
  assert.equal((await client.request("GET", "/api/v1/dnszones")).status, 200);
  const after = await client.request("GET", "/api/v1/auth/status");
  assert.equal(after.body.data.hasDefaultCredentials, false);
});

Deno.test("api login is limited per address: the sixth try is 429 with Retry-After", async () => {
  await using f = await apiFixture();
  for (let i = 0; i < 5; i++) {
    assert.equal((await f.client().login("admin", `wrong ${i}`)).status, 401);
  }
  const blocked = await f.client().login("admin", ADMIN_PASSWORD);
  assert.equal(blocked.status, 429);
  assert.equal(blocked.body.error.key, "rate_limited");
  assert.ok(Number(blocked.headers.get("retry-after")) > 0);
  f.clock.advance(5 * 60_000 + 1);
  assert.equal((await f.client().login("admin", ADMIN_PASSWORD)).status, 200);
});

Deno.test("api session ends after the idle timeout", async () => {
  await using f = await apiFixture();
  const client = f.client();
  await client.login("admin", ADMIN_PASSWORD);
  f.clock.advance(29 * 60_000);
  assert.equal((await client.request("GET", "/api/v1/dnszones")).status, 200);
  f.clock.advance(29 * 60_000); // the last request moved the window on
  assert.equal((await client.request("GET", "/api/v1/dnszones")).status, 200);
  f.clock.advance(31 * 60_000);
  assert.equal((await client.request("GET", "/api/v1/dnszones")).status, 401);
});

Deno.test("api OpenAPI document is served and every route declares what it needs", async () => {
  await using f = await apiFixture();
  const doc = await f.client().request("GET", "/api/v1/openapi.json");
  assert.equal(doc.status, 200);
  assert.equal(doc.body.openapi, "3.1.0");
  assert.ok(doc.body.paths["/api/v1/dnszones/{name}"]);
  for (const route of f.api.routes.routes) {
    const guard = route.guard;
    assert.ok(
      "public" in guard ||
        (guard.resource !== undefined && guard.verb !== undefined),
      `${route.method} ${route.path} declares nothing`,
    );
  }
});

Deno.test("api OpenAPI document is valid OpenAPI 3.1", async () => {
  const { Validator } = await import("@seriousme/openapi-schema-validator");
  await using f = await apiFixture();
  const doc = await f.client().request("GET", "/api/v1/openapi.json");
  const result = await new Validator().validate(doc.body);
  assert.equal(result.valid, true, JSON.stringify(result).slice(0, 2000));
});

Deno.test("api every route's permission is a row of the permissions table", async () => {
  const { permission } = await import("../rbac/permissions.ts");
  await using f = await apiFixture();
  for (const route of f.api.routes.routes) {
    if ("public" in route.guard) continue;
    assert.ok(
      permission(route.guard.resource, route.guard.verb) !== undefined,
      `${route.method} ${route.path}: ${route.guard.verb} ${route.guard.resource} is in no row`,
    );
  }
});

Deno.test("api on a static node refuses object writes with read_only and the reason, and still reads", async () => {
  const node: { readOnly?: string } = {};
  await using f = await apiFixture({ readOnlyReason: () => node.readOnly });
  const client = f.client();
  await client.login("admin", ADMIN_PASSWORD);
  assert.equal(
    (await client.request("POST", "/api/v1/dnszones", ZONE)).status,
    201,
  );
  node.readOnly = "this node runs with cluster.role static";
  const refused = [
    await client.request("POST", "/api/v1/dnszones", {
      ...ZONE,
      metadata: { name: "other" },
    }),
    await client.request("PATCH", "/api/v1/dnszones/home", {
      spec: { soa: { minimum: 60 } },
    }, { "content-type": "application/merge-patch+json" }),
    await client.request("DELETE", "/api/v1/dnszones/home"),
  ];
  for (const answer of refused) {
    assert.equal(answer.status, 409, JSON.stringify(answer.body));
    assert.equal(answer.body.error.key, "read_only");
    assert.match(answer.body.error.message, /cluster\.role static/);
  }
  const read = await client.request("GET", "/api/v1/dnszones/home");
  assert.equal(read.status, 200);
  assert.equal(read.body.data.spec.zoneName, "home.test.");
});

Deno.test("api a list with a continue value it never gave is 400, not a server error", async () => {
  await using f = await apiFixture();
  const client = f.client();
  await client.login("admin", ADMIN_PASSWORD);
  const answer = await client.request(
    "GET",
    "/api/v1/dnszones?limit=1&continue=not-a-token",
  );
  assert.equal(answer.status, 400, JSON.stringify(answer.body));
  assert.equal(answer.body.error.key, "bad_request");
});
