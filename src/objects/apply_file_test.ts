import assert from "node:assert/strict";
import { join } from "node:path";
import { applyYamlFile, applyYamlText } from "./apply_file.ts";
import { MAX_OBJECTS_FILE_BYTES } from "./sources.ts";
import {
  docs,
  group,
  groupYaml,
  key,
  storeFor,
  tempObjectsDir,
} from "./testdata/fixtures.ts";

const A = key("ClientGroup", "a", "default");

Deno.test("applyYamlText writes every object under manager api", async () => {
  await using store = storeFor();
  const report = await applyYamlText(
    store,
    "in.yaml",
    docs(groupYaml("a"), groupYaml("b")),
  );
  assert.equal(report.counts.created, 2);
  assert.equal((await store.get(A)).metadata.managedBy, "api");
});

Deno.test("applyYamlText tells of each object as it is written, before the next", async () => {
  await using store = storeFor();
  const heard: string[] = [];
  const heardAtApply: number[] = [];
  const apply = store.apply.bind(store);
  store.apply = (...args: Parameters<typeof apply>) => {
    heardAtApply.push(heard.length);
    return apply(...args);
  };
  await applyYamlText(store, "in.yaml", docs(groupYaml("a"), groupYaml("b")), {
    onOutcome: (o) => heard.push(`${o.object} ${o.result}`),
  });
  assert.deepEqual(heard, [
    "ClientGroup/default/a created",
    "ClientGroup/default/b created",
  ]);
  assert.deepEqual(heardAtApply, [0, 1], "a was told before b was written");
});

Deno.test("applyYamlText honours the manager and default namespace options", async () => {
  await using store = storeFor();
  await applyYamlText(store, "in.yaml", groupYaml("a"), {
    manager: "integration:x",
    defaultNamespace: "dns",
  });
  const stored = await store.get(key("ClientGroup", "a", "dns"));
  assert.equal(stored.metadata.managedBy, "integration:x");
});

Deno.test("applyYamlText reports objects another manager owns and applies the rest", async () => {
  await using store = storeFor();
  await store.apply(group("a", "192.0.2.0/24"), {
    manager: "file:objects.d/a.yaml",
  });
  const report = await applyYamlText(
    store,
    "in.yaml",
    docs(groupYaml("a"), groupYaml("b")),
  );
  const [diag] = report.diagnoses;
  assert.equal(diag?.reason, "ManagedByOther");
  assert.equal(diag?.owner, "file:objects.d/a.yaml");
  assert.match(diag?.hint ?? "", /objects\.d\/a\.yaml/);
  assert.deepEqual((await store.get(A)).spec, {
    clients: [{ cidr: "192.0.2.0/24" }],
  });
  await store.get(key("ClientGroup", "b", "default"));
});

Deno.test("applyYamlText decodes and validates like the loader", async () => {
  await using store = storeFor();
  const report = await applyYamlText(
    store,
    "in.yaml",
    docs(groupYaml("a", "x"), "- nope\n", groupYaml("b"), groupYaml("b")),
  );
  assert.deepEqual(report.diagnoses.map((d) => d.reason), [
    "Invalid",
    "NotAnObject",
    "Duplicate",
  ]);
  assert.equal(report.counts.created, 1);
});

Deno.test("applyYamlText leaves unchanged objects unwritten", async () => {
  await using store = storeFor();
  await applyYamlText(store, "in.yaml", groupYaml("a"));
  const rv = (await store.get(A)).metadata.resourceVersion;
  const report = await applyYamlText(store, "in.yaml", groupYaml("a"));
  assert.equal(report.counts.unchanged, 1);
  assert.equal((await store.get(A)).metadata.resourceVersion, rv);
});

Deno.test("applyYamlFile reads the file and reports one it cannot read", async (t) => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await t.step("readable", async () => {
    const path = join(d.root, "in.yaml");
    await Deno.writeTextFile(path, groupYaml("a"));
    assert.equal((await applyYamlFile(store, path)).counts.created, 1);
  });
  await t.step("missing", async () => {
    const report = await applyYamlFile(store, join(d.root, "nope.yaml"));
    assert.equal(report.diagnoses[0]?.reason, "ReadFailed");
    assert.equal(report.counts.error, 1);
  });
  await t.step("over the size bound: refused unread", async () => {
    const path = join(d.root, "huge.yaml");
    await Deno.writeTextFile(path, groupYaml("b"));
    await Deno.truncate(path, MAX_OBJECTS_FILE_BYTES + 1);
    const report = await applyYamlFile(store, path);
    assert.equal(report.diagnoses[0]?.reason, "ReadFailed");
    assert.match(report.diagnoses[0]!.message, /at most 4194304 \(4 MiB\)/);
    assert.equal(report.counts.created, 0);
  });
});
