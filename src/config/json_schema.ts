/**
 * The JSON Schema of kudurru.yaml (draft 2020-12) for editors:
 * `# yaml-language-server: $schema=kudurru.schema.json`. Generated from the
 * zod schema; the settings metadata becomes `description` and `x-kudurru-*`.
 */
import { z } from "zod";
import { configSchema } from "./schema.ts";
import { settingsTable } from "./settings_table.ts";

type Json = Record<string, unknown>;

/** Keys our `.meta()` adds that are not JSON Schema keywords. */
const META_KEYS = [
  "help",
  "kind",
  "defaultText",
  "restartRequired",
  "envLocked",
  "writeOnly",
  "hostOnly",
];

const PATTERNS: Record<string, string> = {
  duration: "^(0|(\\d+(\\.\\d+)?(ms|s|m|h|d))+)$",
  size: "^\\d+(\\.\\d+)?\\s*([kKmMgGtT][iI]?[bB]|[bB])?$",
};

/** Turns our metadata into standard keywords, everywhere in the tree. */
function translateMeta(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(translateMeta);
  if (node === null || typeof node !== "object") return;
  const obj = node as Json;
  if (typeof obj.help === "string" && obj.description === undefined) {
    obj.description = obj.help;
  }
  const pattern = typeof obj.kind === "string" ? PATTERNS[obj.kind] : undefined;
  if (pattern && obj.type === "string") obj.pattern = pattern;
  // writeOnly is also a JSON Schema keyword: keep it when true.
  for (const key of META_KEYS) {
    if (key !== "writeOnly" || obj[key] !== true) delete obj[key];
  }
  for (const value of Object.values(obj)) translateMeta(value);
}

function propertyAt(root: Json, path: readonly string[]): Json | undefined {
  let cur: Json | undefined = root;
  for (const part of path) {
    const props: Json | undefined = cur?.properties as Json | undefined;
    cur = props?.[part] as Json | undefined;
  }
  return cur;
}

/** The JSON Schema of the configuration file. */
export function configJsonSchema(): Json {
  const schema = z.toJSONSchema(configSchema, {
    io: "input",
    target: "draft-2020-12",
    unrepresentable: "any",
  }) as Json;
  translateMeta(schema);
  for (const s of settingsTable()) {
    const prop = propertyAt(schema, s.key.split("."));
    if (!prop) continue;
    if (s.defaultText) {
      delete prop.default;
      prop.description = `${s.help}. Default: ${s.defaultText}`;
    }
    prop["x-kudurru-env"] = s.env;
    prop["x-kudurru-scope"] = s.scope;
    if (s.restartRequired) prop["x-kudurru-restartRequired"] = true;
    if (s.envLocked) prop["x-kudurru-envLocked"] = true;
    if (s.hostOnly) prop["x-kudurru-hostOnly"] = true;
    if (s.writeOnly) prop.writeOnly = true;
  }
  return {
    ...schema,
    $id: "https://kudurru.io/schemas/kudurru.yaml.json",
    title: "kudurru.yaml",
    description: "Configuration of the kudurru DNS server",
  };
}
