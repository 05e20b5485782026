/**
 * The settings table: the config schema flattened into one row per key. It
 * drives the env overrides, `kudurru config`, the JSON Schema descriptions and
 * docs/configuration.md.
 */
import type { z } from "zod";
import { configSchema } from "./schema.ts";
import { allowedValues, defOf, typeName, unwrap } from "./schema_walk.ts";

/**
 * Sections that are host-local; the rest are cluster scope
 * (docs/design.md#settings).
 */
const NODE_SECTIONS = new Set([
  "node",
  "listeners",
  "edge",
  "vip",
  "cluster",
  "objects",
  "objectsDir",
]);

/** One field inside the items of a list or map setting (listeners, identity providers, …). */
export interface ItemField {
  /** Path inside one item, e.g. "tls.certFile". */
  key: string;
  type: string;
  default: unknown;
  required: boolean;
  allowed?: string[];
  help: string;
  writeOnly: boolean;
}

/** One settings key. */
export interface Setting {
  /** Dotted path, e.g. "cache.prefetch.threshold". */
  key: string;
  /** Top-level section, e.g. "cache". */
  section: string;
  /** node settings are host-local; cluster settings are shared by every node. */
  scope: "node" | "cluster";
  type: string;
  /** The schema default (JSON value). */
  default: unknown;
  /** How the default is described when it depends on the machine. */
  defaultText?: string;
  allowed?: string[];
  help: string;
  restartRequired: boolean;
  /** Read-only in the UI and API because the environment sets it (or always, by design). */
  envLocked: boolean;
  writeOnly: boolean;
  hostOnly: boolean;
  /** The environment variable that overrides it. */
  env: string;
  /** For lists and maps of objects: the fields of one item. */
  fields?: ItemField[];
}

/** A row together with the schema it was read from (for env parsing and masking). */
export interface SettingNode {
  setting: Setting;
  path: string[];
  schema: z.ZodType;
}

type Flags = Pick<
  Setting,
  "restartRequired" | "envLocked" | "writeOnly" | "hostOnly"
>;

/** The environment variable for a key path. */
export function envName(path: readonly string[]): string {
  return "KUDURRU_" + path.map((p) => p.toUpperCase()).join("__");
}

function isObject(schema: z.ZodType): boolean {
  return defOf(unwrap(schema).inner).type === "object";
}

function itemFields(schema: z.ZodType, prefix = ""): ItemField[] {
  const def = defOf(unwrap(schema).inner);
  const out: ItemField[] = [];
  for (const [name, child] of Object.entries(def.shape ?? {})) {
    const u = unwrap(child);
    if (isObject(child)) {
      out.push(...itemFields(child, `${prefix}${name}.`));
      continue;
    }
    const allowed = allowedValues(child);
    out.push({
      key: prefix + name,
      type: typeName(child),
      default: u.default,
      required: !u.hasDefault && !u.optional,
      ...(allowed ? { allowed } : {}),
      help: u.meta.help ?? "",
      writeOnly: u.meta.writeOnly ?? false,
    });
  }
  return out;
}

function itemSchema(schema: z.ZodType): z.ZodType | undefined {
  const def = defOf(unwrap(schema).inner);
  const item = def.type === "array"
    ? def.element
    : def.type === "record"
    ? def.valueType
    : undefined;
  return item && isObject(item) ? item : undefined;
}

function walk(
  schema: z.ZodType,
  path: string[],
  inherited: Flags,
  out: SettingNode[],
): void {
  const u = unwrap(schema);
  const flags: Flags = {
    restartRequired: u.meta.restartRequired ?? inherited.restartRequired,
    envLocked: u.meta.envLocked ?? inherited.envLocked,
    writeOnly: u.meta.writeOnly ?? inherited.writeOnly,
    hostOnly: u.meta.hostOnly ?? inherited.hostOnly,
  };
  const def = defOf(u.inner);
  if (def.type === "object") {
    for (const [name, child] of Object.entries(def.shape ?? {})) {
      walk(child, [...path, name], flags, out);
    }
    return;
  }
  const section = path[0]!;
  const allowed = allowedValues(schema);
  const item = itemSchema(schema);
  out.push({
    path,
    schema: u.inner,
    setting: {
      key: path.join("."),
      section,
      scope: NODE_SECTIONS.has(section) ? "node" : "cluster",
      type: typeName(schema),
      default: u.default,
      ...(u.meta.defaultText ? { defaultText: u.meta.defaultText } : {}),
      ...(allowed ? { allowed } : {}),
      help: u.meta.help ?? "",
      ...flags,
      env: envName(path),
      ...(item ? { fields: itemFields(item) } : {}),
    },
  });
}

let cached: SettingNode[] | undefined;

/** Every settings key with its schema, in schema order. */
export function settingNodes(): readonly SettingNode[] {
  if (!cached) {
    cached = [];
    const none: Flags = {
      restartRequired: false,
      envLocked: false,
      writeOnly: false,
      hostOnly: false,
    };
    walk(configSchema, [], none, cached);
  }
  return cached;
}

/**
 * Every settings key as a row. Keys listed in `lockedByEnv` (from
 * loadConfig) are marked envLocked.
 */
export function settingsTable(lockedByEnv: readonly string[] = []): Setting[] {
  const locked = new Set(lockedByEnv);
  return settingNodes().map(({ setting }) =>
    structuredClone({
      ...setting,
      envLocked: setting.envLocked || locked.has(setting.key),
    })
  );
}

/** Short help for each top-level section, from the section's own metadata. */
export function sectionHelp(): Record<string, string> {
  const shape = defOf(configSchema).shape ?? {};
  return Object.fromEntries(
    Object.entries(shape).map(([name, s]) => [name, unwrap(s).meta.help ?? ""]),
  );
}
