/** `kudurru export [--safe] [-o FILE]`: every object as `kind: List` YAML. */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { openLocalStore, STORE_FLAGS } from "./local_store.ts";

export const exportCommand: Command = {
  name: "export",
  summary: "Write every object as YAML that apply and restore accept",
  usage:
    "  kudurru export [--safe] [-o FILE] [--data-dir DIR] [--config FILE]\n" +
    "  --safe  leave out status, server-set metadata and secrets",
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
    const store = await openLocalStore(values, { readOnly: true });
    try {
      const yaml = await store.snapshot({ safe: values.safe ?? false });
      if (values.output) {
        await Deno.writeTextFile(values.output, yaml);
        io.stderr(`wrote ${values.output}\n`);
      } else {
        io.stdout(yaml);
      }
      return 0;
    } finally {
      await store.close();
    }
  },
};
