/** `kudurru restore FILE`: apply an export, keeping each object's manager. */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { openLocalStore, STORE_FLAGS } from "./local_store.ts";

export const restoreCommand: Command = {
  name: "restore",
  summary: "Restore objects from a kudurru export",
  usage: "  kudurru restore FILE|- [--data-dir DIR] [--config FILE]",
  async run(args, io) {
    const { values, positionals } = parseFlags("restore", args, STORE_FLAGS, 1);
    const [file] = positionals;
    if (!file) {
      throw new UsageError(
        "kudurru restore: name the FILE to restore (or - for stdin)",
      );
    }
    const text = file === "-" ? await io.readStdin() : await readBackup(file);
    const store = await openLocalStore(values);
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
