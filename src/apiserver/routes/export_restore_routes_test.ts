import assert from "node:assert/strict";
import YAML from "yaml";
import { API_VERSION, type KObject } from "../../api/v1alpha1/meta.ts";
import { checkExport } from "../../store/export_marker.ts";
import { parseObjectList, snapshotYaml } from "../../store/snapshot.ts";
import { createMemoryStore } from "../../store/memory/memory_store.ts";
import type { Store } from "../../store/store.ts";
import {
  ADMIN_PASSWORD,
  type ApiClient,
  type ApiFixture,
  apiFixture,
} from "../testdata/api_fixture.ts";

function zone(name: string): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "DNSZone",
    metadata: { name },
    spec: {
      zoneName: `${name}.test.`,
      type: "primary",
      soa: { mname: `ns.${name}.test.`, rname: `admin.${name}.test.` },
    },
  };
}

function recordSet(name: string, zoneName: string, ip: string): KObject {
  return {
    apiVersion: API_VERSION,
    kind: "DNSRecordSet",
    metadata: { name, namespace: "default" },
    spec: {
      zoneRef: { name: zoneName },
      endpoints: [{
        dnsName: `www.${zoneName}.test`,
        recordType: "A",
        targets: [ip],
      }],
    },
  };
}

const LIST: KObject = {
  apiVersion: API_VERSION,
  kind: "BlockList",
  metadata: { name: "ads", namespace: "default" },
  spec: { sources: [{ inline: "ads.example\n" }] },
};

/** Zones home and lab with a record set each, and a block list, as the API's. */
async function seeded(): Promise<{ f: ApiFixture; admin: ApiClient }> {
  const f = await apiFixture();
  for (
    const obj of [
      zone("home"),
      zone("lab"),
      recordSet("home-www", "home", "192.0.2.10"),
      recordSet("lab-www", "lab", "192.0.2.20"),
      LIST,
    ]
  ) {
    await f.store.apply(obj, { manager: "api" });
  }
  const admin = f.client();
  await admin.login("admin", ADMIN_PASSWORD);
  return { f, admin };
}

/** A client with a token of the admin's, narrowed to `scopes`. */
async function tokenClient(
  f: ApiFixture,
  admin: ApiClient,
  scopes: unknown[],
): Promise<ApiClient> {
  const made = await admin.request("POST", "/api/v1/tokens", { scopes });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const client = f.client();
  client.token = made.body.data.token;
  return client;
}

function names(items: unknown[]): string[] {
  return (items as KObject[]).map((o) =>
    o.metadata.namespace
      ? `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`
      : `${o.kind}/${o.metadata.name}`
  );
}

async function restore(
  client: ApiClient,
  body: string,
  query = "",
) {
  return await client.request("POST", `/api/v1/restore${query}`, body, {
    "content-type": "application/yaml",
  });
}

function exportOf(objects: KObject[]): string {
  return YAML.stringify({ apiVersion: "v1", kind: "List", items: objects });
}

Deno.test("export: an admin's holds every public object between the marker lines, and no secret", async () => {
  const { f, admin } = await seeded();
  await using _ = f;
  const token = await admin.request("POST", "/api/v1/tokens", {});
  assert.equal(token.status, 201);
  const res = await admin.request("GET", "/api/v1/export");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^application\/yaml/);
  assert.match(
    res.headers.get("content-disposition")!,
    /^attachment; filename="kudurru-export-\d{8}T\d{6}Z\.yaml"$/,
  );
  const text: string = res.body;
  assert.equal(checkExport(text, "the export"), "complete");
  assert.match(text.split("\n")[1]!, /^# Exported through the API .* by admin/);
  const items = parseObjectList(text);
  assert.deepEqual(names(items), [
    "DNSZone/home",
    "DNSZone/lab",
    "DNSRecordSet/default/home-www",
    "DNSRecordSet/default/lab-www",
    "BlockList/default/ads",
  ]);
  // The same document the local export writes, object for object.
  assert.deepEqual(items, parseObjectList(await snapshotYaml(f.store)));
  const stored = await f.store.get({
    kind: "User",
    namespace: "",
    name: "admin",
  });
  const hash = (stored.spec as { passwordHash: string }).passwordHash;
  for (
    const secret of [
      hash,
      "passwordHash",
      "secretHash",
      "APIToken",
      "kind: User",
    ]
  ) {
    assert.ok(!text.includes(secret), `${secret} left through the export`);
  }

  const safe = await admin.request("GET", "/api/v1/export?safe=true");
  const safeItems = parseObjectList(safe.body) as KObject[];
  assert.equal(safeItems.length, 5);
  for (const o of safeItems) {
    assert.equal(o.status, undefined);
    assert.equal(o.metadata.uid, undefined);
    assert.equal(o.metadata.resourceVersion, undefined);
  }

  const json = await admin.request("GET", "/api/v1/export?format=json");
  assert.equal(json.status, 200);
  assert.equal(json.body.kind, "List");
  assert.deepEqual(json.body.items, items);
});

Deno.test("export: a token scoped to one zone gets that zone and its record sets only; no right, 403", async () => {
  const { f, admin } = await seeded();
  await using _ = f;
  const home = await tokenClient(f, admin, [{
    role: "zone-admin",
    scope: { kind: "zone", name: "home" },
  }]);
  const res = await home.request("GET", "/api/v1/export");
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(checkExport(res.body, "the export"), "complete");
  assert.deepEqual(names(parseObjectList(res.body)), [
    "DNSZone/home",
    "DNSRecordSet/default/home-www",
  ]);

  const viewer = await tokenClient(f, admin, [{ role: "viewer" }]);
  const seen = await viewer.request("GET", "/api/v1/export?format=json");
  assert.equal(seen.status, 200);
  assert.equal(seen.body.items.length, 5);

  // A user with no role at all sees nothing, and is told what it lacks.
  const account = await admin.request("POST", "/api/v1/serviceaccounts", {
    name: "nobody",
  });
  assert.equal(account.status, 201, JSON.stringify(account.body));
  const made = await admin.request("POST", "/api/v1/tokens", {
    owner: { kind: "ServiceAccount", name: "nobody" },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const nobody = f.client();
  nobody.token = made.body.data.token;
  const refused = await nobody.request("GET", "/api/v1/export");
  assert.equal(refused.status, 403);
  assert.deepEqual(refused.body.error.missing, {
    resource: "dnszones",
    verb: "list",
    scope: "cluster",
  });
});

Deno.test("export: objects that change during the download end it without its last line", async () => {
  const inner = createMemoryStore();
  let zoneLists = 0;
  // A zone made between the counting pass and the writing pass.
  const store: Store = {
    ...inner,
    async list(kind, opts) {
      if (kind === "DNSZone" && opts?.continue === undefined) {
        if (++zoneLists === 2) {
          await inner.apply(zone("late"), { manager: "api" });
        }
      }
      return await inner.list(kind, opts);
    },
  };
  await using f = await apiFixture({ store });
  await inner.apply(zone("home"), { manager: "api" });
  const admin = f.client();
  await admin.login("admin", ADMIN_PASSWORD);
  await assert.rejects(
    admin.request("GET", "/api/v1/export"),
    /the objects changed during the export \(1 counted, 2 found\)/,
  );
  assert.equal(zoneLists, 2);
});

Deno.test("restore: a dry run says what would happen and writes nothing", async () => {
  const { f, admin } = await seeded();
  await using _ = f;
  const exported = (await admin.request("GET", "/api/v1/export")).body;
  await f.store.delete({ kind: "DNSZone", namespace: "", name: "lab" });
  const before = await f.store.snapshot();
  const changed = exported.replace("192.0.2.10", "192.0.2.11");
  const res = await restore(admin, changed, "?dryRun=true");
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.data, {
    dryRun: true,
    results: [
      { object: "DNSZone/home", result: "unchanged" },
      { object: "DNSZone/lab", result: "created" },
      { object: "DNSRecordSet/default/home-www", result: "changed" },
      { object: "DNSRecordSet/default/lab-www", result: "unchanged" },
      { object: "BlockList/default/ads", result: "unchanged" },
    ],
  });
  // A JSON export (taken now, without lab) is read as well.
  const json = await admin.request("GET", "/api/v1/export?format=json");
  const again = await admin.request(
    "POST",
    "/api/v1/restore?dryRun=true",
    json.body,
  );
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.deepEqual(
    again.body.data.results.map((r: { result: string }) => r.result),
    ["unchanged", "unchanged", "unchanged", "unchanged"],
  );
  assert.equal(await f.store.snapshot(), before);
});

Deno.test("restore: applies the objects as the API, each write audited with the caller", async () => {
  const { f, admin } = await seeded();
  await using _ = f;
  const exported = (await admin.request("GET", "/api/v1/export")).body;
  await f.store.delete({ kind: "DNSZone", namespace: "", name: "home" });
  await f.store.delete({
    kind: "DNSRecordSet",
    namespace: "default",
    name: "home-www",
  });
  const res = await restore(admin, exported);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(
    res.body.data.results.map((r: { result: string }) => r.result),
    [
      "created",
      "unchanged",
      "created",
      "unchanged",
      "unchanged",
    ],
  );
  const home = await f.store.get({
    kind: "DNSZone",
    namespace: "",
    name: "home",
  });
  assert.equal(home.metadata.managedBy, "api");
  // Status is the controllers' to write: what the file held is not taken.
  assert.equal(home.status, undefined);
  // The unchanged objects wrote nothing; the rows before are the seeding's.
  const rows = (await f.store.readAudit({ limit: 100 })).items.filter((r) =>
    r.actor === "admin" && r.kind !== "Runtime"
  );
  assert.deepEqual(
    rows.map((r) => [r.kind, r.name, r.action, r.manager]).sort(),
    [
      ["DNSRecordSet", "home-www", "create", "api"],
      ["DNSZone", "home", "create", "api"],
    ],
  );
});

Deno.test("restore: an object a file owns is refused 409 naming the owner, nothing written; unchanged it passes; an admin may force it", async () => {
  const { f, admin } = await seeded();
  await using _ = f;
  await f.store.apply(zone("filed"), { manager: "file:objects.d/zones.yaml" });
  const body = exportOf([
    zone("new"),
    { ...zone("filed"), metadata: { name: "filed", labels: { a: "b" } } },
  ]);
  const res = await restore(admin, body);
  assert.equal(res.status, 409, JSON.stringify(res.body));
  assert.equal(res.body.error.key, "managed_by");
  assert.equal(res.body.error.owner, "file:objects.d/zones.yaml");
  assert.match(
    res.body.error.message,
    /^1 of 2 objects cannot be restored, so nothing was: DNSZone\/filed: .*managed by file objects\.d\/zones\.yaml/,
  );
  assert.deepEqual(
    res.body.error.errors.map((e: { object: string }) => e.object),
    ["DNSZone/filed"],
  );
  await assert.rejects(
    f.store.get({ kind: "DNSZone", namespace: "", name: "new" }),
  );

  // Held unchanged, it is left to its owner rather than refused.
  const same = await restore(admin, exportOf([zone("filed")]));
  assert.equal(same.status, 200, JSON.stringify(same.body));
  assert.deepEqual(same.body.data.results, [
    { object: "DNSZone/filed", result: "unchanged" },
  ]);

  const operator = await tokenClient(f, admin, [{ role: "operator" }]);
  const notAdmin = await restore(operator, body, "?force=true");
  assert.equal(notAdmin.status, 403);
  assert.match(notAdmin.body.error.message, /needs the admin role/);

  const forced = await restore(admin, body, "?force=true");
  assert.equal(forced.status, 200, JSON.stringify(forced.body));
  const filed = await f.store.get({
    kind: "DNSZone",
    namespace: "",
    name: "filed",
  });
  assert.equal(filed.metadata.managedBy, "api");
});

Deno.test("restore: an unknown field or an invalid object is 422 naming the object and field, nothing written", async () => {
  const { f, admin } = await seeded();
  await using _ = f;
  const bad = zone("bad");
  (bad.spec as Record<string, unknown>).colour = "blue";
  const worse = zone("worse");
  (worse.spec as Record<string, unknown>).type = "tertiary";
  const res = await restore(admin, exportOf([zone("fine"), bad, worse]));
  assert.equal(res.status, 422, JSON.stringify(res.body));
  assert.equal(res.body.error.key, "unknown_field");
  assert.match(
    res.body.error.message,
    /^2 of 3 objects cannot be restored, so nothing was: DNSZone\/bad: spec\.colour: unknown field/i,
  );
  const errors = res.body.error.errors;
  assert.deepEqual(
    errors.map((e: { object: string; key: string }) => [e.object, e.key]),
    [
      ["DNSZone/bad", "unknown_field"],
      ["DNSZone/worse", "invalid"],
    ],
  );
  assert.ok(
    errors[1].issues.some((i: { path: string }) => i.path === "spec.type"),
  );
  await assert.rejects(
    f.store.get({ kind: "DNSZone", namespace: "", name: "fine" }),
  );
});

Deno.test("restore: the API's own kinds are refused by name; a viewer is refused with the missing right; a cut-off export is 400", async () => {
  const { f, admin } = await seeded();
  await using _ = f;
  const user = {
    apiVersion: API_VERSION,
    kind: "User",
    metadata: { name: "mallory" },
    spec: { passwordHash: "x" },
  };
  const internal = await restore(
    admin,
    exportOf([zone("fine"), user as KObject]),
  );
  assert.equal(internal.status, 422);
  assert.deepEqual(
    internal.body.error.errors.map((e: { object: string; message: string }) =>
      e.object
    ),
    ["User/mallory"],
  );
  assert.match(
    internal.body.error.message,
    /User\/mallory: User is not restored/,
  );
  await assert.rejects(
    f.store.get({ kind: "User", namespace: "", name: "mallory" }),
  );

  const viewer = await tokenClient(f, admin, [{ role: "viewer" }]);
  const exported: string = (await viewer.request("GET", "/api/v1/export")).body;
  const refused = await restore(viewer, exported);
  assert.equal(refused.status, 403);
  assert.equal(refused.body.error.key, "forbidden");
  assert.deepEqual(refused.body.error.missing, {
    resource: "dnszones",
    verb: "update",
    scope: "zone:home",
  });
  assert.equal(refused.body.error.errors.length, 5);

  const cut = exported.slice(0, exported.lastIndexOf("\n  - apiVersion:") + 1);
  const short = await restore(admin, cut);
  assert.equal(short.status, 400);
  assert.match(short.body.error.message, /cut short/);
});
