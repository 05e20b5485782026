/**
 * `kudurru apply -f FILE|-`: create or update objects from YAML, as manager
 * "api": in this machine's data directory, or, after `kudurru login`,
 * through the server's API (target.ts decides), where the user's roles
 * decide what may be written.
 */
import {
  type Command,
  type CommandIO,
  parseFlags,
  UsageError,
} from "./command.ts";
import { applyYamlText } from "../objects/apply_file.ts";
import type { ObjectOutcome } from "../objects/report.ts";
import { readObjectsFile } from "../objects/sources.ts";
import { decodeYaml } from "../objects/decode.ts";
import { kindInfo } from "../api/v1alpha1/kinds.ts";
import type { CliContext } from "./contexts.ts";
import { openLocalStore, type StoreFlagValues } from "./local_store.ts";
import { checkExport } from "../store/export_marker.ts";
import { resolveTarget, TARGET_FLAGS } from "./target.ts";
import { ApiCallError, ApiObjects } from "./api_objects.ts";

export const applyCommand: Command = {
  name: "apply",
  summary: "Create or update objects from a YAML file",
  usage:
    "  kudurru apply -f FILE|- [--context NAME | --data-dir DIR | --config FILE]\n" +
    "  FILE holds one or more YAML documents (or a kind: List); - reads standard input.\n" +
    "  Writes through the API of --context, or of the current context (kudurru login); with --data-dir\n" +
    "  or --config, or when not logged in, into this machine's data directory.",
  async run(args, io) {
    const { values } = parseFlags("apply", args, {
      ...TARGET_FLAGS,
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
    const source = file === "-" ? "stdin" : file;
    const target = await resolveTarget("apply", values, io);
    if (target.kind === "api") {
      return await applyOverApi(target.context, source, text, io);
    }
    return await applyLocally(target.store, source, text, io);
  },
};

async function applyLocally(
  values: StoreFlagValues,
  source: string,
  text: string,
  io: CommandIO,
): Promise<number> {
  const store = await openLocalStore(values);
  try {
    const report = await applyYamlText(
      store,
      source,
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
}

/**
 * Each object in its own request, as a local apply writes each on its
 * own: one the server refuses (a role that may not write it, a file that
 * owns it) is an error on stderr and the rest still go; exit 1 then.
 */
async function applyOverApi(
  context: CliContext,
  source: string,
  text: string,
  io: CommandIO,
): Promise<number> {
  const decoded = decodeYaml(source, text, { defaultNamespace: "default" });
  let failed = decoded.diagnoses.some((d) => d.severity === "error");
  for (const d of decoded.diagnoses) {
    io.stderr(`${d.severity}: ${d.message}${d.hint ? ` (${d.hint})` : ""}\n`);
  }
  using api = await ApiObjects.open(context);
  const seen = new Set<string>();
  for (const d of decoded.objects) {
    const kind = kindInfo(d.object.kind);
    if (seen.has(d.name) || kind === undefined) {
      io.stderr(
        `error: ${d.name} in "${source}" document ${d.document}: ${
          kind === undefined ? "not a kind the API serves" : "declared twice"
        }\n`,
      );
      failed = true;
      continue;
    }
    seen.add(d.name);
    try {
      const { result } = await api.apply(kind, d.object);
      io.stdout(`${d.name} ${VERB[result]}\n`);
    } catch (err) {
      // Another object may still be allowed; an unreachable server is not.
      if (!(err instanceof ApiCallError)) throw err;
      io.stderr(`error: ${d.name}: ${err.message}\n`);
      failed = true;
    }
  }
  return failed ? 1 : 0;
}

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
