/**
 * `kudurru restore FILE`: apply an export to a data directory, keeping each
 * object's manager. The API has no restore, so with a context current it
 * says to run it on the server or name the directory.
 */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { openLocalStore } from "./local_store.ts";
import { localOnly, resolveTarget, TARGET_FLAGS } from "./target.ts";
import { checkExport } from "./export_marker.ts";

export const restoreCommand: Command = {
  name: "restore",
  summary: "Restore objects from a kudurru export",
  usage: "  kudurru restore FILE|- [--data-dir DIR] [--config FILE]\n" +
    "  an export cut short (its last line missing) is refused before anything is written\n" +
    "  Works on this machine's data directory: with a context current (kudurru login), pass --data-dir or --config.",
  async run(args, io) {
    const { values, positionals } = parseFlags(
      "restore",
      args,
      TARGET_FLAGS,
      1,
    );
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

async function readBackup(file: string): Promise<string> {
  try {
    return await Deno.readTextFile(file);
  } catch (err) {
    throw new Error(
      `Cannot read "${file}": ${err instanceof Error ? err.message : err}`,
    );
  }
}
