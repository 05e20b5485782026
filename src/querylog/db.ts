/**
 * Opening querylog.db: the pragmas that make it cheap to write (WAL,
 * synchronous=NORMAL) and able to give space back (auto_vacuum=INCREMENTAL,
 * which SQLite accepts only before the first table exists), and the schema
 * migrations. A file written by a newer kudurru is refused untouched.
 */
import { DatabaseSync } from "node:sqlite";
import { SchemaTooNewError } from "../sqlite/migrations.ts";
import { migrateSchema, readSchemaVersion } from "../sqlite/migrations.ts";
import { QUERYLOG_MIGRATIONS, QUERYLOG_SCHEMA_VERSION } from "./schema.ts";

/** Bytes a WAL file keeps after a checkpoint (see openQueryLogDb). */
export const WAL_SIZE_LIMIT_BYTES = 4 * 1024 * 1024;

/** The file name inside the data directory. */
export const QUERYLOG_DB_FILE = "querylog.db";

export interface OpenQueryLogOptions {
  /**
   * Open an existing file for reading only (the CLI, the API): no file is
   * created and nothing is migrated; a missing or older file is an error.
   * @default false
   */
  readOnly?: boolean;
  /**
   * How long a statement waits for another connection's write lock. The
   * writer keeps it short: it runs on the main thread and would rather
   * retry a batch later than stall it.
   * @default 5000
   */
  busyTimeoutMs?: number;
  /** SQLite page cache in KiB. @default 32768 */
  cacheKiB?: number;
}

/** The query log's own wording of SchemaTooNewError. */
export class QueryLogSchemaTooNewError extends SchemaTooNewError {
  constructor(path: string, found: number) {
    super(path, found, QUERYLOG_SCHEMA_VERSION);
    this.message =
      `Cannot open "${path}": its query log schema version ${found} is newer than this kudurru's ${QUERYLOG_SCHEMA_VERSION}; run a newer kudurru or move the file aside`;
  }
}

/**
 * Opens (and, unless read-only, creates and migrates) the query log at
 * `path`. Read-only opens the file read-only: a user who may only read it
 * can, while a server has it open (with none, SQLite must be able to create
 * its `-shm` file next to it).
 *
 * @throws {QueryLogSchemaTooNewError} when a newer kudurru wrote the file
 */
export function openQueryLogDb(
  path: string,
  opts: OpenQueryLogOptions = {},
): DatabaseSync {
  if (opts.readOnly) assertExists(path);
  // ":memory:" is SQLite's in-memory database, not a file to create.
  else if (path !== ":memory:") createPrivate(path);
  // Read-only: a reader needs no write access to the file or its directory.
  const db = new DatabaseSync(path, { readOnly: opts.readOnly ?? false });
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.trunc(opts.busyTimeoutMs ?? 5000)}`);
    db.exec(`PRAGMA cache_size = ${-Math.trunc(opts.cacheKiB ?? 32768)}`);
    db.exec("PRAGMA temp_store = MEMORY");
    const version = readVersion(db, path);
    if (version > QUERYLOG_SCHEMA_VERSION) {
      throw new QueryLogSchemaTooNewError(path, version);
    }
    if (opts.readOnly) {
      if (version < QUERYLOG_SCHEMA_VERSION) {
        throw new Error(
          `Cannot read "${path}": its query log schema version ${version} is older than this kudurru's ${QUERYLOG_SCHEMA_VERSION}; start kudurru serve once to upgrade it`,
        );
      }
      return db;
    }
    // Must precede the first CREATE TABLE; a no-op on an existing file.
    if (version === 0) db.exec("PRAGMA auto_vacuum = INCREMENTAL");
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    // The WAL is truncated back to this after a checkpoint; otherwise it
    // keeps the size of the largest batch ever written, outside maxDBBytes.
    db.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    try {
      migrateSchema(db, path, QUERYLOG_MIGRATIONS, QUERYLOG_SCHEMA_VERSION);
    } catch (err) {
      if (err instanceof SchemaTooNewError) {
        throw new QueryLogSchemaTooNewError(path, err.found);
      }
      throw err;
    }
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Mode of a new query log: who asked what is private (-wal/-shm follow it). */
export const QUERYLOG_FILE_MODE = 0o640;

/**
 * Creates a missing file empty with QUERYLOG_FILE_MODE, before SQLite would
 * create it 0644. Best effort: whatever stops it stops SQLite too.
 */
function createPrivate(path: string): void {
  try {
    Deno.openSync(path, {
      write: true,
      createNew: true,
      mode: QUERYLOG_FILE_MODE,
    }).close();
  } catch {
    // there already, or not creatable: SQLite opens it or says why not
  }
}

function assertExists(path: string): void {
  try {
    Deno.statSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new Error(
        `No query log at "${path}" yet: kudurru serve writes it once queries arrive`,
        { cause: err },
      );
    }
    throw err;
  }
}

/** readSchemaVersion, with the query log's wording for a foreign file. */
function readVersion(db: DatabaseSync, path: string): number {
  try {
    return readSchemaVersion(db, path);
  } catch (err) {
    if (err instanceof Error && /not a kudurru/.test(err.message)) {
      throw new Error(
        `Cannot open "${path}": it is a SQLite database but not a kudurru query log`,
        { cause: err },
      );
    }
    throw err;
  }
}

/**
 * Renames a damaged query log (and its WAL and shared-memory files) to
 * `<path>.damaged-<time>`, kept for a look later; returns the new path.
 */
export function moveAsideDamaged(path: string, now = new Date()): string {
  const aside = `${path}.damaged-${now.toISOString().replace(/[:.]/g, "-")}`;
  Deno.renameSync(path, aside);
  for (const suffix of ["-wal", "-shm"]) {
    try {
      Deno.renameSync(path + suffix, aside + suffix);
    } catch {
      // Not there: nothing to keep.
    }
  }
  return aside;
}
