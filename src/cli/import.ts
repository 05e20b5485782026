/**
 * `kudurru import TOOL PATH [-o FILE] [--settings-out FILE]`: another DNS
 * server's configuration as kudurru objects (a `kind: List` that
 * `kudurru apply -f` takes) and the kudurru.yaml settings they need, with
 * a report of what was mapped and what was skipped and why. Nothing is
 * applied unless asked (`--apply`, to the local data directory as
 * `kudurru apply -f` would): the operator reads the report first, and the
 * settings are always merged by hand (kudurru.yaml is the operator's file).
 */
import YAML from "yaml";
import { parseFlags, UsageError } from "./command.ts";
import type { Command } from "./command.ts";
import { IMPORTERS } from "../import/importers.ts";
import { ImportError, type ImportResult } from "../import/import_result.ts";
import { replaceFile, writeAll } from "./replace_file.ts";
import { openLocalStore, STORE_FLAGS } from "./local_store.ts";
import { applyObjects } from "../objects/apply_file.ts";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { describeOutcome } from "./apply.ts";
import { importDiff, renderDiff } from "./import_diff.ts";

export const importCommand: Command = {
  name: "import",
  summary: "Turn another DNS server's configuration into kudurru objects",
  get usage() {
    const tools = Object.entries(IMPORTERS).map(([tool, e]) =>
      `    ${tool.padEnd(10)} ${e.reads}`
    ).join("\n");
    return "  kudurru import TOOL PATH [-o FILE] [--settings-out FILE] [--apply [--data-dir DIR] [--config FILE]]\n" +
      "  Prints the objects as a kind: List for kudurru apply -f (or writes them to FILE), the\n" +
      "  kudurru.yaml settings they need (or writes them to --settings-out), and a report on\n" +
      "  standard error of what was mapped and what was skipped, and why, and what applying them\n" +
      "  to the local data directory would change. Nothing is applied unless --apply: then the\n" +
      "  objects are applied to the local data directory (merge the\n" +
      "  settings into kudurru.yaml yourself: the upstream groups they name must exist).\n" +
      `  TOOL is one of:\n${tools}`;
  },
  async run(args, io) {
    const { values, positionals } = parseFlags("import", args, {
      ...STORE_FLAGS,
      output: { type: "string", short: "o" },
      "settings-out": { type: "string" },
      apply: { type: "boolean" },
    }, 2);
    const [tool, path] = positionals;
    const known = Object.keys(IMPORTERS).join(", ");
    if (tool === undefined || path === undefined) {
      throw new UsageError(
        `kudurru import: name the tool and its configuration, such as: kudurru import bind /etc/bind/named.conf (tools: ${known})`,
      );
    }
    const entry = IMPORTERS[tool];
    if (entry === undefined) {
      throw new UsageError(
        `kudurru import: no importer for "${tool}"; there are: ${known}`,
      );
    }
    let result: ImportResult;
    try {
      result = await entry.importer(path);
    } catch (error) {
      if (
        error instanceof ImportError || error instanceof Deno.errors.NotFound
      ) {
        io.stderr(`kudurru import ${tool}: ${(error as Error).message}\n`);
        return 1;
      }
      throw error;
    }
    const settings = Object.keys(result.settings).length === 0
      ? ""
      : YAML.stringify(result.settings);
    if (values.output !== undefined) {
      await writeList(values.output, result);
    } else {
      for (const piece of listPieces(result)) io.stdout(piece);
    }
    if (values["settings-out"] !== undefined) {
      await writeText(values["settings-out"], settings);
    } else if (settings !== "") {
      io.stderr(`# Merge into kudurru.yaml:\n${settings}`);
    }
    io.stderr(renderReport(result));
    if (!values.apply) {
      await printDiff(result, values, io);
      return 0;
    }
    return await applyImported(
      result.objects,
      `kudurru import ${tool}`,
      values,
      io,
    );
  },
};

/**
 * What applying would change in the local data directory, when there is
 * one; nothing is written.
 */
async function printDiff(
  result: ImportResult,
  flags: { "data-dir"?: string | undefined; config?: string | undefined },
  io: { stderr(t: string): void },
): Promise<void> {
  let store;
  try {
    store = await openLocalStore(flags, { existing: true, readOnly: true });
  } catch {
    io.stderr(
      "# No data directory here to compare with: applying would create every object\n",
    );
    return;
  }
  try {
    io.stderr(
      "# Applying (--apply) would:\n" +
        renderDiff(await importDiff(store, result.objects)),
    );
  } finally {
    await store.close();
  }
}

/**
 * Applies the objects to the local store one at a time (as `kudurru apply
 * -f` would the List), one line per object; 1 when any failed.
 */
async function applyImported(
  objects: KObject[],
  source: string,
  flags: { "data-dir"?: string | undefined; config?: string | undefined },
  io: { stdout(t: string): void; stderr(t: string): void },
): Promise<number> {
  const store = await openLocalStore(flags);
  try {
    const report = await applyObjects(store, source, objects, {
      manager: "api",
      actor: "cli",
      onOutcome: (o) => {
        const line = describeOutcome(o);
        if (line !== undefined) io.stderr(line);
      },
    });
    for (const d of report.diagnoses) {
      io.stderr(`${d.severity}: ${d.message}${d.hint ? ` (${d.hint})` : ""}\n`);
    }
    return report.diagnoses.some((d) => d.severity === "error") ? 1 : 0;
  } finally {
    await store.close();
  }
}

/**
 * Past this many records the List is written as JSON (which is YAML too:
 * `kudurru apply -f` reads it): npm:yaml took ~87 ms and much memory per
 * record set of 1,000 endpoints, JSON.stringify ~0.6 ms (bench/import).
 */
export const JSON_LIST_ENDPOINTS = 100_000;

/** The objects as a `kind: List`: YAML to read, JSON when it is large. */
export function renderList(result: ImportResult): string {
  let text = "";
  for (const piece of listPieces(result)) text += piece;
  return text;
}

/**
 * The List's text in pieces. A large List (JSON) comes an object at a
 * time, as `JSON.stringify(list, null, 1)` would write it: the List of a
 * million records is never one string, and its objects are never all
 * built at once (a bind import builds a record set's endpoints when they
 * are read: src/import/bind_rrset_table.ts).
 */
export function* listPieces(result: ImportResult): Generator<string> {
  const items = result.objects;
  if (!moreEndpointsThan(items, JSON_LIST_ENDPOINTS)) {
    yield YAML.stringify({ apiVersion: "v1", kind: "List", items });
    return;
  }
  yield '{\n "apiVersion": "v1",\n "kind": "List",\n "items": [';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) yield ",";
    // Wrapped twice, the item is written two levels in, as in the List:
    // "[\n [" + "\n  {…}" + "\n ]\n]". The slice is not a copy.
    yield JSON.stringify([[items[i]]], null, 1).slice(4, -5);
  }
  yield items.length === 0 ? "]\n}\n" : "\n ]\n}\n";
}

/** Whether the objects hold more than `limit` endpoints; counts no further. */
function moreEndpointsThan(objects: KObject[], limit: number): boolean {
  let endpoints = 0;
  for (const o of objects) {
    const list = (o.spec as { endpoints?: unknown } | undefined)?.endpoints;
    if (Array.isArray(list)) endpoints += list.length;
    if (endpoints > limit) return true;
  }
  return false;
}

/** Writes the List to `path` piece by piece (replacing the file whole). */
async function writeList(path: string, result: ImportResult): Promise<void> {
  const encoder = new TextEncoder();
  await replaceFile(path, async (file) => {
    for (const piece of listPieces(result)) {
      await writeAll(file, encoder.encode(piece));
    }
  });
}

async function writeText(path: string, text: string): Promise<void> {
  const bytes = new TextEncoder().encode(text);
  await replaceFile(path, (file) => writeAll(file, bytes));
}

/** The report: counts, then each mapped and skipped line. */
export function renderReport(result: ImportResult): string {
  const { mapped, skipped } = result.report;
  const lines = [
    `# ${result.objects.length} objects; ${mapped.length} mapped, ${skipped.length} skipped`,
    ...mapped.map((n) => `mapped   ${n.where}: ${n.what} → ${n.detail}`),
    ...skipped.map((n) => `skipped  ${n.where}: ${n.what}: ${n.detail}`),
  ];
  return lines.join("\n") + "\n";
}
