import assert from "node:assert/strict";
import { join } from "node:path";
import { ensureDataDir } from "./local_store.ts";

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
