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

/**
 * Runs lockDataDir twice in a child process with --allow-all (Deno asks
 * for it before opening /dev/full), printing each error message.
 */
async function lockTwiceInChild(dir: string): Promise<string[]> {
  const lockModule = JSON.stringify(import.meta.resolve("./data_dir_lock.ts"));
  const script = `
    const { lockDataDir } = await import(${lockModule});
    for (let i = 0; i < 2; i++) {
      await lockDataDir(${JSON.stringify(dir)})
        .then(() => console.log("locked"), (err) => console.log(err.message));
    }`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--allow-all", script],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    // Old code kept the file open; its second attempt then read the
    // holder's pid from /dev/full, which never ends.
    signal: AbortSignal.timeout(30_000),
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  assert.equal(out.code, 0, decode(out.stderr));
  return decode(out.stdout).trimEnd().split("\n");
}

Deno.test({
  name:
    "lockDataDir on a full disk names the lock file, says to free space, and closes it",
  // /dev/full fails every write with ENOSPC, as a full disk does.
  ignore: Deno.build.os !== "linux",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "kudurru-lock-" });
    try {
      const path = join(dir, LOCK_FILE);
      await Deno.symlink("/dev/full", path);
      const message =
        `Cannot write the lock file "${path}": No space left on device (os error 28); the disk is full: free space in ${dir}`;
      // The same error twice: a file left open would still hold the lock,
      // and the second attempt would report another kudurru.
      assert.deepEqual(await lockTwiceInChild(dir), [message, message]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
