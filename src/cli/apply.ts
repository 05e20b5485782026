/** `kudurru apply -f FILE|-`: create or update objects from YAML, as manager "api". */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { applyYamlText } from "../objects/apply_file.ts";
import type { LoadReport } from "../objects/report.ts";
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
    const text = file === "-"
      ? await io.readStdin()
      : await readObjectsFile(file);
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
        },
      );
      io.stdout(describeOutcomes(report));
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

function describeOutcomes(report: LoadReport): string {
  return report.outcomes
    .filter((o) => o.object && VERB[o.result])
    .map((o) => `${o.object} ${VERB[o.result]}\n`)
    .join("");
}

async function readObjectsFile(file: string): Promise<string> {
  try {
    return await Deno.readTextFile(file);
  } catch (err) {
    throw new Error(
      `Cannot read "${file}": ${err instanceof Error ? err.message : err}`,
    );
  }
}
