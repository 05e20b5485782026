/**
 * The data directory (docs/design.md#data-directory): created when missing,
 * private (the query log says who asked for what), and checked writable
 * before anything is opened in it, with errors that say what to do.
 */
import { join } from "node:path";
import { diskAdvice } from "./disk_errors.ts";

/** Mode of a data directory kudurru creates: the query history is private. */
export const DATA_DIR_MODE = 0o750;

/** Mode of the database files kudurru creates (SQLite gives -wal/-shm the same). */
export const DB_FILE_MODE = 0o640;

/** What is wrong with `dir` as a data directory name, or undefined. */
export function emptyDataDirProblem(dir: string): string | undefined {
  return dir.trim() === ""
    ? 'node.dataDir is empty (kudurru.yaml or KUDURRU_NODE__DATADIR sets it to ""): name a directory, or leave it unset for the default'
    : undefined;
}

/**
 * Creates the data directory when needed (mode 0750: others may not read
 * the query history; an existing directory keeps its mode), with an error
 * that says what to do.
 */
export async function ensureDataDir(dir: string): Promise<void> {
  const empty = emptyDataDirProblem(dir);
  if (empty) throw new Error(empty);
  try {
    if (!(await isDirectory(dir))) {
      await Deno.mkdir(dir, { recursive: true, mode: DATA_DIR_MODE });
    }
    await probeWrite(dir);
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) {
      throw new Error(
        `Cannot use data directory "${dir}": this process may not write there (deno task serve may write only ./data and /var/lib/kudurru); choose one of those or run kudurru with --allow-write for "${dir}"`,
        { cause: err },
      );
    }
    if (err instanceof Deno.errors.AlreadyExists) {
      throw new Error(
        `Cannot use data directory "${dir}": it is a file, not a directory; choose another (node.dataDir, or --data-dir on CLI commands)`,
        { cause: err },
      );
    }
    const why = err instanceof Error ? err.message : String(err);
    const disk = diskAdvice(err, dir);
    throw new Error(
      disk
        ? `Cannot use data directory "${dir}": ${why}${disk}`
        : `Cannot use data directory "${dir}": ${why}; make it writable for this user or choose another (node.dataDir, or --data-dir on CLI commands)`,
      { cause: err },
    );
  }
}

/**
 * Writes one byte and removes it again. An empty file needs no data block,
 * so a full disk would pass an empty probe and fail later, on the lock file
 * or state.db.
 */
async function probeWrite(dir: string): Promise<void> {
  const probe = join(dir, `.write-test-${crypto.randomUUID()}`);
  try {
    await Deno.writeTextFile(probe, "x");
  } finally {
    await Deno.remove(probe).catch(() => {});
  }
}

/**
 * Creates `path` empty with `mode` unless it exists, so that SQLite, which
 * would create it 0644, finds a private file (an empty file is an empty
 * database). Best effort: whatever stops it stops SQLite too, and SQLite's
 * error says more.
 */
export function createPrivateFile(path: string, mode = DB_FILE_MODE): void {
  try {
    Deno.openSync(path, { write: true, createNew: true, mode }).close();
  } catch {
    // there already, or not creatable: SQLite opens it or says why not
  }
}

/** True when `path` is a directory (false when it is missing). */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}
