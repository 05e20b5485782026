/**
 * The layout of state.db and how a file gets there: a list of migrations,
 * each bringing the schema to one version, run together in one transaction.
 * A newer file than this binary is refused before anything is written.
 */
import type { DatabaseSync } from "node:sqlite";
import { SCHEMA_VERSION, SchemaTooNewError } from "../store.ts";

/** One step of the schema; `up` runs inside the migration transaction. */
export interface Migration {
  /** The schema version after this step. */
  to: number;
  description: string;
  up(db: DatabaseSync): void;
}

const SCHEMA_V1 = `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE objects (
  kind             TEXT NOT NULL,
  namespace        TEXT NOT NULL,
  name             TEXT NOT NULL,
  body             TEXT NOT NULL,
  resource_version INTEGER NOT NULL,
  generation       INTEGER NOT NULL,
  managed_by       TEXT NOT NULL,
  PRIMARY KEY (kind, namespace, name)
);
CREATE TABLE changes (
  resource_version INTEGER PRIMARY KEY,
  kind             TEXT NOT NULL,
  namespace        TEXT NOT NULL,
  name             TEXT NOT NULL,
  type             TEXT NOT NULL,
  body             TEXT NOT NULL
);
CREATE TABLE audit (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  time             TEXT NOT NULL,
  actor            TEXT NOT NULL,
  manager          TEXT NOT NULL,
  action           TEXT NOT NULL,
  kind             TEXT NOT NULL,
  namespace        TEXT NOT NULL,
  name             TEXT NOT NULL,
  resource_version INTEGER NOT NULL,
  generation       INTEGER NOT NULL
);
CREATE INDEX audit_object ON audit (kind, namespace, name);
`;

/** Small runtime values (Store.getRuntime/setRuntime), such as blocking.disabledUntil. */
const SCHEMA_V2 = `
CREATE TABLE runtime (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  actor      TEXT
);
`;

/**
 * Every schema version in order. To change the layout: bump SCHEMA_VERSION in
 * store.ts and append a step here; never edit a step that has shipped.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    to: 1,
    description: "meta, objects, changes and audit tables",
    up(db) {
      db.exec(SCHEMA_V1);
      const seed = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)");
      seed.run("cluster_id", crypto.randomUUID());
      seed.run("epoch", "1");
      // The last resourceVersion handed out, and the highest one trimmed from changes.
      seed.run("resource_version", "0");
      seed.run("compacted", "0");
    },
  },
  {
    to: 2,
    description: "runtime table for Kudurru.status values",
    up(db) {
      db.exec(SCHEMA_V2);
    },
  },
];

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
      `Cannot open "${path}": it is a SQLite database but not a kudurru state database; point kudurru at another data directory`,
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
  migrations: readonly Migration[] = MIGRATIONS,
  target: number = SCHEMA_VERSION,
): { from: number; to: number } {
  const initial = readSchemaVersion(db, path);
  if (initial > target) throw new SchemaTooNewError(path, initial);
  if (initial === target) return { from: initial, to: target };
  db.exec("BEGIN IMMEDIATE");
  try {
    // Re-read under the write lock: another process may have migrated meanwhile.
    const from = readSchemaVersion(db, path);
    if (from > target) throw new SchemaTooNewError(path, from);
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
