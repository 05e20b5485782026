/**
 * `kudurru backup`: one archive (backup_archive.ts) of what a data
 * directory needs to be restored elsewhere: state.db, the keys/ directory
 * (without the encryption key, sealed sessions and TOTP secrets cannot be
 * opened; TSIG keys and self-made certificates live there too) and, with
 * --with-querylog, querylog.db. The databases are copied with SQLite's
 * online backup, all pages in one read transaction: a consistent snapshot
 * even while `kudurru serve` writes. (`VACUUM INTO` would do as well, but
 * it attaches a database, which Deno allows only with full permissions.)
 * local.db and lists/ are left out: both are made again.
 */
import { join, relative } from "node:path";
import { backup, DatabaseSync } from "node:sqlite";
import { type Command, parseFlags } from "./command.ts";
import {
  missingDataDirMessage,
  resolveDataDir,
  STORE_FLAGS,
} from "./local_store.ts";
import { isDirectory } from "../server/data_dir.ts";
import { machineFacts } from "../server/machine.ts";
import { messageOf } from "../server/disk_errors.ts";
import { readSchemaVersion } from "../sqlite/migrations.ts";
import { explainReadFailure } from "./local_store.ts";
import { packBackup, type PackedFile } from "./backup_archive.ts";
import { replaceFile, writeAll } from "./replace_file.ts";

export const backupCommand: Command = {
  name: "backup",
  summary: "Write state.db, keys/ and optionally querylog.db into one archive",
  usage:
    "  kudurru backup [--out FILE] [--with-querylog] [--data-dir DIR] [--config FILE]\n" +
    "  --out            the archive to write (default <dataDir>/backups/kudurru-<time>.zip)\n" +
    "  --with-querylog  include querylog.db (this node's query history)\n" +
    "  safe while kudurru serve runs; kudurru restore FILE puts it back",
  async run(args, io) {
    const { values } = parseFlags("backup", args, {
      ...STORE_FLAGS,
      out: { type: "string", short: "o" },
      "with-querylog": { type: "boolean" },
    }, 0);
    const dataDir = resolveDataDir(values);
    if (!(await isDirectory(dataDir))) {
      throw new Error(missingDataDirMessage(dataDir));
    }
    const now = new Date();
    const out = values.out ?? await defaultOut(dataDir, now);
    const files = await collect(dataDir, values["with-querylog"] ?? false);
    const { archive, manifest } = await packBackup(files, {
      node: machineFacts().hostname,
      createdAt: now,
    });
    await replaceFile(out, (file) => writeAll(file, archive), { mode: 0o600 });
    io.stderr(
      `wrote ${out}: ${manifest.files.map((f) => f.path).join(", ")}\n`,
    );
    return 0;
  },
};

async function defaultOut(dataDir: string, now: Date): Promise<string> {
  const dir = join(dataDir, "backups");
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  return join(dir, `kudurru-${stamp}.zip`);
}

/** The files to pack: the database copies, then keys/. */
async function collect(
  dataDir: string,
  withQueryLog: boolean,
): Promise<PackedFile[]> {
  const scratch = await Deno.makeTempDir({ prefix: "kudurru-backup-" });
  try {
    const files: PackedFile[] = [];
    const state = join(dataDir, "state.db");
    if (!(await isFile(state))) {
      throw new Error(
        `Nothing to back up: ${state} is not there (kudurru serve, or kudurru apply, makes it)`,
      );
    }
    files.push(
      await copyDatabase(state, join(scratch, "state.db"), "state.db"),
    );
    if (withQueryLog) {
      const log = join(dataDir, "querylog.db");
      if (!(await isFile(log))) {
        throw new Error(
          `--with-querylog: ${log} is not there (the query log is off, or nothing was asked yet)`,
        );
      }
      files.push(
        await copyDatabase(log, join(scratch, "querylog.db"), "querylog.db"),
      );
    }
    files.push(...await keyFiles(dataDir));
    return files;
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
}

/**
 * A consistent copy of the database at `path`, from a read-only
 * connection: every page in one step (rate -1), so one read transaction's
 * state whatever a server writes meanwhile, and nothing written to the
 * original.
 */
async function copyDatabase(
  path: string,
  to: string,
  name: string,
): Promise<PackedFile> {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { readOnly: true });
  } catch (err) {
    throw explainReadFailure(path, err);
  }
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    const schemaVersion = readSchemaVersion(db, path);
    await backup(db, to, { rate: -1 });
    return { path: name, bytes: await Deno.readFile(to), schemaVersion };
  } catch (err) {
    throw new Error(`Cannot copy ${path}: ${messageOf(err)}`, { cause: err });
  } finally {
    db.close();
  }
}

/** Every regular file under keys/ (none when there is no keys/). */
async function keyFiles(dataDir: string): Promise<PackedFile[]> {
  const root = join(dataDir, "keys");
  if (!(await isDirectory(root))) return [];
  const out: PackedFile[] = [];
  const walk = async (dir: string) => {
    const entries = [];
    for await (const e of Deno.readDir(dir)) entries.push(e);
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory) await walk(path);
      // Half-written files of writePrivate (".tmp-<uuid>") are not keys.
      else if (e.isFile && !/\.tmp-[0-9a-f-]+$/.test(e.name)) {
        out.push({
          path: relative(dataDir, path).split("\\").join("/"),
          bytes: await Deno.readFile(path),
        });
      }
    }
  };
  await walk(root);
  return out;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}
