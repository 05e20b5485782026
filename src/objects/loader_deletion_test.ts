import assert from "node:assert/strict";
import type { Store } from "../store/store.ts";
import { createObjectsLoader } from "./loader.ts";
import {
  eventually,
  group,
  groupYaml,
  key,
  storeFor,
  tempObjectsDir,
} from "./testdata/fixtures.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function managerOf(store: Store, name: string) {
  const list = await store.list("ClientGroup");
  return list.items.find((o) => o.metadata.name === name)?.metadata.managedBy;
}

Deno.test("ObjectsLoader.watch applies a file's object soon after the API's copy of it is deleted, not at the poll", async (t) => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await store.apply(group("clionly", "10.1.0.0/16"), { manager: "api" });
  await d.write("a.yaml", groupYaml("clionly", "10.9.0.0/16"));
  await d.write("b.yaml", groupYaml("other"));
  const loader = createObjectsLoader({
    store,
    dir: d.dir,
    debounceMs: 50,
    pollIntervalMs: -1,
  });
  const ctl = new AbortController();
  const watching = loader.watch(ctl.signal);
  try {
    await eventually(() => loader.status().loads === 1);
    assert.equal(loader.status().counts?.conflict, 1, "the API's copy stays");
    await t.step("the API's copy deleted: the file's applied", async () => {
      await store.delete(key("ClientGroup", "clionly", "default"), {
        manager: "api",
      });
      await eventually(
        async () =>
          (await managerOf(store, "clionly")) === "file:objects.d/a.yaml",
        2000,
      );
    });
    await t.step("its own deletions start no second load", async () => {
      await loader.idle();
      const loads = loader.status().loads;
      await d.remove("b.yaml");
      await eventually(async () =>
        (await managerOf(store, "other")) === undefined
      );
      await sleep(300);
      assert.equal(loader.status().loads, loads + 1);
    });
  } finally {
    ctl.abort();
    await watching;
  }
});
