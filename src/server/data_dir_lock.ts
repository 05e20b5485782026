/**
 * One server per data directory: `kudurru serve` holds an exclusive lock
 * on `<dataDir>/kudurru.lock` (an advisory `flock`, released by the system
 * when the process ends, however it ends) from before it opens state.db
 * until it stops. Two servers on one data directory would both lead (the
 * sqlite store's elector always does), stamp serials, fetch lists and
 * write one query log. CLI commands never take it: they work beside a
 * running server. The one exception is restoring a backup archive, which
 * replaces the database files a server would hold open.
 */
import { join } from "node:path";
import { diskAdvice, messageOf } from "./disk_errors.ts";

/** The lock file's name in the data directory. */
export const LOCK_FILE = "kudurru.lock";

/**
 * Another process holds the lock: a server uses the data directory. Named
 * plain "Error", as serve has always printed it.
 */
export class DataDirHeldError extends Error {
  constructor(
    message: string,
    /** The holder's pid, when the lock file names one. */
    readonly pid?: number,
  ) {
    super(message);
  }
}

export interface DataDirLock {
  readonly path: string;
  /** Releases the lock (the file stays: removing it would race a new server). */
  release(): void;
}

/**
 * Takes the lock on `dataDir`, which must exist. The file holds the pid of
 * the server that has it, for the message a second server prints.
 *
 * @throws {DataDirHeldError} naming the data directory when another process holds it,
 *   and naming the lock file when it cannot be opened or written
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const path = join(dataDir, LOCK_FILE);
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, {
      read: true,
      write: true,
      create: true,
      mode: 0o640,
    });
  } catch (err) {
    throw lockFileError("open", path, dataDir, err);
  }
  let locked = false;
  try {
    locked = await file.tryLock(true);
  } finally {
    if (!locked) file.close();
  }
  if (!locked) {
    const holder = await Deno.readTextFile(path).then(
      (text) => text.trim(),
      () => "",
    );
    const pid = /^\d+$/.test(holder) ? Number(holder) : undefined;
    throw new DataDirHeldError(
      `Another kudurru serves the data directory "${dataDir}" (it holds ${path}${
        pid !== undefined ? `, pid ${pid}` : ""
      }): stop it, or give this one its own node.dataDir`,
      pid,
    );
  }
  try {
    await writePid(file);
  } catch (err) {
    file.close(); // releases the lock too: this server will not start
    throw lockFileError("write", path, dataDir, err);
  }
  return {
    path,
    release() {
      try {
        file.unlockSync();
      } finally {
        file.close();
      }
    },
  };
}

/**
 * Overwrites the file with this pid, then cuts what is left of an older,
 * longer one. Writing first keeps the old bytes' blocks: on a full disk a
 * pid no longer than the last one still fits.
 */
async function writePid(file: Deno.FsFile): Promise<void> {
  const bytes = new TextEncoder().encode(`${Deno.pid}\n`);
  for (let done = 0; done < bytes.length;) {
    done += await file.write(bytes.subarray(done));
  }
  await file.truncate(bytes.length);
}

function lockFileError(
  verb: "open" | "write",
  path: string,
  dataDir: string,
  err: unknown,
): Error {
  return new Error(
    `Cannot ${verb} the lock file "${path}": ${messageOf(err)}${
      diskAdvice(err, dataDir)
    }`,
    { cause: err },
  );
}
