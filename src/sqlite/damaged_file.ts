/**
 * Telling a damaged SQLite file from other failures: a damaged file may be
 * moved aside and started anew, a file from a newer kudurru, a lock or a
 * permission problem must not be.
 */

/**
 * True for SQLite's "this file is damaged" errors (SQLITE_NOTADB,
 * SQLITE_CORRUPT), as node:sqlite words them; not for a file from a newer
 * kudurru, a lock or a permission problem.
 */
export function isDamagedDatabaseError(err: unknown): boolean {
  return err instanceof Error &&
    /file is not a database|database disk image is malformed/i.test(
      err.message,
    );
}
