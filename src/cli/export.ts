/**
 * `kudurru export [--safe] [-o FILE]`: every object as `kind: List` YAML,
 * from a data directory. The API has no export of everything, so with a
 * context current it says to run it on the server or name the directory.
 */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { openLocalStore } from "./local_store.ts";
import { localOnly, resolveTarget, TARGET_FLAGS } from "./target.ts";
import { parseObjectList } from "../store/snapshot.ts";
import { markExport } from "../store/export_marker.ts";
import { replaceFile, writeAll } from "./replace_file.ts";

export const exportCommand: Command = {
  name: "export",
  summary: "Write every object as YAML that apply and restore accept",
  usage:
    "  kudurru export [--safe] [-o FILE] [--data-dir DIR] [--config FILE]\n" +
    "  --safe  leave out status, server-set metadata and secrets\n" +
    "  -o      replaces FILE only once the whole export is on disk\n" +
    "  Works on this machine's data directory: with a context current (kudurru login), pass --data-dir or --config.",
  async run(args, io) {
    const { values } = parseFlags("export", args, {
      ...TARGET_FLAGS,
      safe: { type: "boolean" },
      output: { type: "string", short: "o" },
    }, 0);
    if (["json", "yaml", "table"].includes(values.output ?? "")) {
      throw new UsageError(
        `kudurru export: -o names the file to write (export writes YAML), not a format: "${values.output}"`,
      );
    }
    const safe = values.safe ?? false;
    const local = localOnly(
      "export",
      await resolveTarget("export", values, io),
    );
    const store = await openLocalStore(local, { readOnly: true });
    let yaml: string;
    try {
      yaml = await store.snapshot({ safe });
    } finally {
      await store.close();
    }
    const text = markExport(yaml, parseObjectList(yaml).length);
    if (values.output) {
      const bytes = new TextEncoder().encode(text);
      await replaceFile(values.output, (file) => writeAll(file, bytes));
      io.stderr(`wrote ${values.output}\n`);
    } else {
      io.stdout(text);
    }
    return 0;
  },
};
