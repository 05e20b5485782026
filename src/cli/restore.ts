/**
 * `kudurru restore FILE`: apply an export, keeping each object's manager;
 * or, for a backup archive (`kudurru backup`, told by its first bytes),
 * put its files back into the data directory (backup_restore.ts). The API
 * has no restore, so with a context current it says to run it on the
 * server or name the directory.
 */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { openLocalStore, resolveDataDir } from "./local_store.ts";
import { localOnly, resolveTarget, TARGET_FLAGS } from "./target.ts";
import { checkExport } from "../store/export_marker.ts";
import { looksLikeArchive } from "./backup_archive.ts";
import { restoreBackup } from "./backup_restore.ts";

export const restoreCommand: Command = {
  name: "restore",
  summary:
    "Restore objects from a kudurru export, or a data directory from a backup",
  usage:
    "  kudurru restore FILE|- [--force] [--data-dir DIR] [--config FILE]\n" +
    "  an export cut short (its last line missing) is refused before anything is written\n" +
    "  a backup archive (kudurru backup) replaces state.db, keys/ and querylog.db while no\n" +
    "  server runs; the replaced files are kept as <name>.bak-<time> unless --force\n" +
    "  Works on this machine's data directory: with a context current (kudurru login), pass --data-dir or --config.",
  async run(args, io) {
    const { values, positionals } = parseFlags("restore", args, {
      ...TARGET_FLAGS,
      force: { type: "boolean" },
    }, 1);
    const [file] = positionals;
    if (!file) {
      throw new UsageError(
        "kudurru restore: name the FILE to restore (or - for stdin)",
      );
    }
    const local = localOnly(
      "restore",
      await resolveTarget("restore", values, io),
    );
    if (file !== "-") {
      const bytes = await readBytes(file);
      if (looksLikeArchive(bytes)) {
        const dataDir = resolveDataDir(local);
        const done = await restoreBackup(bytes, `"${file}"`, dataDir, {
          force: values.force ?? false,
        });
        io.stdout(
          `restored ${file} (made ${done.manifest.createdAt} by kudurru ${done.manifest.kudurruVersion} on ${done.manifest.node}) into ${dataDir}: ${
            done.written.join(", ")
          }\n`,
        );
        for (const aside of done.keptAside) io.stderr(`kept ${aside}\n`);
        return 0;
      }
      if (bytes.subarray(0, 4096).includes(0)) {
        throw new Error(
          `Cannot restore "${file}": it is neither a kudurru backup archive nor an export (kudurru backup and kudurru export write those)`,
        );
      }
    } else if (values.force) {
      throw new UsageError(
        "kudurru restore: --force is for a backup archive, which is read from a FILE",
      );
    }
    const text = file === "-" ? await io.readStdin() : await readBackup(file);
    const what = file === "-" ? "standard input" : `"${file}"`;
    if (text.trim() === "") {
      // What `kudurru export > FILE` leaves on a disk with no room at all.
      throw new Error(
        `Cannot use ${what}: it is empty; it was probably written on a full disk: use an earlier backup, or export again`,
      );
    }
    if (checkExport(text, what) === "unmarked") {
      io.stderr(
        `note: ${what} lacks the first and last lines of a kudurru export (hand-written, or from an older kudurru), so it cannot be checked for being complete\n`,
      );
    }
    const store = await openLocalStore(local);
    try {
      await store.restore(text);
      io.stdout(`restored ${file}\n`);
      return 0;
    } finally {
      await store.close();
    }
  },
};

async function readBytes(file: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(file);
  } catch (err) {
    throw new Error(
      `Cannot read "${file}": ${err instanceof Error ? err.message : err}`,
    );
  }
}

async function readBackup(file: string): Promise<string> {
  try {
    return await Deno.readTextFile(file);
  } catch (err) {
    throw new Error(
      `Cannot read "${file}": ${err instanceof Error ? err.message : err}`,
    );
  }
}
