/**
 * Restoring a backup archive (backup_archive.ts) into a data directory.
 * Refused while a server holds the directory's lock (it would keep the old
 * databases open), for an archive that is damaged or not kudurru's, and
 * for a database newer than this kudurru. The files are written beside
 * their places and renamed into them; the files they replace are kept as
 * `<name>.bak-<time>` unless --force. The lock is held throughout, so no
 * server starts half-way.
 */
import { dirname, join } from "node:path";
import { ensureDataDir } from "../server/data_dir.ts";
import { DataDirHeldError, lockDataDir } from "../server/data_dir_lock.ts";
import { SCHEMA_VERSION } from "../store/store.ts";
import { QUERYLOG_SCHEMA_VERSION } from "../querylog/schema.ts";
import { BackupError, type Manifest, unpackBackup } from "./backup_archive.ts";
import { schemaVersionOf } from "./doctor_databases.ts";

/** The schema version this kudurru writes, per database file. */
const KNOWN_SCHEMAS: Record<string, number> = {
  "state.db": SCHEMA_VERSION,
  "querylog.db": QUERYLOG_SCHEMA_VERSION,
};

/** What a restore did. */
export interface RestoreResult {
  manifest: Manifest;
  /** Files written, as data-directory paths. */
  written: string[];
  /** Files moved aside, as full paths. */
  keptAside: string[];
}

/**
 * Restores `archive` (read from `name`) into `dataDir`.
 *
 * @throws {BackupError} for an archive that cannot be restored
 * @throws {Error} while a server holds the data directory
 */
export async function restoreBackup(
  archive: Uint8Array,
  name: string,
  dataDir: string,
  opts: { force?: boolean; now?: Date } = {},
): Promise<RestoreResult> {
  const { manifest, files } = await unpackBackup(archive, name);
  for (const f of manifest.files) {
    const known = KNOWN_SCHEMAS[f.path];
    if (known !== undefined && (f.schemaVersion ?? 0) > known) {
      throw new BackupError(
        `Cannot restore ${name}: its ${f.path} has schema version ${f.schemaVersion}, newer than this kudurru's ${known} (it was made by kudurru ${manifest.kudurruVersion}); restore it with that kudurru or a newer one`,
      );
    }
  }
  await ensureDataDir(dataDir);
  let lock;
  try {
    lock = await lockDataDir(dataDir);
  } catch (err) {
    if (!(err instanceof DataDirHeldError)) throw err;
    throw new Error(
      `Cannot restore into "${dataDir}" while a kudurru serves it${
        err.pid !== undefined ? ` (pid ${err.pid})` : ""
      }: stop the server first, restore, then start it again`,
    );
  }
  const stamp = (opts.now ?? new Date()).toISOString().replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  const temps: string[] = [];
  try {
    // Everything is written first, so a full disk stops the restore before
    // any file in the data directory was replaced.
    const staged: { path: string; temp: string }[] = [];
    for (const [path, bytes] of files) {
      const target = join(dataDir, path);
      await makeDirs(dataDir, path);
      const temp = `${target}.restore-${crypto.randomUUID()}`;
      temps.push(temp);
      await Deno.writeFile(temp, bytes, { mode: 0o600, createNew: true });
      await Deno.chmod(temp, 0o600);
      const known = KNOWN_SCHEMAS[path];
      if (known !== undefined) {
        const found = schemaVersionOf(temp);
        if (found > known) {
          throw new BackupError(
            `Cannot restore ${name}: its ${path} has schema version ${found}, newer than this kudurru's ${known}; restore it with a newer kudurru`,
          );
        }
      }
      staged.push({ path, temp });
    }
    const keptAside: string[] = [];
    for (const { path, temp } of staged) {
      const target = join(dataDir, path);
      // A database's -wal and -shm belong to the file they sit beside: a
      // WAL left next to the restored file would be replayed into it.
      const companions = KNOWN_SCHEMAS[path] !== undefined
        ? [target, `${target}-wal`, `${target}-shm`]
        : [target];
      for (const old of companions) {
        if (!(await exists(old))) continue;
        if (opts.force) {
          await Deno.remove(old);
        } else {
          const aside = `${old}.bak-${stamp}`;
          await Deno.rename(old, aside);
          keptAside.push(aside);
        }
      }
      await Deno.rename(temp, target);
    }
    return { manifest, written: staged.map((s) => s.path), keptAside };
  } finally {
    for (const t of temps) await Deno.remove(t).catch(() => {});
    lock.release();
  }
}

/** The directories above `path` in `dataDir`; keys/ and below are 0700. */
async function makeDirs(dataDir: string, path: string): Promise<void> {
  const parent = dirname(path);
  if (parent === ".") return;
  let dir = dataDir;
  for (const segment of parent.split("/")) {
    dir = join(dir, segment);
    if (await exists(dir)) continue;
    await Deno.mkdir(dir, { mode: 0o700 });
    await Deno.chmod(dir, 0o700);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
