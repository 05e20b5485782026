/**
 * Until the HTTP API exists, get/apply/delete/export/restore work directly on
 * the data directory's state.db. This file finds that directory (the
 * --data-dir flag, else node.dataDir from the configuration) and opens it.
 */
import { join } from "node:path";
import { loadConfig } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import type { Store } from "../store/store.ts";
import { openSqliteStore } from "../store/sqlite/sqlite_store.ts";
import { machineFacts } from "./machine.ts";
import { UsageError } from "./command.ts";

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
  return loadLocalConfig(values).node.dataDir;
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

/** Creates the data directory when needed, with an error that says what to do. */
export async function ensureDataDir(dir: string): Promise<void> {
  try {
    await Deno.mkdir(dir, { recursive: true });
    const probe = join(dir, `.write-test-${crypto.randomUUID()}`);
    await Deno.writeTextFile(probe, "");
    await Deno.remove(probe);
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
    throw new Error(
      `Cannot use data directory "${dir}": ${why}; make it writable for this user or choose another (node.dataDir, or --data-dir on CLI commands)`,
      { cause: err },
    );
  }
}

/**
 * Opens this machine's state.db. With `existing`, a data directory that
 * does not exist is an error: a command that only reads (or deletes) must
 * not create one and report an empty, healthy state for a mistyped path.
 */
export async function openLocalStore(
  values: StoreFlagValues,
  opts: { existing?: boolean } = {},
): Promise<Store> {
  const dir = resolveDataDir(values);
  if (opts.existing && !(await isDirectory(dir))) {
    throw new Error(
      `No data directory at "${dir}": nothing is stored there yet (check --data-dir, or node.dataDir in the configuration)`,
    );
  }
  await ensureDataDir(dir);
  return await openSqliteStore(join(dir, "state.db"), {
    node: machineFacts().hostname,
  });
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}
