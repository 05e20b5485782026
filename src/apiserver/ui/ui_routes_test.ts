import assert from "node:assert/strict";
import { FILES } from "../../../ui/dist/assets.ts";
import { ADMIN_PASSWORD, apiFixture } from "../testdata/api_fixture.ts";
import { indexPage } from "./ui_routes.ts";

Deno.test("ui routes: the app's page at / and at its own paths, files with cache headers, the API's 404 elsewhere", async () => {
  await using f = await apiFixture();
  const get = (path: string, accept = "text/html") =>
    f.api.app.request(path, { headers: { accept } });

  const root = await get("/");
  assert.equal(root.status, 200);
  assert.match(root.headers.get("content-type")!, /^text\/html/);
  assert.equal(root.headers.get("cache-control"), "no-cache");
  assert.equal(
    root.headers.get("content-security-policy"),
    "default-src 'self'; frame-ancestors 'none'",
  );
  const page = await root.text();
  assert.match(page, /<base href="\/">/);
  assert.doesNotMatch(page, /<script>|<style>|style=/, "nothing inline");

  // A link to a page of the app, opened in a new tab.
  const shared = await get("/querylog?client=192.0.2.1");
  assert.equal(shared.status, 200);
  assert.equal(await shared.text(), page);

  // Each file the page names is served; hashed names are kept for a year.
  const names = [...page.matchAll(/(?:href|src)="(assets\/[^"]+)"/g)]
    .map((m) => m[1]!);
  assert.ok(names.some((n) => n.endsWith(".js")));
  assert.ok(names.some((n) => n.endsWith(".css")));
  for (const name of names) {
    const file = await get(`/${name}`, "*/*");
    assert.equal(file.status, 200, name);
    const body = new Uint8Array(await file.arrayBuffer());
    assert.deepEqual(body, FILES.get(name), name);
    assert.equal(
      file.headers.get("cache-control"),
      /-[A-Z0-9]{8}\./.test(name)
        ? "public, max-age=31536000, immutable"
        : "no-cache",
      name,
    );
  }
  // Scripts and styles gzipped for a browser that takes it.
  const js = names.find((n) => n.endsWith(".js"))!;
  const script = await f.api.app.request(`/${js}`, {
    headers: { "accept-encoding": "gzip, deflate, br" },
  });
  assert.match(script.headers.get("content-type")!, /^text\/javascript/);
  assert.equal(script.headers.get("content-encoding"), "gzip");
  assert.equal(script.headers.get("vary"), "Accept-Encoding");
  const unpacked = await new Response(
    script.body!.pipeThrough(new DecompressionStream("gzip")),
  ).bytes();
  assert.deepEqual(unpacked, FILES.get(js));

  // Not the app: an unknown file, the API, a client that is not a browser.
  const missing = await get("/assets/app-NOTTHERE.js", "*/*");
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
  const api = await get("/api/v1/nothing");
  assert.equal(api.status, 404);
  assert.equal((await api.json()).error.key, "not_found");
  const curl = await get("/querylog", "*/*");
  assert.equal(curl.status, 404);
  await curl.body?.cancel();
  const post = await f.api.app.request("/querylog", {
    method: "POST",
    headers: { accept: "text/html" },
  });
  assert.equal(post.status, 404);
  await post.body?.cancel();
});

Deno.test("ui routes: under listeners.api.pathPrefix the page's base is the prefix", () => {
  assert.match(indexPage("/dns"), /<base href="\/dns\/">/);
  assert.match(indexPage(""), /<base href="\/">/);
});

Deno.test("auth status tells the UI what the caller may do across the cluster", async () => {
  await using f = await apiFixture();
  const anonymous = await f.client().request("GET", "/api/v1/auth/status");
  assert.equal(anonymous.body.data.permissions, undefined);
  const admin = f.client();
  assert.equal((await admin.login("admin", ADMIN_PASSWORD)).status, 200);
  const mine = (await admin.request("GET", "/api/v1/auth/status")).body.data
    .permissions;
  assert.ok(mine.dnszones.includes("create"));
  assert.ok(mine.settings.includes("update"));
  // A read-only token of the admin's: reads only.
  const made = await admin.request("POST", "/api/v1/tokens", {
    description: "widget",
    scopes: [{ role: "viewer" }],
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const widget = f.client();
  widget.token = made.body.data.token;
  const read = (await widget.request("GET", "/api/v1/auth/status")).body.data
    .permissions;
  assert.ok(read.dnszones.includes("list"));
  assert.equal(read.dnszones.includes("create"), false);
  assert.equal(read.settings, undefined);
  assert.deepEqual(
    (await widget.request("GET", "/api/v1/auth/status")).body.data
      .zonePermissions,
    {},
  );

  // A zone-admin of one zone: nothing across the cluster but reading its
  // own, and the zone's rights under its name.
  assert.equal(
    (await admin.request("POST", "/api/v1/users", {
      name: "zed",
      password: "first password for zed",
    })).status,
    201,
  );
  assert.equal(
    (await admin.request("POST", "/api/v1/rolebindings", {
      name: "zed-home",
      role: "zone-admin",
      scope: { kind: "zone", name: "home" },
      subjects: [{ kind: "User", name: "zed" }],
    })).status,
    201,
  );
  const zed = f.client();
  assert.equal((await zed.login("zed", "first password for zed")).status, 200);
  const changed = await zed.request("POST", "/api/v1/auth/password", {
    current: "first password for zed",
    new: "a second, better password",
  });
  zed.csrf = changed.body.data.csrf;
  const status = (await zed.request("GET", "/api/v1/auth/status")).body.data;
  assert.equal(status.permissions.dnsrecordsets?.includes("create"), undefined);
  assert.ok(status.zonePermissions.home.dnsrecordsets.includes("create"));
  assert.ok(status.zonePermissions.home.dnszones.includes("update"));
  assert.equal(status.zonePermissions.home.settings, undefined);
});
