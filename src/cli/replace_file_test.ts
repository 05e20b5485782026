import assert from "node:assert/strict";
import { join } from "node:path";
import { replaceFile, writeAll } from "./replace_file.ts";

const encode = (text: string) => new TextEncoder().encode(text);

async function inTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-replace-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Writes half, then fails the way a full disk does. */
async function halfThenDiskFull(file: Deno.FsFile): Promise<void> {
  await writeAll(file, encode("new text, cut"));
  throw Object.assign(
    new Error("No space left on device (os error 28)"),
    { code: "ENOSPC" },
  );
}

Deno.test("replaceFile keeps the previous file when the write fails, and leaves no temporary file", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "backup.yaml");
    await Deno.writeTextFile(path, "the earlier backup\n");
    await assert.rejects(
      replaceFile(path, halfThenDiskFull),
      new RegExp(
        `^Error: Cannot write "${path}": No space left on device \\(os error 28\\); the disk is full: free space in ${dir}; the previous "${path}" is kept unchanged$`,
      ),
    );
    assert.equal(await Deno.readTextFile(path), "the earlier backup\n");
    assert.deepEqual(await names(dir), ["backup.yaml"]);
  });
});

Deno.test("replaceFile leaves no file when there was none and the write fails", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "backup.yaml");
    await assert.rejects(
      replaceFile(path, halfThenDiskFull),
      /; no file was left$/,
    );
    assert.deepEqual(await names(dir), []);
  });
});

Deno.test("replaceFile replaces the text and keeps the mode of the file it replaces", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "backup.yaml");
    await Deno.writeTextFile(path, "old\n", { mode: 0o640 });
    await Deno.chmod(path, 0o640);
    await replaceFile(path, (f) => writeAll(f, encode("new\n")));
    assert.equal(await Deno.readTextFile(path), "new\n");
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o640);
    assert.deepEqual(await names(dir), ["backup.yaml"]);
  });
});

Deno.test("replaceFile through a symbolic link replaces the file it names", async () => {
  await inTempDir(async (dir) => {
    const real = join(dir, "real.yaml");
    const link = join(dir, "link.yaml");
    await Deno.writeTextFile(real, "old\n");
    await Deno.symlink(real, link);
    await replaceFile(link, (f) => writeAll(f, encode("new\n")));
    assert.ok((await Deno.lstat(link)).isSymlink);
    assert.equal(await Deno.readTextFile(real), "new\n");
  });
});

Deno.test({
  name: "replaceFile writes into a device in place",
  ignore: Deno.build.os === "windows",
  async fn() {
    await replaceFile("/dev/null", (f) => writeAll(f, encode("gone\n")));
    assert.ok((await Deno.stat("/dev/null")).isCharDevice);
  },
});

async function names(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) found.push(entry.name);
  return found.sort();
}
