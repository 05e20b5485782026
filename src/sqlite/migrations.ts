/**
 * How kudurru's SQLite files (state.db, querylog.db, local.db) get their
 * layout: each keeps its schema version in a `meta` table, and a list of
 * migrations brings a file to the version this binary writes, all steps in
 * one transaction. A file newer than this binary is refused before anything
 * is written.
 */
import type { DatabaseSync } from "node:sqlite";

/** One step of the schema; `up` runs inside the migration transaction. */
export interface Migration {
  /** The schema version after this step. */
  to: number;
  description: string;
  up(db: DatabaseSync): void;
}

/** A file written by a newer kudurru than this one: left untouched. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly path: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `Cannot open "${path}": its schema version ${found} is newer than this kudurru's ${supported}; run a newer kudurru or restore a backup`,
    );
    this.name = "SchemaTooNewError";
  }
}

/**
 * The schema version a file carries: 0 for an empty file. Only reads, so it
 * is safe on files this binary must refuse. Throws for a SQLite file that
 * some other program owns.
 */
export function readSchemaVersion(db: DatabaseSync, path: string): number {
  const tables = db.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table'",
  ).all()
    .map((r) => String(r.name));
  if (tables.length === 0) return 0;
  if (!tables.includes("meta")) {
    throw new Error(
      `Cannot open "${path}": it is a SQLite database but not a kudurru database; point kudurru at another data directory`,
    );
  }
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'")
    .get();
  return row === undefined ? 0 : Number(row.value);
}

/**
 * Brings the file to `target`, running the missing steps of `migrations` in
 * one transaction (all or nothing). Throws SchemaTooNewError for a newer file.
 */
export function migrateSchema(
  db: DatabaseSync,
  path: string,
  migrations: readonly Migration[],
  target: number,
): { from: number; to: number } {
  const initial = readSchemaVersion(db, path);
  if (initial > target) throw new SchemaTooNewError(path, initial, target);
  if (initial === target) return { from: initial, to: target };
  db.exec("BEGIN IMMEDIATE");
  try {
    // Re-read under the write lock: another process may have migrated meanwhile.
    const from = readSchemaVersion(db, path);
    if (from > target) throw new SchemaTooNewError(path, from, target);
    let version = from;
    for (const step of [...migrations].sort((a, b) => a.to - b.to)) {
      if (step.to <= version || step.to > target) continue;
      if (step.to !== version + 1) {
        throw new Error(
          `Cannot migrate "${path}": no migration from schema version ${version} to ${
            version + 1
          }`,
        );
      }
      step.up(db);
      version = step.to;
    }
    if (version !== target) {
      throw new Error(
        `Cannot migrate "${path}": no migration reaches schema version ${target} from ${version}`,
      );
    }
    db.prepare(
      "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )
      .run(String(version));
    db.exec("COMMIT");
    return { from, to: version };
  } catch (err) {
    rollback(db);
    throw err;
  }
}

/** Rolls back if a transaction is still open; SQLite may already have ended it after an error. */
export function rollback(db: DatabaseSync): void {
  if (db.isTransaction) db.exec("ROLLBACK");
}
