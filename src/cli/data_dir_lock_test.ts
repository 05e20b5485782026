import assert from "node:assert/strict";
import { join } from "node:path";
import { LOCK_FILE, lockDataDir } from "./data_dir_lock.ts";

Deno.test("lockDataDir lets one holder in at a time, and says who holds it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-lock-" });
  try {
    const first = await lockDataDir(dir);
    try {
      assert.equal(first.path, join(dir, LOCK_FILE));
      assert.equal(
        (await Deno.readTextFile(first.path)).trim(),
        String(Deno.pid),
      );
      await assert.rejects(
        lockDataDir(dir),
        new RegExp(
          `^Error: Another kudurru serves the data directory "${dir}" \\(it holds ${first.path}, pid ${Deno.pid}\\): stop it, or give this one its own node\\.dataDir$`,
        ),
      );
    } finally {
      first.release();
    }
    // Released: the next one gets it (the file stays).
    const second = await lockDataDir(dir);
    second.release();
    assert.equal((await Deno.stat(join(dir, LOCK_FILE))).mode! & 0o777, 0o640);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
