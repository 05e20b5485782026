/**
 * `kudurru doctor`'s look at state.db and querylog.db: each opens
 * read-only (nothing is migrated or written) and carries a schema version
 * this kudurru knows. A newer one means a newer kudurru wrote it, and this
 * one would refuse to start on it.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { readSchemaVersion } from "../sqlite/migrations.ts";
import { SCHEMA_VERSION } from "../store/store.ts";
import { QUERYLOG_SCHEMA_VERSION } from "../querylog/schema.ts";
import { QUERYLOG_DB_FILE } from "../querylog/db.ts";
import { messageOf } from "../server/disk_errors.ts";
import { explainReadFailure } from "./local_store.ts";
import { fail, type Finding, ok } from "./doctor_report.ts";

/** A kudurru database: its file name, the check's name and its version. */
export interface KnownDatabase {
  file: string;
  check: string;
  version: number;
}

export const STATE_DB: KnownDatabase = {
  file: "state.db",
  check: "store",
  version: SCHEMA_VERSION,
};
export const QUERYLOG_DB: KnownDatabase = {
  file: QUERYLOG_DB_FILE,
  check: "query log",
  version: QUERYLOG_SCHEMA_VERSION,
};

/**
 * The schema version of the kudurru database at `path`, read without
 * writing. Throws with what to do when it cannot be read.
 */
export function schemaVersionOf(path: string): number {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { readOnly: true });
  } catch (err) {
    throw explainReadFailure(path, err);
  }
  try {
    return readSchemaVersion(db, path);
  } catch (err) {
    throw explainReadFailure(path, err);
  } finally {
    db.close();
  }
}

/** The finding on one database in `dataDir` (missing is fine: made at start). */
export async function checkDatabase(
  dataDir: string,
  known: KnownDatabase,
): Promise<Finding> {
  const path = join(dataDir, known.file);
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) {
      return fail(
        known.check,
        `${path} is not a file: move it away, and kudurru serve makes a new one`,
      );
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      return ok(
        known.check,
        `${path} is not there yet: kudurru serve makes it`,
      );
    }
    return fail(known.check, `Cannot look at ${path}: ${messageOf(err)}`);
  }
  let found: number;
  try {
    found = schemaVersionOf(path);
  } catch (err) {
    return fail(known.check, messageOf(err));
  }
  return versionFinding(path, known, found);
}

/** The verdict on a database whose schema version is `found`. */
export function versionFinding(
  path: string,
  known: KnownDatabase,
  found: number,
): Finding {
  if (found > known.version) {
    return fail(
      known.check,
      `${path} was written by a newer kudurru (schema version ${found}; this one knows up to ${known.version}): run that kudurru, or restore a backup made by this one`,
    );
  }
  if (found < known.version) {
    return ok(
      known.check,
      `${path} has schema version ${found}; kudurru serve migrates it to ${known.version} at its next start`,
    );
  }
  return ok(known.check, `${path} opens, schema version ${found}`);
}
