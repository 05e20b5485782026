/**
 * `kudurru describe KIND NAME`: one object for a person rather than a
 * script: who manages it (where to change it), its spec as YAML, its status
 * and the conditions that say whether it works and why not. Local or over
 * the API, as target.ts decides.
 */
import YAML from "yaml";
import { type Command, parseFlags, UsageError } from "./command.ts";
import { findKind } from "../api/v1alpha1/kinds.ts";
import type { Condition, KObject } from "../api/v1alpha1/meta.ts";
import { resolveTarget, TARGET_FLAGS } from "./target.ts";
import { getObject } from "./get.ts";
import { renderTable } from "./object_table.ts";

export const describeCommand: Command = {
  name: "describe",
  summary: "Show one object: who manages it, its spec, status and conditions",
  usage:
    "  kudurru describe KIND NAME [-n NAMESPACE] [--context NAME | --data-dir DIR | --config FILE]\n" +
    "  Reads the server of --context, or of the current context (kudurru login); with --data-dir or\n" +
    "  --config, or when not logged in, this machine's data directory.",
  async run(args, io) {
    const { values, positionals } = parseFlags("describe", args, {
      ...TARGET_FLAGS,
      namespace: { type: "string", short: "n" },
    }, 2);
    const [kindWord, name] = positionals;
    if (!kindWord || !name) {
      throw new UsageError("kudurru describe: name a KIND and a NAME");
    }
    const kind = findKind(kindWord);
    if (!kind) {
      throw new UsageError(`kudurru describe: unknown kind "${kindWord}"`);
    }
    const namespace = kind.namespaced ? values.namespace ?? "default" : "";
    const target = await resolveTarget("describe", values, io);
    io.stdout(describeObject(await getObject(target, kind, namespace, name)));
    return 0;
  },
};

/** The text `describe` prints for `object`. */
export function describeObject(object: KObject): string {
  const m = object.metadata;
  const fields: [string, string | undefined][] = [
    ["Name", m.name],
    ["Namespace", m.namespace],
    ["Kind", object.kind],
    // Who to ask for a change: a file's owner is edited in that file.
    ["Managed by", m.managedBy ?? "(nobody)"],
    ["Generation", m.generation?.toString()],
    ["Resource version", m.resourceVersion],
    ["Created", m.creationTimestamp],
  ];
  const shown = fields.filter((f): f is [string, string] => f[1] !== undefined);
  const width = Math.max(...shown.map(([k]) => k.length)) + 2;
  const lines = shown.map(([k, v]) => `${`${k}:`.padEnd(width)}${v}`);
  for (
    const [label, map] of [["Labels", m.labels], [
      "Annotations",
      m.annotations,
    ]] as const
  ) {
    if (map && Object.keys(map).length > 0) {
      lines.push(`${label}:`, indent(YAML.stringify(map)));
    }
  }
  lines.push("Spec:", indent(yamlOf(object.spec)));
  const { conditions, ...status } = (object.status ?? {}) as {
    conditions?: Condition[];
  } & Record<string, unknown>;
  lines.push(
    "Status:",
    indent(Object.keys(status).length > 0 ? yamlOf(status) : "(none)\n"),
  );
  lines.push("Conditions:");
  if (!conditions || conditions.length === 0) {
    lines.push("  (none yet: the server has not reported on it)");
  } else {
    lines.push(indent(renderTable(
      ["TYPE", "STATUS", "REASON", "SINCE", "MESSAGE"],
      conditions.map((c) => [
        c.type,
        c.status,
        c.reason,
        c.lastTransitionTime ?? "",
        c.message ?? "",
      ]),
    )));
  }
  return lines.map((l) => l.replace(/\n$/, "")).join("\n") + "\n";
}

function yamlOf(value: unknown): string {
  return value === undefined ? "(none)\n" : YAML.stringify(value);
}

/** Two spaces before each line of `text`. */
function indent(text: string): string {
  return text.replace(/\n$/, "").split("\n").map((l) => `  ${l}`).join("\n");
}
