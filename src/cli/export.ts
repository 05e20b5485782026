/**
 * `kudurru export [--safe] [-o FILE]`: every object as `kind: List` YAML,
 * from a data directory, or, with a context current (kudurru login), from
 * the server's `GET /api/v1/export`: the objects the context's token may
 * list, without the API's own kinds. Either way the file carries the
 * marker lines restore checks, and `-o` replaces FILE only with a
 * complete export.
 */
import { type Command, parseFlags, UsageError } from "./command.ts";
import { openLocalStore } from "./local_store.ts";
import { resolveTarget, TARGET_FLAGS, whereOf } from "./target.ts";
import { parseObjectList } from "../store/snapshot.ts";
import { checkExport, markExport } from "../store/export_marker.ts";
import { replaceFile, writeAll } from "./replace_file.ts";
import type { CliContext } from "./contexts.ts";
import type { StoreFlagValues } from "./local_store.ts";
import { ApiObjects } from "./api_objects.ts";

export const exportCommand: Command = {
  name: "export",
  summary: "Write every object as YAML that apply and restore accept",
  usage:
    "  kudurru export [--safe] [-o FILE] [--context NAME | --data-dir DIR | --config FILE]\n" +
    "  --safe  leave out status, server-set metadata, and accounts and tokens (never in an API export)\n" +
    "  -o      replaces FILE only once the whole export is on disk\n" +
    "  Through the API of --context, or of the current context (kudurru login): the objects its\n" +
    "  token may list. With --data-dir or --config, or when not logged in, this machine's data directory.",
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
    const target = await resolveTarget("export", values, io);
    const text = target.kind === "api"
      ? await exportOverApi(target.context, safe)
      : await exportLocally(target.store, safe);
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

async function exportLocally(
  store: StoreFlagValues,
  safe: boolean,
): Promise<string> {
  const local = await openLocalStore(store, { readOnly: true });
  let yaml: string;
  try {
    yaml = await local.snapshot({ safe });
  } finally {
    await local.close();
  }
  return markExport(yaml, parseObjectList(yaml).length);
}

/**
 * The server's export, read whole and checked before it is written: a
 * download cut short (a dropped connection, objects changed during it)
 * must not replace a good file.
 */
async function exportOverApi(
  context: CliContext,
  safe: boolean,
): Promise<string> {
  using api = await ApiObjects.open(context);
  const res = await api.stream(`/api/v1/export${safe ? "?safe=true" : ""}`);
  const what = `the export of ${whereOf(context)}`;
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    throw new Error(
      `${what} was cut short (${
        err instanceof Error ? err.message : err
      }): export again`,
      { cause: err },
    );
  }
  if (checkExport(text, what) !== "complete") {
    throw new Error(
      `${what} lacks the first and last lines of a kudurru export: is the context's server a kudurru API?`,
    );
  }
  return text;
}
