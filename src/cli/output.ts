/** How commands print objects: YAML, JSON, or a kubectl-like table. */
import YAML from "yaml";
import type { KObject } from "../api/v1alpha1/meta.ts";
import { UsageError } from "./command.ts";

export type OutputFormat = "table" | "yaml" | "json";

export function parseOutputFormat(
  command: string,
  value: string | undefined,
): OutputFormat {
  const format = value ?? "table";
  if (format !== "table" && format !== "yaml" && format !== "json") {
    throw new UsageError(
      `kudurru ${command}: -o must be yaml, json or table, not "${format}"`,
    );
  }
  return format;
}

export function renderObjects(
  objects: KObject[],
  format: OutputFormat,
  single: boolean,
): string {
  if (format === "json") {
    return JSON.stringify(single ? objects[0] : listOf(objects), null, 2) +
      "\n";
  }
  if (format === "yaml") {
    return YAML.stringify(single ? objects[0] : listOf(objects));
  }
  return renderTable(objects);
}

function listOf(items: KObject[]) {
  return { apiVersion: "v1", kind: "List", items };
}

function renderTable(objects: KObject[]): string {
  if (objects.length === 0) return "No objects found.\n";
  const namespaced = objects.some((o) => o.metadata.namespace);
  const header = [
    ...(namespaced ? ["NAMESPACE"] : []),
    "NAME",
    "MANAGED BY",
    "GENERATION",
  ];
  const rows = objects.map((o) => [
    ...(namespaced ? [o.metadata.namespace ?? ""] : []),
    o.metadata.name,
    o.metadata.managedBy ?? "",
    String(o.metadata.generation ?? ""),
  ]);
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map((r) => r[i]!.length))
  );
  const line = (cells: string[]) =>
    cells.map((c, i) => c.padEnd(widths[i]!)).join("   ").trimEnd();
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}
