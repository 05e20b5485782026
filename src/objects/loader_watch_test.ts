import assert from "node:assert/strict";
import { join } from "node:path";
import type { Store } from "../store/store.ts";
import { createObjectsLoader, type ObjectsLoaderOptions } from "./loader.ts";
import {
  docs,
  eventually,
  group,
  groupYaml,
  key,
  storeFor,
  tempObjectsDir,
} from "./testdata/fixtures.ts";

/** Runs watch (or run) in the background and stops it on dispose. */
function watching(opts: ObjectsLoaderOptions, mode: "watch" | "run" = "watch") {
  const loader = createObjectsLoader({
    debounceMs: 50,
    pollIntervalMs: -1,
    ...opts,
  });
  const ctl = new AbortController();
  const done = mode === "watch"
    ? loader.watch(ctl.signal)
    : loader.run(ctl.signal);
  return Object.assign(loader, {
    async [Symbol.asyncDispose]() {
      ctl.abort();
      await done;
    },
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const countGroups = async (store: Store) =>
  (await store.list("ClientGroup")).items.length;

Deno.test("ObjectsLoader.watch loads once it attaches: what was written before it began is not left for the poll", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", groupYaml("a"));
  await using loader = watching({ store, dir: d.dir });
  await eventually(async () => (await countGroups(store)) === 1);
  await sleep(150);
  assert.equal(loader.status().loads, 1);
});

Deno.test("ObjectsLoader.watch reloads once directory events settle", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await using loader = watching({ store, dir: d.dir, debounceMs: 100 });
  await eventually(() => loader.status().loads === 1); // the attach's load
  for (const n of ["a", "b", "c"]) await d.write(`${n}.yaml`, groupYaml(n));
  await eventually(async () => (await countGroups(store)) === 3);
  await sleep(200);
  assert.equal(
    loader.status().loads,
    2,
    "one debounced load for a burst of events",
  );
});

Deno.test("ObjectsLoader.watch: a file touched without pause does not hold reloads back", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await using loader = watching({ store, dir: d.dir, debounceMs: 100 });
  await eventually(() => loader.status().loads === 1);
  let touching = true;
  const noise = (async () => {
    // Events every 40 ms, each within the 100 ms debounce of the last.
    for (let i = 0; touching; i++) {
      await d.write(".heartbeat", String(i));
      await sleep(40);
    }
  })();
  try {
    await d.write("a.yaml", groupYaml("a"));
    // At most 4 debounce periods after the first event, not never.
    await eventually(async () => (await countGroups(store)) === 1, 2_000);
  } finally {
    touching = false;
    await noise;
  }
});

Deno.test("ObjectsLoader.watch polls and repairs store drift", async () => {
  await using store = storeFor();
  await using _loader = watching({
    store,
    inline: [group("a")],
    pollIntervalMs: 50,
  }, "run");
  await eventually(async () => (await countGroups(store)) === 1);
  await store.delete(key("ClientGroup", "a", "default"), { force: true });
  await eventually(async () => (await countGroups(store)) === 1);
});

Deno.test("ObjectsLoader.watch attaches once a missing directory appears, without waiting for the poll", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  const dir = join(d.root, "later.d");
  await using loader = watching({ store, dir });
  await sleep(120);
  assert.equal(loader.status().watch.watching, false);
  await Deno.mkdir(dir);
  await eventually(() => loader.status().watch.watching);
  await Deno.writeTextFile(join(dir, "a.yaml"), groupYaml("a"));
  await eventually(async () => (await countGroups(store)) === 1);
});

Deno.test("ObjectsLoader.watch re-attaches when the directory is replaced", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await using loader = watching({ store, dir: d.dir, pollIntervalMs: 50 });
  await eventually(() => loader.status().watch.attaches === 1);
  await Deno.remove(d.dir, { recursive: true });
  await Deno.mkdir(d.dir);
  await eventually(() => loader.status().watch.attaches >= 2);
  assert.equal(loader.status().watch.watching, true);
});

Deno.test("ObjectsLoader.watch: files written into a directory made anew load without the poll (rm -r, mkdir, render)", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  await d.write("a.yaml", groupYaml("a"));
  await using _loader = watching({ store, dir: d.dir }, "run");
  await eventually(async () => (await countGroups(store)) === 1);
  await Deno.remove(d.dir, { recursive: true });
  await Deno.mkdir(d.dir);
  // The empty directory may load first (its objects go, as documented).
  await sleep(300);
  await d.write("a.yaml", groupYaml("a") + "---\n" + groupYaml("b"));
  await eventually(async () => (await countGroups(store)) === 2);
});

Deno.test("ObjectsLoader.trigger returns at once and reloads soon", async () => {
  await using store = storeFor();
  const loader = createObjectsLoader({ store, inline: [group("a")] });
  const returned = loader.trigger();
  assert.equal(returned, undefined);
  assert.equal(loader.status().loads, 0);
  await loader.idle();
  assert.equal(loader.status().loads, 1);
  assert.equal(await countGroups(store), 1);
});

Deno.test("ObjectsLoader.trigger coalesces requests made while a load is queued", async () => {
  await using store = storeFor();
  const loader = createObjectsLoader({ store, inline: [group("a")] });
  const first = loader.load();
  loader.trigger();
  loader.trigger();
  loader.trigger();
  await first;
  await loader.idle();
  assert.equal(loader.status().loads, 2);
});

Deno.test("ObjectsLoader serialises loads", async () => {
  await using inner = storeFor();
  let inFlight = 0;
  let most = 0;
  const store: Store = Object.assign(Object.create(inner), {
    list: async (...args: Parameters<Store["list"]>) => {
      most = Math.max(most, ++inFlight);
      await sleep(2);
      inFlight--;
      return inner.list(...args);
    },
  });
  const loader = createObjectsLoader({ store, inline: [group("a")] });
  const reports = await Promise.all([
    loader.load(),
    loader.load(),
    loader.load(),
  ]);
  assert.equal(most, 1);
  assert.deepEqual(reports.map((r) => r.counts.created), [1, 0, 0]);
});

Deno.test("ObjectsLoader.watch rides out a writer that pauses mid-file: nothing past the cut is deleted meanwhile", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  const full = docs(groupYaml("a1"), groupYaml("a2"), groupYaml("a3"));
  await d.write("more.yaml", full);
  await using loader = watching({ store, dir: d.dir }, "run");
  await eventually(async () => (await countGroups(store)) === 3);
  const loads = loader.status().loads;
  const cut = full.lastIndexOf("---\n"); // a1 and a2 written, a3 not yet
  using file = await Deno.open(join(d.dir, "more.yaml"), {
    write: true,
    truncate: true,
  });
  const bytes = new TextEncoder().encode(full);
  await file.write(bytes.subarray(0, cut));
  await eventually(() => loader.status().loads > loads); // it saw the cut
  for (const until = Date.now() + 1_000; Date.now() < until; await sleep(50)) {
    assert.equal(await countGroups(store), 3, "a3 deleted mid-write");
  }
  await file.write(bytes.subarray(cut));
  await sleep(200);
  assert.equal(await countGroups(store), 3);
});

Deno.test("ObjectsLoader.watch follows an objects directory symlink re-pointed to a new release, without the poll", async () => {
  await using d = await tempObjectsDir();
  await using store = storeFor();
  const releases: [string, string][] = [["rel1", "a"], ["rel2", "b"]];
  for (const [release, name] of releases) {
    await Deno.mkdir(join(d.root, release));
    await Deno.writeTextFile(
      join(d.root, release, `${name}.yaml`),
      groupYaml(name),
    );
  }
  const dir = join(d.root, "link.d");
  await Deno.symlink("rel1", dir);
  await using loader = watching({ store, dir }, "run");
  const names = async () =>
    (await store.list("ClientGroup")).items.map((o) => o.metadata.name);
  await eventually(() => loader.status().watch.watching);
  await sleep(100); // the attach's load
  assert.deepEqual(await names(), ["a"]);
  await Deno.symlink("rel2", join(d.root, "link.d.tmp"));
  await Deno.rename(join(d.root, "link.d.tmp"), dir); // mv -T: atomic
  await eventually(async () => (await names()).join() === "b");
});
