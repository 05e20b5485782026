/**
 * There is no HTTP API yet: get/apply/delete/export/restore work directly on
 * the data directory's state.db. This file finds that directory (the
 * --data-dir flag, else node.dataDir from the configuration) and opens it.
 */
import { basename, join } from "node:path";
import { loadConfig } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import type { Store } from "../store/store.ts";
import { openSqliteStore } from "../store/sqlite/sqlite_store.ts";
import { createMemoryStore } from "../store/memory/memory_store.ts";
import { machineFacts } from "./machine.ts";
import { UsageError } from "./command.ts";
import { diskAdvice } from "./disk_errors.ts";

/** Flags every local-store command accepts. */
export const STORE_FLAGS = {
  "data-dir": { type: "string" },
  config: { type: "string", short: "c" },
} as const;

export interface StoreFlagValues {
  "data-dir"?: string | undefined;
  config?: string | undefined;
}

export function resolveDataDir(values: StoreFlagValues): string {
  const given = values["data-dir"];
  if (given !== undefined) {
    if (given.trim() === "") {
      throw new UsageError("--data-dir needs a directory, not an empty string");
    }
    return given;
  }
  const dir = loadLocalConfig(values).node.dataDir;
  const empty = emptyDataDirProblem(dir);
  if (empty) throw new Error(empty);
  return dir;
}

/**
 * The configuration this machine's server reads (--config, else
 * $KUDURRU_CONFIG, else the default path; KUDURRU_* variables over it).
 * @throws {ConfigError} when it does not load
 */
export function loadLocalConfig(values: StoreFlagValues): Config {
  const facts = machineFacts();
  return loadConfig({
    ...(values.config ? { path: values.config } : {}),
    env: Deno.env.toObject(),
    isRoot: facts.isRoot,
    hostname: facts.hostname,
    cwd: facts.cwd,
  }).config;
}

/** Mode of a data directory kudurru creates: the query history is private. */
export const DATA_DIR_MODE = 0o750;

/** Mode of the database files kudurru creates (SQLite gives -wal/-shm the same). */
export const DB_FILE_MODE = 0o640;

/** What is wrong with `dir` as a data directory name, or undefined. */
function emptyDataDirProblem(dir: string): string | undefined {
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

/** The error of a read on a data directory that is not there. */
export function missingDataDirMessage(dir: string): string {
  return `No data directory at "${dir}": nothing is stored there yet (check --data-dir, or node.dataDir in the configuration)`;
}

/**
 * Opens this machine's state.db. With `existing`, a data directory that
 * does not exist is an error: a command that only reads (or deletes) must
 * not create one and report an empty, healthy state for a mistyped path.
 * With `readOnly` (get, export, blocking status) nothing is written to
 * check the directory first, so a user who may only read it can read.
 */
export async function openLocalStore(
  values: StoreFlagValues,
  opts: { existing?: boolean; readOnly?: boolean } = {},
): Promise<Store> {
  const dir = resolveDataDir(values);
  if ((opts.existing || opts.readOnly) && !(await isDirectory(dir))) {
    throw new Error(missingDataDirMessage(dir));
  }
  const path = join(dir, "state.db");
  if (opts.readOnly) {
    // A read must not create the database (and its tables) it reads: with
    // none yet, nothing is stored, which an empty store says.
    if (!(await isFile(path))) return createMemoryStore();
  } else {
    await ensureDataDir(dir);
    createPrivateFile(path);
  }
  try {
    return await openSqliteStore(path, { node: machineFacts().hostname });
  } catch (err) {
    if (opts.readOnly) throw explainReadFailure(path, err);
    throw err;
  }
}

/**
 * A clearer error for a database this user may read but SQLite cannot
 * open: in WAL mode a reader needs the `-shm` file, which SQLite creates
 * next to the database when no server has it open.
 */
export function explainReadFailure(path: string, err: unknown): unknown {
  if (err instanceof Deno.errors.PermissionDenied) {
    return new Error(
      `Cannot read "${path}": permission denied; run as the server's user (or one in its group)`,
      { cause: err },
    );
  }
  const why = err instanceof Error ? err.message : String(err);
  if (!/readonly database|unable to open database/i.test(why)) return err;
  try {
    Deno.openSync(path, { read: true }).close();
  } catch (open) {
    if (open instanceof Deno.errors.PermissionDenied) {
      return new Error(
        `Cannot read "${path}": permission denied; run as the server's user (or one in its group)`,
        { cause: err },
      );
    }
    return err;
  }
  if (exists(`${path}-shm`)) return err;
  return new Error(
    `Cannot read "${path}" as this user: with no server running, SQLite must create ${
      basename(path)
    }-shm next to it, and this user may not write there; run as the server's user, or while kudurru serve runs`,
    { cause: err },
  );
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}
