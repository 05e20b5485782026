import assert from "node:assert/strict";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { createObjectsLoader } from "./loader.ts";
import {
  docs,
  groupYaml,
  key,
  storeFor,
  tempObjectsDir,
} from "./testdata/fixtures.ts";

/** The audit's more.yaml: a2 has two entries, like a record set's endpoints. */
const A2_SECOND = "  - cidr: 192.0.2.0/24\n";
const FULL = docs(
  groupYaml("a1"),
  groupYaml("a2") + A2_SECOND,
  groupYaml("a3"),
);
/** FULL written up to the middle of a2's entries. */
const CUT = FULL.slice(0, FULL.indexOf(A2_SECOND));

const A2 = key("ClientGroup", "a2", "default");
const A3 = key("ClientGroup", "a3", "default");
const cidrsOf = async (store: ReturnType<typeof storeFor>) =>
  ((await store.get(A2)) as KObject<{ clients: { cidr: string }[] }>).spec
    ?.clients.map((c) => c.cidr);

Deno.test("ObjectsLoader holds a file rewritten in place and cut short: nothing of it applied, nothing past the cut deleted", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("more.yaml", FULL);
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  await d.settle("more.yaml");
  await d.write("more.yaml", CUT);
  const cut = await loader.load();
  assert.deepEqual([cut.counts.updated, cut.counts.deleted], [0, 0]);
  assert.deepEqual(await cidrsOf(store), ["10.0.0.0/8", "192.0.2.0/24"]);
  await store.get(A3);
  assert.deepEqual(
    cut.diagnoses.map((x) => [x.severity, x.reason, x.source]),
    [["info", "Unsettled", "objects.d/more.yaml"]],
  );
  assert.match(cut.diagnoses[0]!.message, /no longer declares .*\/a3$/);
  assert.equal(cut.sources[0]?.protected, true);
  await d.write("more.yaml", FULL); // the rest of the write
  const whole = await loader.load();
  assert.deepEqual(whole.diagnoses, []);
  assert.deepEqual([whole.counts.unchanged, whole.counts.deleted], [3, 0]);
});

Deno.test("ObjectsLoader deletes what a file dropped once the file has stood still", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("more.yaml", FULL);
  const loader = createObjectsLoader({ store, dir: d.dir });
  await loader.load();
  await d.write("more.yaml", docs(groupYaml("a1"), groupYaml("a2")));
  assert.equal((await loader.load()).counts.deleted, 0, "held while fresh");
  await d.settle("more.yaml");
  const settled = await loader.load();
  assert.deepEqual([settled.counts.updated, settled.counts.deleted], [1, 1]);
  assert.deepEqual(await cidrsOf(store), ["10.0.0.0/8"]);
  await assert.rejects(store.get(A3));
});
