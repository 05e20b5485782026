/**
 * Opening `<dataDir>/querylog.db` for the query-log and stats routes:
 * read-only per request (WAL lets it be read while the server writes it),
 * and a log not written yet (no query logged so far) reads as an empty
 * one rather than an error.
 */
import { DatabaseSync } from "node:sqlite";
import { openQueryLogDb } from "../../querylog/db.ts";
import {
  QUERYLOG_MIGRATIONS,
  QUERYLOG_SCHEMA_VERSION,
} from "../../querylog/schema.ts";
import { migrateSchema } from "../../sqlite/migrations.ts";

/**
 * Opens the query log read-only for `read`, closing it after; a log that
 * is not there yet (no query logged so far) reads as an empty one.
 */
export function withQueryLog<T>(
  path: string,
  read: (db: DatabaseSync) => T,
): T {
  const db = openOrEmpty(path);
  try {
    return read(db);
  } finally {
    db.close();
  }
}

/** The log read-only, or an empty log in memory when there is no file yet. */
export function openOrEmpty(path: string): DatabaseSync {
  try {
    Deno.statSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return emptyQueryLog();
    throw err;
  }
  return openQueryLogDb(path, { readOnly: true });
}

/** A query log in memory with no events: every read of it is empty. */
export function emptyQueryLog(): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  migrateSchema(db, ":memory:", QUERYLOG_MIGRATIONS, QUERYLOG_SCHEMA_VERSION);
  return db;
}
