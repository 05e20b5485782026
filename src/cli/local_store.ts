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
import { machineFacts } from "../server/machine.ts";
import { UsageError } from "./command.ts";
import {
  createPrivateFile,
  emptyDataDirProblem,
  ensureDataDir,
  isDirectory,
} from "../server/data_dir.ts";

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

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}
