/** `kudurru export [--safe] [-o FILE]`: every object as `kind: List` YAML. */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { openLocalStore, STORE_FLAGS } from "./local_store.ts";
import { parseObjectList } from "../store/snapshot.ts";
import { markExport } from "./export_marker.ts";
import { replaceFile, writeAll } from "./replace_file.ts";

export const exportCommand: Command = {
  name: "export",
  summary: "Write every object as YAML that apply and restore accept",
  usage:
    "  kudurru export [--safe] [-o FILE] [--data-dir DIR] [--config FILE]\n" +
    "  --safe  leave out status, server-set metadata and secrets\n" +
    "  -o      replaces FILE only once the whole export is on disk",
  async run(args, io) {
    const { values } = parseFlags("export", args, {
      ...STORE_FLAGS,
      safe: { type: "boolean" },
      output: { type: "string", short: "o" },
    }, 0);
    if (["json", "yaml", "table"].includes(values.output ?? "")) {
      throw new UsageError(
        `kudurru export: -o names the file to write (export writes YAML), not a format: "${values.output}"`,
      );
    }
    const safe = values.safe ?? false;
    const store = await openLocalStore(values, { readOnly: true });
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
