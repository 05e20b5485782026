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
        `Cannot use data directory "${dir}": it is a file, not a directory; choose another with --data-dir or node.dataDir`,
        { cause: err },
      );
    }
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(
      `Cannot use data directory "${dir}": ${why}; make it writable for this user or choose another with --data-dir or node.dataDir`,
      { cause: err },
    );
  }
}

export async function openLocalStore(values: StoreFlagValues): Promise<Store> {
  const dir = resolveDataDir(values);
  await ensureDataDir(dir);
  return await openSqliteStore(join(dir, "state.db"), {
    node: machineFacts().hostname,
  });
}
