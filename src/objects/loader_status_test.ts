import assert from "node:assert/strict";
import { join } from "node:path";
import { createObjectsLoader, StaticReadOnlyError } from "./loader.ts";
import {
  docs,
  group,
  groupYaml,
  metricValue,
  storeFor,
  tempObjectsDir,
  testRegistry,
} from "./testdata/fixtures.ts";

Deno.test("ObjectsLoader exports kudurru_objects_* metrics for each load", async (t) => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  const registry = testRegistry();
  await store.apply(group("api-owned"), { manager: "api" });
  await store.apply(group("unowned"), { manager: "" });
  await d.write(
    "a.yaml",
    docs(groupYaml("a"), groupYaml("bad", "x"), groupYaml("api-owned")),
  );
  await d.write("b.yaml", docs(groupYaml("gone"), groupYaml("unowned")));
  await Deno.symlink("missing.yaml", join(d.dir, "c.yaml"));
  const loader = createObjectsLoader({
    store,
    dir: d.dir,
    inline: [],
    registry,
  });
  await loader.load();
  await d.write("b.yaml", groupYaml("unowned"));
  await d.settle("b.yaml"); // gone is deleted now, not once b.yaml stood still
  const before = Date.now() / 1000;
  await loader.load();
  await t.step("kudurru_objects_files counts the sources read", async () => {
    assert.equal(await metricValue(registry, "kudurru_objects_files"), 3);
  });
  await t.step(
    "kudurru_objects_applied_total counts results over both loads",
    async () => {
      // Load 1: a and gone created, unowned adopted (updated), bad invalid, api-owned conflict.
      // Load 2: a and unowned unchanged, gone deleted, bad invalid, api-owned conflict.
      const want = {
        created: 2,
        updated: 1,
        unchanged: 2,
        deleted: 1,
        invalid: 2,
        conflict: 2,
        error: 0,
      };
      for (const [result, n] of Object.entries(want)) {
        assert.equal(
          await metricValue(registry, "kudurru_objects_applied_total", {
            result,
          }),
          n,
          result,
        );
      }
    },
  );
  await t.step(
    "kudurru_objects_diagnoses holds the last load's severities",
    async () => {
      const severities = { error: 3, warning: 0, info: 0 }; // Invalid, ManagedByOther, ReadFailed
      for (const [severity, n] of Object.entries(severities)) {
        assert.equal(
          await metricValue(registry, "kudurru_objects_diagnoses", {
            severity,
          }),
          n,
          severity,
        );
      }
    },
  );
  await t.step(
    "kudurru_objects_last_load_timestamp_seconds is the last load's end",
    async () => {
      const ts = await metricValue(
        registry,
        "kudurru_objects_last_load_timestamp_seconds",
      );
      assert.ok(
        ts !== undefined && ts >= before && ts <= Date.now() / 1000 + 1,
      );
    },
  );
});

Deno.test("ObjectsLoader.status is JSON-ready and describes the last load", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", docs(groupYaml("a"), "- x\n"));
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  const status = loader.status();
  assert.deepEqual(JSON.parse(JSON.stringify(status)), status);
  assert.equal(status.loads, 1);
  assert.ok(status.lastLoad);
  assert.deepEqual(status.files.map((f) => [f.name, f.objects, f.protected]), [
    ["objects.d/a.yaml", 1, true],
  ]);
  assert.equal(status.counts?.created, 1);
  assert.deepEqual(status.diagnosisCounts, { error: 1, warning: 0, info: 0 });
  assert.deepEqual(loader.diagnoses(), status.diagnoses);
  assert.equal(status.diagnoses[0]?.reason, "NotAnObject");
});

Deno.test("ObjectsLoader.ready turns true after the first load, even with bad files", async () => {
  await using store = storeFor();
  const loader = createObjectsLoader({ store, inline: ["not an object"] });
  const [before, why] = loader.ready();
  assert.equal(before, false);
  assert.equal(why.length, 1);
  await loader.load();
  assert.deepEqual(loader.ready(), [true, []]);
});

Deno.test("ObjectsLoader.checkApiWrite refuses API writes only in static mode", async (t) => {
  await using store = storeFor();
  await t.step("static", () => {
    const loader = createObjectsLoader({ store, static: true });
    assert.equal(loader.apiReadOnly(), true);
    assert.throws(() => loader.checkApiWrite(), StaticReadOnlyError);
  });
  await t.step("not static", () => {
    const loader = createObjectsLoader({ store });
    assert.equal(loader.apiReadOnly(), false);
    loader.checkApiWrite();
  });
});
