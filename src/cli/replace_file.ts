/**
 * Replaces a file so that a failure at any point (a full disk, a crash, a
 * kill) leaves the old file or the new one, never a cut-off mix. Writing in
 * place, as Deno.writeTextFile does, truncates the old file before the new
 * text is on disk: a full disk then destroys the backup it was replacing.
 * Here the text goes to a temporary file beside the target, is flushed to
 * disk, and is renamed over the target (a rename within one directory is
 * atomic).
 */
import { basename, dirname, join } from "node:path";
import { diskAdvice, messageOf } from "../server/disk_errors.ts";

export interface ReplaceFileOptions {
  /**
   * Mode of a new file (an existing file keeps its own).
   * @default 0o666, less the umask
   */
  mode?: number;
}

/** Writes all of `bytes` (FsFile.write may write only part). */
export async function writeAll(
  file: Deno.FsFile,
  bytes: Uint8Array,
): Promise<void> {
  for (let done = 0; done < bytes.length;) {
    done += await file.write(bytes.subarray(done));
  }
}

/**
 * Gives `path` the content `write` puts in the file it is handed.
 *
 * @throws {Error} naming `path`, saying that the previous file is kept
 */
export async function replaceFile(
  path: string,
  write: (file: Deno.FsFile) => Promise<void>,
  opts: ReplaceFileOptions = {},
): Promise<void> {
  const old = await statOrUndefined(path);
  if (old && !old.isFile) {
    // A device or pipe (-o /dev/stdout): renaming would replace the node
    // itself, and there is no earlier content to keep.
    await writeInPlace(path, write);
    return;
  }
  // Through a symbolic link, replace the file it names, not the link.
  const target = old ? await Deno.realPath(path) : path;
  const temp = join(
    dirname(target),
    `.${basename(target)}.${crypto.randomUUID().slice(0, 8)}.tmp`,
  );
  try {
    await writeDurably(temp, write, old?.mode ?? opts.mode);
    await Deno.rename(temp, target);
  } catch (err) {
    await Deno.remove(temp).catch(() => {});
    throw new Error(
      `Cannot write "${path}": ${messageOf(err)}${
        diskAdvice(err, dirname(target))
      }; ${
        old ? `the previous "${path}" is kept unchanged` : "no file was left"
      }`,
      { cause: err },
    );
  }
  await syncDirectory(dirname(target));
}

async function writeDurably(
  temp: string,
  write: (file: Deno.FsFile) => Promise<void>,
  mode: number | undefined,
): Promise<void> {
  using file = await Deno.open(temp, {
    write: true,
    createNew: true,
    ...(mode === undefined ? {} : { mode: mode & 0o7777 }),
  });
  // The umask narrows `mode` at creation; an existing file's mode is kept exactly.
  if (mode !== undefined) await Deno.chmod(temp, mode & 0o7777);
  await write(file);
  // On disk before the rename: otherwise a crash just after it can leave
  // the new name on an empty file.
  await file.sync();
}

async function writeInPlace(
  path: string,
  write: (file: Deno.FsFile) => Promise<void>,
): Promise<void> {
  try {
    using file = await Deno.open(path, { write: true });
    await write(file);
  } catch (err) {
    throw new Error(`Cannot write "${path}": ${messageOf(err)}`, {
      cause: err,
    });
  }
}

/** Makes the rename itself durable; best effort (not every system can). */
async function syncDirectory(dir: string): Promise<void> {
  try {
    using handle = await Deno.open(dir, { read: true });
    await handle.sync();
  } catch {
    // the new file is complete either way; only its name may not survive a crash
  }
}

async function statOrUndefined(
  path: string,
): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.stat(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw new Error(`Cannot write "${path}": ${messageOf(err)}`, {
      cause: err,
    });
  }
}
