/**
 * Reading the zod schema as data: peeling off default/optional wrappers,
 * collecting metadata, and finding the schema at a key path. The settings
 * table, masking and error messages are all built on these.
 */
import type { z } from "zod";
import { metaOf, type SettingMeta } from "./schema_fields.ts";

/** The part of zod's internal definition we read. */
interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  entries?: Record<string, string>;
  defaultValue?: unknown;
  checks?: { _zod: { def: { check?: string; format?: string } } }[];
}

/** The definition behind a schema. */
export function defOf(schema: z.ZodType): Def {
  return schema._zod.def as unknown as Def;
}

/** A schema with its wrappers peeled off. */
export interface Unwrapped {
  inner: z.ZodType;
  /** Metadata of every layer; the outermost wins. */
  meta: SettingMeta;
  hasDefault: boolean;
  default: unknown;
  optional: boolean;
}

/** Peels default, prefault, optional and pipe layers off a schema. */
export function unwrap(schema: z.ZodType): Unwrapped {
  let cur = schema;
  let meta: SettingMeta = {};
  let hasDefault = false;
  let value: unknown = undefined;
  let optional = false;
  for (;;) {
    meta = { ...metaOf(cur), ...meta };
    const def = defOf(cur);
    if ((def.type === "default" || def.type === "prefault") && !hasDefault) {
      hasDefault = true;
      value = def.defaultValue;
    }
    if (def.type === "optional") optional = true;
    const next = def.innerType ?? (def.type === "pipe" ? def.in : undefined);
    if (!next) break;
    cur = next;
  }
  return { inner: cur, meta, hasDefault, default: value, optional };
}

/** The unwrapped schema at a path of keys and list indexes, if the path exists. */
export function schemaAt(
  root: z.ZodType,
  path: readonly PropertyKey[],
): z.ZodType | undefined {
  let cur: z.ZodType | undefined = unwrap(root).inner;
  for (const seg of path) {
    if (!cur) return undefined;
    const def = defOf(cur);
    if (def.type === "object") cur = def.shape?.[String(seg)];
    else if (def.type === "array") cur = def.element;
    else if (def.type === "record") cur = def.valueType;
    else return undefined;
    cur = cur && unwrap(cur).inner;
  }
  return cur;
}

/** The keys an object schema allows (empty for anything else). */
export function keysOf(schema: z.ZodType | undefined): string[] {
  if (!schema) return [];
  const def = defOf(schema);
  return def.type === "object" ? Object.keys(def.shape ?? {}) : [];
}

/** A short name for a schema's type, as the docs and CLI show it. */
export function typeName(schema: z.ZodType): string {
  const { inner, meta } = unwrap(schema);
  if (meta.kind) return meta.kind;
  const def = defOf(inner);
  switch (def.type) {
    case "number":
      return (def.checks ?? []).some((c) => c._zod.def.format === "safeint")
        ? "integer"
        : "number";
    case "array":
      return `list of ${plural(typeName(def.element!))}`;
    case "record":
      return `map of ${plural(typeName(def.valueType!))}`;
    case "enum":
      return "enum";
    case "unknown":
      return "any";
    default:
      return def.type;
  }
}

function plural(name: string): string {
  return name.startsWith("list") || name.startsWith("map") ? name : `${name}s`;
}

/** The values an enum schema (or a list of one) allows. */
export function allowedValues(schema: z.ZodType): string[] | undefined {
  const def = defOf(unwrap(schema).inner);
  if (def.type === "enum") return Object.values(def.entries ?? {});
  if (def.type === "array") return allowedValues(def.element!);
  return undefined;
}
