/** `kudurru apply -f FILE|-`: create or update objects from YAML, as manager "api". */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { applyYamlText } from "../objects/apply_file.ts";
import type { ObjectOutcome } from "../objects/report.ts";
import { readObjectsFile } from "../objects/sources.ts";
import { openLocalStore, STORE_FLAGS } from "./local_store.ts";
import { checkExport } from "./export_marker.ts";

export const applyCommand: Command = {
  name: "apply",
  summary: "Create or update objects from a YAML file",
  usage: "  kudurru apply -f FILE|- [--data-dir DIR] [--config FILE]\n" +
    "  FILE holds one or more YAML documents (or a kind: List); - reads standard input",
  async run(args, io) {
    const { values } = parseFlags("apply", args, {
      ...STORE_FLAGS,
      filename: { type: "string", short: "f" },
    }, 0);
    const file = values.filename;
    if (!file) {
      throw new UsageError(
        "kudurru apply: name the file with -f FILE (or -f - for stdin)",
      );
    }
    const text = file === "-" ? await io.readStdin() : await readFile(file);
    // An export cut short must not half-apply; a hand-written file has no
    // marker lines and is taken as it is.
    checkExport(text, file === "-" ? "standard input" : `"${file}"`);
    const store = await openLocalStore(values);
    try {
      const report = await applyYamlText(
        store,
        file === "-" ? "stdin" : file,
        text,
        {
          manager: "api",
          actor: "cli",
          // One line per object as it is written: a run cut short (Ctrl-C,
          // a full disk) still shows what landed.
          onOutcome: (o) => {
            const line = describeOutcome(o);
            if (line !== undefined) io.stdout(line);
          },
        },
      );
      const errors = report.diagnoses.filter((d) => d.severity === "error");
      for (const d of report.diagnoses) {
        io.stderr(
          `${d.severity}: ${d.message}${d.hint ? ` (${d.hint})` : ""}\n`,
        );
      }
      return errors.length > 0 ? 1 : 0;
    } finally {
      await store.close();
    }
  },
};

const VERB: Record<string, string> = {
  created: "created",
  updated: "configured",
  unchanged: "unchanged",
  deleted: "deleted",
};

/** "DNSZone/home created", or nothing for an outcome that names no object. */
export function describeOutcome(o: ObjectOutcome): string | undefined {
  const verb = VERB[o.result];
  return o.object && verb ? `${o.object} ${verb}\n` : undefined;
}

async function readFile(file: string): Promise<string> {
  try {
    return await readObjectsFile(file);
  } catch (err) {
    throw new Error(
      `Cannot read "${file}": ${err instanceof Error ? err.message : err}`,
    );
  }
}
