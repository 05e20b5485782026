/**
 * The layout of state.db: the migrations that bring a file to each schema
 * version (src/sqlite/migrations.ts runs them).
 */
import type { Migration } from "../../sqlite/migrations.ts";
import { MIGRATION_V3 } from "./sqlite_schema_v3.ts";

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
  MIGRATION_V3,
];
