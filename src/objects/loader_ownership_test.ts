import assert from "node:assert/strict";
import { join } from "node:path";
import { createObjectsLoader } from "./loader.ts";
import {
  docs,
  group,
  groupYaml,
  key,
  storeFor,
  tempObjectsDir,
  zoneYaml,
} from "./testdata/fixtures.ts";

const A = key("ClientGroup", "a", "default");

Deno.test("ObjectsLoader deletes an object whose document was removed", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", docs(groupYaml("a"), groupYaml("b")));
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  await d.write("a.yaml", groupYaml("b"));
  await d.settle("a.yaml"); // just written, a would be held (unsettled_files.ts)
  const report = await loader.load();
  assert.deepEqual(
    report.outcomes.filter((o) => o.result === "deleted").map((o) => o.object),
    ["ClientGroup/default/a"],
  );
  assert.deepEqual(
    (await store.list("ClientGroup")).items.map((o) => o.metadata.name),
    ["b"],
  );
});

Deno.test("ObjectsLoader deletes the objects of a removed file", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", groupYaml("a"));
  await d.write("z.yaml", zoneYaml("z", "z."));
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  await d.remove("z.yaml");
  assert.equal((await loader.load()).counts.deleted, 1);
  assert.equal((await store.list("DNSZone")).items.length, 0);
});

Deno.test("ObjectsLoader deletes file objects of a previous objectsDir", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", groupYaml("a"));
  await createObjectsLoader({ store, dir: d.dir }).load();
  const other = join(d.root, "elsewhere");
  await Deno.mkdir(other);
  await Deno.writeTextFile(join(other, "b.yaml"), groupYaml("b"));
  await createObjectsLoader({ store, dir: other }).load();
  const items = (await store.list("ClientGroup")).items;
  assert.deepEqual(items.map((o) => [o.metadata.name, o.metadata.managedBy]), [
    ["b", "file:elsewhere/b.yaml"],
  ]);
});

Deno.test("ObjectsLoader updates its own objects when the document changes", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", groupYaml("a", "10.0.0.0/8"));
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  await d.write("a.yaml", groupYaml("a", "192.0.2.0/24"));
  const report = await loader.load();
  assert.equal(report.counts.updated, 1);
  assert.deepEqual((await store.get(A)).spec, {
    clients: [{ cidr: "192.0.2.0/24" }],
  });
});

Deno.test("ObjectsLoader adopts an object without a manager", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await store.apply(group("a"), { manager: "" });
  await d.write("a.yaml", groupYaml("a"));
  const report = await createObjectsLoader({ store, dir: d.dir }).load();
  assert.equal(report.diagnoses[0]?.reason, "Adopted");
  assert.equal(report.diagnoses[0]?.severity, "info");
  assert.equal(
    (await store.get(A)).metadata.managedBy,
    "file:objects.d/a.yaml",
  );
});

Deno.test("ObjectsLoader takes over first-boot objects", async () => {
  await using store = storeFor();
  await store.apply(group("a", "0.0.0.0/0"), { manager: "bootstrap" });
  const report = await createObjectsLoader({ store, inline: [group("a")] })
    .load();
  assert.equal(report.diagnoses[0]?.reason, "TakenOver");
  assert.equal(report.diagnoses[0]?.owner, "bootstrap");
  const stored = await store.get(A);
  assert.equal(stored.metadata.managedBy, "file:kudurru.yaml");
  assert.deepEqual(stored.spec, { clients: [{ cidr: "10.0.0.0/8" }] });
});

Deno.test("ObjectsLoader moves a document between files and keeps its uid", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", groupYaml("a"));
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  const uid = (await store.get(A)).metadata.uid;
  await d.remove("a.yaml");
  await d.write("b.yaml", groupYaml("a"));
  const report = await loader.load();
  assert.equal(report.diagnoses[0]?.reason, "Moved");
  assert.equal(report.counts.deleted, 0);
  const stored = await store.get(A);
  assert.equal(stored.metadata.managedBy, "file:objects.d/b.yaml");
  assert.equal(stored.metadata.uid, uid);
});

Deno.test("ObjectsLoader leaves api, system and integration objects alone", async (t) => {
  for (const owner of ["api", "system", "integration:cloudflare"]) {
    await t.step(owner, async () => {
      await using store = storeFor();
      await store.apply(group("a", "192.0.2.0/24"), { manager: owner });
      const report = await createObjectsLoader({ store, inline: [group("a")] })
        .load();
      const [diag] = report.diagnoses;
      assert.equal(diag?.reason, "ManagedByOther");
      assert.equal(diag?.severity, "error");
      assert.equal(diag?.owner, owner);
      assert.ok(diag?.hint);
      assert.equal(report.counts.conflict, 1);
      const stored = await store.get(A);
      assert.equal(stored.metadata.managedBy, owner);
      assert.deepEqual(stored.spec, { clients: [{ cidr: "192.0.2.0/24" }] });
    });
  }
});

Deno.test("ObjectsLoader lets the first declaration win", async (t) => {
  await t.step("inline before files", async () => {
    await using d = await tempObjectsDir();
    await using store = storeFor();
    await d.write("a.yaml", groupYaml("a", "192.0.2.0/24"));
    const report = await createObjectsLoader({
      store,
      inline: [group("a")],
      dir: d.dir,
    }).load();
    assert.equal((await store.get(A)).metadata.managedBy, "file:kudurru.yaml");
    assert.equal(report.diagnoses[0]?.reason, "Duplicate");
    assert.equal(report.diagnoses[0]?.source, "objects.d/a.yaml");
    assert.match(
      report.diagnoses[0]!.message,
      /already declared in kudurru\.yaml/,
    );
  });
  await t.step("files in name order", async () => {
    await using d = await tempObjectsDir();
    await using store = storeFor();
    await d.write("b.yaml", groupYaml("a", "192.0.2.0/24"));
    await d.write("a.yaml", groupYaml("a"));
    const report = await createObjectsLoader({ store, dir: d.dir }).load();
    assert.equal(
      (await store.get(A)).metadata.managedBy,
      "file:objects.d/a.yaml",
    );
    assert.match(
      report.diagnoses[0]!.message,
      /already declared in objects\.d\/a\.yaml/,
    );
  });
  await t.step("within one file", async () => {
    await using d = await tempObjectsDir();
    await using store = storeFor();
    await d.write(
      "a.yaml",
      docs(groupYaml("a"), groupYaml("a", "192.0.2.0/24")),
    );
    const report = await createObjectsLoader({ store, dir: d.dir }).load();
    assert.deepEqual((await store.get(A)).spec, {
      clients: [{ cidr: "10.0.0.0/8" }],
    });
    assert.equal(report.diagnoses[0]?.document, 2);
    assert.match(
      report.diagnoses[0]!.message,
      /already declared in objects\.d\/a\.yaml document 1/,
    );
  });
});

Deno.test("ObjectsLoader keeps an object with the file that manages it when a new file sorting first declares it too", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("more.yaml", groupYaml("a", "10.0.0.0/8"));
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  await d.write("dup.yaml", groupYaml("a", "192.0.2.0/24"));
  const report = await loader.load();
  const stored = await store.get(A);
  assert.equal(stored.metadata.managedBy, "file:objects.d/more.yaml");
  assert.deepEqual(stored.spec, { clients: [{ cidr: "10.0.0.0/8" }] });
  assert.deepEqual(
    report.diagnoses.map((x) => [x.reason, x.source]),
    [["Duplicate", "objects.d/dup.yaml"]],
  );
  assert.match(
    report.diagnoses[0]!.message,
    /in "objects\.d\/dup\.yaml" document 1: already declared in objects\.d\/more\.yaml/,
  );
});
