import assert from "node:assert/strict";
import { join } from "node:path";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { createObjectsLoader } from "./loader.ts";
import {
  docs,
  groupYaml,
  key,
  storeFor,
  tempObjectsDir,
} from "./testdata/fixtures.ts";

const A = key("ClientGroup", "a", "default");
const B = key("ClientGroup", "b", "default");

Deno.test("ObjectsLoader deletes nothing a source owns while it has an unidentifiable document", async (t) => {
  const broken: [string, string][] = [
    ["a YAML error", "kind: [\n"],
    ["not a mapping", "- a\n"],
    ["no apiVersion", "kind: ClientGroup\nmetadata: { name: c }\n"],
    ["no kind", "apiVersion: kudurru.io/v1alpha1\nmetadata: { name: c }\n"],
    [
      "no name",
      "apiVersion: kudurru.io/v1alpha1\nkind: ClientGroup\nmetadata: {}\n",
    ],
    ["an unknown kind", groupYaml("c").replace("ClientGroup", "ClientGrup")],
  ];
  for (const [name, doc] of broken) {
    await t.step(name, async () => {
      await using d = await tempObjectsDir();
      await using store = storeFor();
      await d.write("a.yaml", docs(groupYaml("a"), groupYaml("b")));
      const loader = createObjectsLoader({ store, dir: d.dir });
      await loader.load();
      await d.write("a.yaml", docs(groupYaml("b"), doc)); // a removed, but the file is broken
      const report = await loader.load();
      assert.equal(report.counts.deleted, 0);
      assert.equal(report.sources[0]?.protected, true);
      await store.get(A); // still there
    });
  }
});

Deno.test("ObjectsLoader keeps the stored object when its document is identified but invalid", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", groupYaml("a", "10.0.0.0/8"));
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  await d.write("a.yaml", groupYaml("a", "not-a-cidr"));
  const report = await loader.load();
  assert.deepEqual([report.counts.invalid, report.counts.deleted], [1, 0]);
  const stored = await store.get(A) as KObject<{ clients: { cidr: string }[] }>;
  assert.equal(stored.spec?.clients[0]?.cidr, "10.0.0.0/8");
});

Deno.test("ObjectsLoader keeps the objects of a file it cannot read", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  const real = join(d.root, "a-real.yaml");
  await Deno.writeTextFile(real, groupYaml("a"));
  await Deno.symlink(real, join(d.dir, "a.yaml"));
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  await Deno.remove(real); // dangling symlink: the file cannot be read
  const report = await loader.load();
  assert.equal(report.diagnoses[0]?.reason, "ReadFailed");
  assert.equal(report.counts.deleted, 0);
  await store.get(A);
});

Deno.test("ObjectsLoader keeps everything under a directory it cannot read", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", groupYaml("a"));
  await d.write("b.yaml", groupYaml("b"));
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  await Deno.remove(d.dir, { recursive: true });
  await Deno.writeTextFile(d.dir, "a file where the directory was"); // ENOTDIR, even as root
  const report = await loader.load();
  assert.equal(report.diagnoses[0]?.reason, "ReadFailed");
  assert.equal(report.diagnoses[0]?.source, "objects.d/");
  assert.equal(report.counts.deleted, 0);
  await store.get(A);
  await store.get(B);
});

Deno.test("ObjectsLoader does not take over an object whose owning file is broken", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("b.yaml", groupYaml("a"));
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  await d.write("b.yaml", "kind: [\n");
  await d.write("a.yaml", groupYaml("a", "192.0.2.0/24"));
  const report = await loader.load();
  const diag = report.diagnoses.find((x) => x.reason === "OwnerUnreadable");
  assert.equal(diag?.owner, "file:objects.d/b.yaml");
  assert.equal(diag?.source, "objects.d/a.yaml");
  assert.equal(
    (await store.get(A)).metadata.managedBy,
    "file:objects.d/b.yaml",
  );
});

Deno.test("ObjectsLoader keeps the objects of a file that is no longer UTF-8, and says where", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", groupYaml("a"));
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  const latin1 = new TextEncoder().encode(`# caf\u00e9\n${groupYaml("a")}`)
    .filter((b) => b !== 0xc3).map((b) => b === 0xa9 ? 0xe9 : b);
  await Deno.writeFile(join(d.dir, "a.yaml"), latin1);
  const report = await loader.load();
  assert.equal(report.diagnoses[0]?.reason, "ReadFailed");
  assert.match(report.diagnoses[0]!.message, /not UTF-8: byte 0xe9 at line 1/);
  assert.equal(report.counts.deleted, 0);
  await store.get(A);
});

Deno.test("ObjectsLoader keeps the objects of a file that became empty, and a comment deletes them", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", groupYaml("a"));
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  await d.write("a.yaml", "  \n"); // a write cut short
  const report = await loader.load();
  assert.equal(report.diagnoses[0]?.reason, "EmptyFile");
  assert.equal(report.diagnoses[0]?.severity, "warning");
  assert.equal(report.counts.deleted, 0);
  await store.get(A);
  await d.write("a.yaml", "# nothing here any more\n");
  await d.settle("a.yaml");
  const emptied = await loader.load();
  assert.equal(emptied.counts.deleted, 1, "a comment says it is meant");
});
