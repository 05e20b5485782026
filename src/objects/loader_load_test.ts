import assert from "node:assert/strict";
import { join } from "node:path";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { validateObject } from "../api/v1alpha1/validate.ts";
import { memoryLogger } from "../log/logger.ts";
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

Deno.test("ObjectsLoader applies the inline objects first, then files by name", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("b.yaml", groupYaml("b"));
  await d.write("a.yaml", groupYaml("a"));
  const loader = createObjectsLoader({
    store,
    inline: [group("i")],
    dir: d.dir,
  });
  const report = await loader.load();
  assert.deepEqual(report.outcomes.map((o) => [o.source, o.object, o.result]), [
    ["kudurru.yaml", "ClientGroup/default/i", "created"],
    ["objects.d/a.yaml", "ClientGroup/default/a", "created"],
    ["objects.d/b.yaml", "ClientGroup/default/b", "created"],
  ]);
});

Deno.test("ObjectsLoader writes objects under manager file:<source>", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("zones.yaml", zoneYaml("z", "z."));
  const loader = createObjectsLoader({
    store,
    inline: [group("i")],
    inlineSource: "site.yaml",
    dir: d.dir,
  });
  await loader.load();
  assert.equal(
    (await store.get(key("DNSZone", "z"))).metadata.managedBy,
    "file:objects.d/zones.yaml",
  );
  assert.equal(
    (await store.get(key("ClientGroup", "i", "default"))).metadata.managedBy,
    "file:site.yaml",
  );
});

Deno.test("ObjectsLoader keeps the objects of a directory that went missing; an empty one deletes them", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", groupYaml("a"));
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  await Deno.remove(d.dir, { recursive: true });
  const missing = await loader.load();
  assert.deepEqual(missing.diagnoses.map((x) => x.severity), ["info"]);
  assert.equal(missing.counts.deleted, 0);
  assert.equal((await store.list("ClientGroup")).items.length, 1);
  await Deno.mkdir(d.dir);
  const emptied = await loader.load();
  assert.equal(emptied.counts.deleted, 1);
  assert.equal((await store.list("ClientGroup")).items.length, 0);
});

Deno.test("ObjectsLoader loads Store.snapshot output as it is", async () => {
  await using d = await tempObjectsDir();
  await using source = storeFor();
  await using target = storeFor();
  await d.write("a.yaml", docs(groupYaml("a"), zoneYaml("z", "z.")));
  await createObjectsLoader({ store: source, dir: d.dir }).load();
  await source.updateStatus({
    ...(await source.get(key("DNSZone", "z"))),
    status: { conditions: [] },
  });
  await d.remove("a.yaml");
  await d.write("snapshot.yaml", await source.snapshot());
  const report = await createObjectsLoader({ store: target, dir: d.dir })
    .load();
  assert.deepEqual(report.diagnoses, []);
  assert.equal(report.counts.created, 2);
  const zone = await target.get(key("DNSZone", "z"));
  assert.equal(zone.metadata.managedBy, "file:objects.d/snapshot.yaml");
  assert.equal(zone.status, undefined);
});

Deno.test("ObjectsLoader stores objects with every schema default applied", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("z.yaml", zoneYaml("z", "z."));
  await createObjectsLoader({ store, dir: d.dir }).load();
  const zone = await store.get(key("DNSZone", "z")) as KObject<
    Record<string, unknown>
  >;
  assert.equal(zone.spec?.defaultTTL, 300);
  assert.deepEqual(
    (zone.spec?.forward as Record<string, unknown>).dnssecValidation,
    false,
  );
});

Deno.test("ObjectsLoader rejects unknown fields with their path", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write(
    "a.yaml",
    groupYaml("a").replace("  clients:", "  colour: red\n  clients:"),
  );
  const report = await createObjectsLoader({ store, dir: d.dir }).load();
  assert.equal(report.diagnoses[0]?.reason, "Invalid");
  assert.deepEqual(report.diagnoses[0]?.fields, ["spec.colour"]);
  assert.equal(report.counts.invalid, 1);
});

Deno.test("ObjectsLoader validates against the stored object, so zoneName stays immutable", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("z.yaml", zoneYaml("z", "z."));
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  await d.write("z.yaml", zoneYaml("z", "other."));
  const report = await loader.load();
  assert.equal(report.diagnoses[0]?.reason, "Invalid");
  assert.deepEqual(report.diagnoses[0]?.fields, ["spec.zoneName"]);
  const zone = await store.get(key("DNSZone", "z")) as KObject<
    { zoneName: string }
  >;
  assert.equal(zone.spec?.zoneName, "z.");
});

Deno.test("ObjectsLoader writes nothing when the stored objects already match", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", docs(groupYaml("a"), zoneYaml("z", "z.")));
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  const before = (await store.list("DNSZone")).resourceVersion;
  const audits = store.audit.length;
  const report = await loader.load();
  assert.equal(report.counts.unchanged, 2);
  assert.equal((await store.list("DNSZone")).resourceVersion, before);
  assert.equal(store.audit.length, audits);
});

Deno.test("ObjectsLoader skips validation on a poll when document and resourceVersion agree", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", docs(groupYaml("a"), groupYaml("b")));
  let validations = 0;
  const loader = createObjectsLoader({
    store,
    dir: d.dir,
    validate: (input, old) => {
      validations++;
      return old ? validateObject(input, old) : validateObject(input);
    },
  });
  await loader.load();
  assert.equal(validations, 2);
  await loader.load();
  assert.equal(validations, 2, "an unchanged poll validates nothing");
  await store.updateStatus({
    ...(await store.get(key("ClientGroup", "a", "default"))),
    status: { conditions: [] },
  });
  const report = await loader.load();
  assert.equal(
    validations,
    3,
    "a store write moves the resourceVersion: full path",
  );
  assert.equal(report.counts.unchanged, 2);
});

Deno.test("ObjectsLoader repairs drift in the store on the next load", async (t) => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", groupYaml("a", "10.0.0.0/8"));
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  const k = key("ClientGroup", "a", "default");
  await t.step("a force-deleted object is recreated", async () => {
    await store.delete(k, { force: true });
    assert.equal((await loader.load()).counts.created, 1);
  });
  await t.step("an edited object is rewritten", async () => {
    await store.apply(group("a", "192.0.2.0/24"), {
      manager: "file:objects.d/a.yaml",
    });
    assert.equal((await loader.load()).counts.updated, 1);
    const g = await store.get(k) as KObject<{ clients: { cidr: string }[] }>;
    assert.equal(g.spec?.clients[0]?.cidr, "10.0.0.0/8");
  });
});

Deno.test("ObjectsLoader never aborts a load: bad documents do not stop good ones", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", docs(groupYaml("a"), "kind: [\n"));
  await d.write("b.yaml", docs(groupYaml("bad", "not-a-cidr"), groupYaml("b")));
  await Deno.symlink("gone.yaml", join(d.dir, "c.yaml"));
  const report = await createObjectsLoader({ store, dir: d.dir }).load();
  assert.deepEqual(report.diagnoses.map((x) => x.reason), [
    "InvalidYAML",
    "Invalid",
    "ReadFailed",
  ]);
  assert.deepEqual(
    (await store.list("ClientGroup")).items.map((o) => o.metadata.name).sort(),
    [
      "a",
      "b",
    ],
  );
});

Deno.test("ObjectsLoader sorts diagnoses by source, then document", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("b.yaml", docs("- x\n", "- y\n"));
  await d.write("a.yaml", docs(groupYaml("a"), "- z\n", "- w\n"));
  const report = await createObjectsLoader({
    store,
    inline: ["bad"],
    dir: d.dir,
  }).load();
  assert.deepEqual(report.diagnoses.map((x) => `${x.source}#${x.document}`), [
    "kudurru.yaml#1",
    "objects.d/a.yaml#2",
    "objects.d/a.yaml#3",
    "objects.d/b.yaml#1",
    "objects.d/b.yaml#2",
  ]);
});

Deno.test("ObjectsLoader logs a broken file once while it stays broken, and again when it breaks anew", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  const logger = memoryLogger("warn");
  const loader = createObjectsLoader({ store, dir: d.dir, logger });
  const warnings = () => logger.lines.filter((l) => l.includes("broken.yaml"));
  await d.write("broken.yaml", "kind: [\n");
  await loader.load();
  await loader.load(); // a poll: nothing new to say
  assert.equal(warnings().length, 1);
  await d.write("broken.yaml", groupYaml("a"));
  await loader.load();
  await d.write("broken.yaml", "kind: [\n");
  await loader.load();
  assert.equal(warnings().length, 2);
});

Deno.test("ObjectsLoader loads objects from *.yml and *.json files too", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yml", groupYaml("a"));
  await d.write("b.json", JSON.stringify(group("b"), null, "\t"));
  const report = await createObjectsLoader({ store, dir: d.dir }).load();
  assert.deepEqual(report.diagnoses, []);
  assert.deepEqual(report.outcomes.map((o) => [o.source, o.result]), [
    ["objects.d/a.yml", "created"],
    ["objects.d/b.json", "created"],
  ]);
});
