/**
 * local.db: what this node keeps for itself and nobody else needs, in
 * `<dataDir>/local.db` (not state.db: it is no object, never replicated or
 * backed up). It holds the answer cache dump, written on shutdown and read
 * at start so a restart does not begin with a cold cache, and the zone
 * journal the leader keeps for IXFR (src/zone/journal.ts), which the
 * listener workers read, and this node's copies of secondary zones.
 */
import { DatabaseSync } from "node:sqlite";
import type { Logger } from "../log/logger.ts";
import { SchemaTooNewError } from "../sqlite/migrations.ts";
import { isDamagedDatabaseError } from "../sqlite/damaged_file.ts";
import {
  migrateSchema,
  type Migration,
  readSchemaVersion,
  rollback,
} from "../sqlite/migrations.ts";
import type { SerializedEntry } from "../pipeline/cache_dump.ts";
import { parseCacheKey } from "../pipeline/cache_key.ts";
import {
  flushedNamesOf,
  type FlushOptions,
} from "../pipeline/flushed_names.ts";
import { createPrivateFile } from "./data_dir.ts";
import { journalMigration } from "../zone/journal.ts";
import { secondaryCopiesMigration } from "../transfer/secondary_copies.ts";

/** The file name inside the data directory. */
export const LOCAL_DB_FILE = "local.db";

/** The layout version of local.db (its own, apart from state.db's). */
export const LOCAL_DB_SCHEMA_VERSION = 4;

const LOCAL_SCHEMA_V1 = `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE cache_entries (
  key         TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  wire        BLOB NOT NULL,
  offsets     TEXT NOT NULL,
  ttls        TEXT NOT NULL,
  stored_at   INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL,
  stale_until INTEGER NOT NULL,
  ttl         INTEGER NOT NULL,
  negative    INTEGER NOT NULL
);
`;

/**
 * The ECS option an entry was asked with (RFC 7871), which hits echo to the
 * clients that sent one (src/stages/upstream/README.md). NULL for entries
 * asked without one.
 */
const LOCAL_SCHEMA_V2 = `
ALTER TABLE cache_entries ADD COLUMN client_subnet BLOB;
`;

/** Every local.db schema version in order; append, never edit a shipped step. */
const LOCAL_MIGRATIONS: readonly Migration[] = [
  {
    to: 1,
    description: "meta and cache_entries tables",
    up: (db) => db.exec(LOCAL_SCHEMA_V1),
  },
  {
    to: 2,
    description: "cache_entries.client_subnet",
    up: (db) => db.exec(LOCAL_SCHEMA_V2),
  },
  journalMigration(3),
  secondaryCopiesMigration(4),
];

/**
 * local.db, created when missing and migrated to this binary's layout
 * (the server keeps one open for the zone journal).
 *
 * @throws {SchemaTooNewError} when a newer kudurru wrote the file
 */
export function openLocalDb(path: string): DatabaseSync {
  createPrivateFile(path);
  const db = new DatabaseSync(path);
  try {
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA busy_timeout = 5000");
    const found = readLocalSchemaVersion(db, path);
    if (found > LOCAL_DB_SCHEMA_VERSION) {
      throw new SchemaTooNewLocalDbError(path, found);
    }
    migrateSchema(db, path, LOCAL_MIGRATIONS, LOCAL_DB_SCHEMA_VERSION);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Replaces the cache dump in `path` with `entries`, in one transaction
 * (creating the file when missing).
 *
 * @throws {SchemaTooNewError} when a newer kudurru wrote the file
 */
export function saveCacheDump(
  path: string,
  entries: readonly SerializedEntry[],
): void {
  const db = openLocalDb(path);
  try {
    db.exec("BEGIN IMMEDIATE");
    try {
      db.exec("DELETE FROM cache_entries");
      const insert = db.prepare(
        `INSERT OR REPLACE INTO cache_entries (key, name, wire, offsets, ttls,
           stored_at, expires_at, stale_until, ttl, negative, client_subnet)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const e of entries) {
        insert.run(
          e.key,
          e.name,
          e.wire,
          JSON.stringify(e.offsets),
          JSON.stringify(e.ttls),
          e.storedAt,
          e.expiresAt,
          e.staleUntil,
          e.ttl,
          e.negative ? 1 : 0,
          e.clientSubnet ?? null,
        );
      }
      db.exec("COMMIT");
    } catch (err) {
      rollback(db);
      throw err;
    }
  } finally {
    db.close();
  }
}

export interface LoadCacheDumpOptions {
  /** Told about a file that cannot be read. */
  logger: Logger;
  /** For the name of a corrupt file moved aside. @default Date.now */
  now?: () => number;
}

/**
 * The cache dump in `path`, in the order it was saved; nothing when there is
 * no file. Never throws and deletes nothing: a file written by a newer
 * kudurru is left alone, and a file that cannot be read as local.db is
 * renamed to `<path>.corrupt-<time>`; both with a warning.
 */
export function loadCacheDump(
  path: string,
  opts: LoadCacheDumpOptions,
): SerializedEntry[] {
  try {
    Deno.statSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    opts.logger.warn(
      "Cannot read the cache dump; starting with an empty cache",
      {
        path,
        error: err,
      },
    );
    return [];
  }
  try {
    return readCacheDump(path);
  } catch (err) {
    if (err instanceof SchemaTooNewError) {
      opts.logger.warn(`${err.message}; starting with an empty cache`, {
        path,
      });
      return [];
    }
    // Only a file that is not a local.db goes aside. A full disk, a failing
    // or read-only one, or a lock says nothing about the file: it stays,
    // and the next start reads it again.
    if (!isUnreadableFile(err)) {
      opts.logger.warn(
        `Cannot read the cache dump "${path}" now; starting with an empty cache and leaving the file as it is`,
        { error: err },
      );
      return [];
    }
    const aside = `${path}.corrupt-${
      new Date((opts.now ?? Date.now)()).toISOString().replace(/[:.]/g, "-")
    }`;
    try {
      Deno.renameSync(path, aside);
    } catch (renameErr) {
      opts.logger.warn(
        `Cannot read the cache dump "${path}" nor move it aside; starting with an empty cache`,
        { error: err, renameError: renameErr },
      );
      return [];
    }
    opts.logger.warn(
      `Cannot read the cache dump "${path}"; moved it to "${aside}" and starting with an empty cache`,
      { error: err },
    );
    return [];
  }
}

/**
 * Empties the cache dump in `path` once the server that loaded it is up: a
 * dump is good for one start. After a crash (no dump written at the stop)
 * it would otherwise bring back answers flushed since. A stop before
 * startup ends keeps it. Failing costs a warning.
 */
export function forgetCacheDump(path: string, logger: Logger): void {
  try {
    flushCacheDump(path);
  } catch (err) {
    logger.warn("Cannot empty the cache dump after loading it", {
      path,
      error: err,
    });
  }
}

/**
 * True when `err` says the file itself is not a local.db: damaged (SQLite's
 * NOTADB and CORRUPT), another program's database, or one without its
 * table; not an I/O error, a full disk or a lock.
 */
function isUnreadableFile(err: unknown): boolean {
  return isDamagedDatabaseError(err) ||
    (err instanceof Error &&
      /not a kudurru local database|no such table/.test(err.message));
}

/** Reads every row; throws when the file is not a readable local.db. */
function readCacheDump(path: string): SerializedEntry[] {
  // Not readOnly: a read-only connection cannot open a WAL file whose -shm
  // is gone, and that must not count as corrupt. Nothing here writes.
  const db = new DatabaseSync(path);
  try {
    const version = readLocalSchemaVersion(db, path);
    if (version > LOCAL_DB_SCHEMA_VERSION) {
      throw new SchemaTooNewLocalDbError(path, version);
    }
    if (version === 0) return [];
    // Read as it is, not migrated: nothing here writes.
    const subnetColumn = version >= 2 ? "client_subnet" : "NULL";
    const rows = db.prepare(
      `SELECT key, name, wire, offsets, ttls, stored_at, expires_at,
         stale_until, ttl, negative, ${subnetColumn} AS client_subnet
         FROM cache_entries ORDER BY rowid`,
    ).all();
    const entries: SerializedEntry[] = [];
    for (const row of rows) {
      const entry = entryOf(row);
      // A malformed row costs that entry only; the worker checks again.
      if (entry === undefined) continue;
      if (version < 2 && askedWithClientSubnet(entry)) continue;
      entries.push(entry);
    }
    return entries;
  } finally {
    db.close();
  }
}

/** readSchemaVersion, with local.db's own wording for a foreign file. */
function readLocalSchemaVersion(db: DatabaseSync, path: string): number {
  try {
    return readSchemaVersion(db, path);
  } catch (err) {
    if (err instanceof Error && /not a kudurru/.test(err.message)) {
      throw new Error(
        `Cannot read "${path}": it is a SQLite database but not a kudurru local database`,
        { cause: err },
      );
    }
    throw err;
  }
}

/** SchemaTooNewError's message, naming local.db's version rather than state.db's. */
class SchemaTooNewLocalDbError extends SchemaTooNewError {
  constructor(path: string, found: number) {
    super(path, found, LOCAL_DB_SCHEMA_VERSION);
    this.message =
      `Cannot open "${path}": its schema version ${found} is newer than this kudurru's ${LOCAL_DB_SCHEMA_VERSION}; run a newer kudurru or remove the file`;
  }
}

/**
 * True for an entry cached for the ECS option sent upstream (`ecs=` in its
 * key's scope, src/stages/upstream/cache_scope.ts). A version 1 file kept
 * no option: brought back without it, such an entry would answer a client
 * that sent ECS with none, which it reads as SCOPE 0 and shares a
 * subnet's answer with every subnet (RFC 7871 §7.2.2, §7.3). A miss costs
 * less.
 */
function askedWithClientSubnet(entry: SerializedEntry): boolean {
  const scope = parseCacheKey(entry.key, entry.name)?.scope ?? "";
  return scope.split(",").some((part) => part.startsWith("ecs="));
}

function entryOf(row: Record<string, unknown>): SerializedEntry | undefined {
  try {
    const offsets: unknown = JSON.parse(String(row.offsets));
    const ttls: unknown = JSON.parse(String(row.ttls));
    if (!(row.wire instanceof Uint8Array)) return undefined;
    if (!Array.isArray(offsets) || !Array.isArray(ttls)) return undefined;
    const subnet = row.client_subnet;
    if (subnet !== null && !(subnet instanceof Uint8Array)) return undefined;
    return {
      key: String(row.key),
      name: String(row.name),
      wire: row.wire,
      offsets: offsets as number[],
      ttls: ttls as number[],
      storedAt: Number(row.stored_at),
      expiresAt: Number(row.expires_at),
      staleUntil: Number(row.stale_until),
      ttl: Number(row.ttl),
      negative: Number(row.negative) === 1,
      ...(subnet !== null && { clientSubnet: subnet }),
    };
  } catch {
    return undefined;
  }
}

/**
 * Removes saved cache entries (all, or those for `name`, with `subtree` for
 * the names below it too) from the dump in `path`, so the next start does
 * not bring them back; returns how many went. Nothing to do (0) when there
 * is no file.
 */
export function flushCacheDump(
  path: string,
  name?: string,
  opts: FlushOptions = {},
): number {
  try {
    Deno.statSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return 0;
    throw err;
  }
  const db = new DatabaseSync(path);
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    const version = readLocalSchemaVersion(db, path);
    if (version > LOCAL_DB_SCHEMA_VERSION) {
      throw new SchemaTooNewLocalDbError(path, version);
    }
    if (version === 0) return 0;
    const flushed = flushedNamesOf(name, opts);
    if (flushed === undefined) {
      return Number(db.prepare("DELETE FROM cache_entries").run().changes);
    }
    if (!flushed.subtree) {
      return Number(
        db.prepare("DELETE FROM cache_entries WHERE name = ?").run(
          flushed.name,
        ).changes,
      );
    }
    // The running cache's own test, not LIKE: `_` (legal in names) and `%`
    // are no wildcards to it, and a dot escaped in a label (`a\.example.`)
    // separates nothing. The dump is bounded (MAX_DUMP_BYTES): one scan.
    db.function(
      "kudurru_flushed",
      { deterministic: true },
      (key) => typeof key === "string" && flushed.covers(key) ? 1 : 0,
    );
    return Number(
      db.prepare("DELETE FROM cache_entries WHERE kudurru_flushed(name)").run()
        .changes,
    );
  } finally {
    db.close();
  }
}
