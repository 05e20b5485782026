/**
 * Opening `<dataDir>/querylog.db` for `kudurru querylog` and `kudurru stats`,
 * with errors that say what to do: a data directory that is not there (a
 * misspelled --data-dir), a log not written yet, a damaged file.
 */
import { dirname, resolve } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { openQueryLogDb } from "../querylog/db.ts";
import { isDamagedDatabaseError } from "../sqlite/damaged_file.ts";
import { explainReadFailure } from "./local_store.ts";
import { notAQueryLogFile } from "../querylog/path_check.ts";

/** querylog.db opened read-only, with an error that says what to do. */
export function openQueryLogForReading(path: string): DatabaseSync {
  const absolute = resolve(path);
  const dir = dirname(absolute);
  if (!isDirectory(dir)) {
    throw new Error(
      `No data directory at "${dir}": is --data-dir (or node.dataDir in the config) right?`,
    );
  }
  const unusable = notAFile(absolute);
  if (unusable !== undefined) throw new Error(unusable);
  try {
    return openQueryLogDb(absolute, { readOnly: true });
  } catch (err) {
    throw explainQueryLogFailure(absolute, err);
  }
}

/**
 * A clearer error for a query log that fails to open or to read: a damaged
 * file is named, with what to do about it (SQLite may find the damage only
 * when a query reads the page, so reads go through this too).
 */
export function explainQueryLogFailure(path: string, err: unknown): unknown {
  if (!isDamagedDatabaseError(err)) return explainReadFailure(path, err);
  const why = (err as Error).message;
  return new Error(
    `Cannot read "${path}": the file is damaged (${why}); kudurru serve moves a damaged query log aside (to ${path}.damaged-<time>) and starts a new one when it next opens or writes it, or move it away yourself`,
    { cause: err },
  );
}

/**
 * Why `path` cannot be a query log before SQLite tries (it says only "disk
 * I/O error" for a directory, and reads an empty file as an old schema).
 */
function notAFile(path: string): string | undefined {
  const occupied = notAQueryLogFile(path);
  if (occupied !== undefined) {
    return `Cannot read the query log: ${occupied}; move it away, and kudurru serve starts a new log there`;
  }
  let size: number;
  try {
    size = Deno.statSync(path).size;
  } catch {
    return undefined; // missing: openQueryLogDb says so
  }
  if (size === 0) {
    return `Cannot read "${path}": the file is empty (no query log was set up in it yet; kudurru serve does so when it opens it)`;
  }
  return undefined;
}

function isDirectory(path: string): boolean {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}
