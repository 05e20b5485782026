import assert from "node:assert/strict";
import { join } from "node:path";
import { openLocalStore, resolveDataDir } from "./local_store.ts";
import { ensureDataDir } from "../server/data_dir.ts";

Deno.test("ensureDataDir makes the directory, and says so when the path is a file", async () => {
  const root = await Deno.makeTempDir({ prefix: "kudurru-datadir-" });
  try {
    const dir = join(root, "a", "b");
    await ensureDataDir(dir);
    assert.ok((await Deno.stat(dir)).isDirectory);
    const file = join(root, "file");
    await Deno.writeTextFile(file, "");
    await assert.rejects(
      () => ensureDataDir(file),
      /Cannot use data directory ".*file": it is a file, not a directory/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("an empty node.dataDir is refused by name, never read as the current directory", async () => {
  const root = await Deno.makeTempDir({ prefix: "kudurru-datadir-" });
  try {
    const config = join(root, "kudurru.yaml");
    await Deno.writeTextFile(config, 'node: { dataDir: "" }\n');
    assert.throws(
      () => resolveDataDir({ config }),
      /^Error: node\.dataDir is empty \(kudurru\.yaml or KUDURRU_NODE__DATADIR sets it to ""\)/,
    );
    await assert.rejects(ensureDataDir(""), /node\.dataDir is empty/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a data directory kudurru creates is 0750; one that exists keeps its mode", async () => {
  const root = await Deno.makeTempDir({ prefix: "kudurru-datadir-" });
  try {
    const made = join(root, "a", "data");
    await ensureDataDir(made);
    assert.equal((await Deno.stat(made)).mode! & 0o777, 0o750);
    const mine = join(root, "mine");
    await Deno.mkdir(mine);
    await Deno.chmod(mine, 0o755);
    await ensureDataDir(mine);
    assert.equal((await Deno.stat(mine)).mode! & 0o777, 0o755);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a read-only open creates no state.db in a data directory without one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-datadir-" });
  try {
    const empty = await openLocalStore({ "data-dir": dir }, { readOnly: true });
    assert.deepEqual((await empty.list("DNSZone")).items, []);
    await empty.close();
    assert.deepEqual([...Deno.readDirSync(dir)], []);
    // A command that writes creates it.
    const store = await openLocalStore({ "data-dir": dir });
    await store.close();
    const read = await openLocalStore({ "data-dir": dir }, { readOnly: true });
    await read.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
