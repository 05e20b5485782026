/**
 * KUDURRU_<SECTION>__<KEY>[__<SUBKEY>…] environment overrides and their
 * <VAR>_FILE variants (Docker secrets). Matching is case-insensitive against
 * the camelCase keys; values are converted per the key's type.
 */
import type { z } from "zod";
import { closestMatch, editDistance } from "./closest_match.ts";
import { settingNodes } from "./settings_table.ts";
import { defOf, unwrap } from "./schema_walk.ts";

const PREFIX = "KUDURRU_";
const FILE_SUFFIX = "_FILE";

/** One key set from the environment. */
export interface EnvOverride {
  /** The variable that set it (with _FILE when read from a file). */
  variable: string;
  /** Dotted key, e.g. "listeners.dns". */
  key: string;
  path: string[];
  value: unknown;
}

/** Overrides found in an environment, and what was wrong with the rest. */
export interface EnvOverrides {
  overrides: EnvOverride[];
  problems: string[];
}

const TRUE_WORDS = new Set(["true", "yes", "1", "on"]);
const FALSE_WORDS = new Set(["false", "no", "0", "off"]);

type Converted = { value: unknown } | { error: string };

function convertItem(text: string, schema: z.ZodType): Converted {
  const def = defOf(unwrap(schema).inner);
  if (def.type === "number") {
    const n = Number(text);
    return text !== "" && Number.isFinite(n)
      ? { value: n }
      : { error: `"${text}" is not a number` };
  }
  if (def.type === "object" && def.shape && "address" in def.shape) {
    return { value: { address: text } };
  }
  if (def.type === "string" || def.type === "enum") return { value: text };
  return { error: "must be JSON" };
}

/** Converts an environment value to the JSON value of a key with this schema. */
export function convertEnvValue(text: string, schema: z.ZodType): Converted {
  const def = defOf(unwrap(schema).inner);
  const trimmed = text.trim();
  const complex = ["array", "record", "object", "unknown"].includes(def.type);
  if (complex && (trimmed.startsWith("[") || trimmed.startsWith("{"))) {
    try {
      return { value: JSON.parse(trimmed) };
    } catch (err) {
      return { error: `is not valid JSON: ${(err as Error).message}` };
    }
  }
  switch (def.type) {
    case "boolean": {
      const word = trimmed.toLowerCase();
      if (TRUE_WORDS.has(word)) return { value: true };
      if (FALSE_WORDS.has(word)) return { value: false };
      return {
        error: `"${text}" is not a boolean (use true/false, yes/no or 1/0)`,
      };
    }
    case "number":
      return convertItem(trimmed, schema);
    case "array": {
      const items = trimmed.split(",").map((s) => s.trim()).filter((s) =>
        s !== ""
      );
      const value: unknown[] = [];
      for (const item of items) {
        const c = convertItem(item, def.element!);
        if ("error" in c) return c;
        value.push(c.value);
      }
      return { value };
    }
    case "record":
    case "object":
    case "unknown":
      return { error: "must be JSON (starting with { or [)" };
    default:
      return { value: text };
  }
}

function trimLineEnd(text: string): string {
  return text.replace(/[\r\n]+$/, "");
}

/** KUDURRU_* variables read elsewhere, never settings. */
const OTHER_VARIABLES: ReadonlySet<string> = new Set([
  "KUDURRU_CONFIG",
  "KUDURRU_DEBUG_CONFIG",
  "KUDURRU_LOG_LEVEL",
  "KUDURRU_LOG_FORMAT",
  "KUDURRU_ADMIN_PASSWORD",
  "KUDURRU_ENCRYPTION_KEY",
  "KUDURRU_ENCRYPTION_KEY_PREVIOUS",
  "KUDURRU_BOOTSTRAP_TOKEN",
]);

/** The top-level setting variable `name` is one or two letters from, if any. */
function nearTopLevel(
  name: string,
  variables: Iterable<string>,
): string | undefined {
  for (const candidate of variables) {
    if (candidate.slice(PREFIX.length).includes("__")) continue;
    if (editDistance(name, candidate) <= 2) return candidate;
  }
  return undefined;
}

/**
 * Reads every override from `env`. Variables without `__` are other settings
 * (KUDURRU_CONFIG, KUDURRU_LOG_LEVEL, …) unless they name a top-level key
 * such as KUDURRU_OBJECTSDIR.
 */
export function readEnvOverrides(
  env: Record<string, string>,
  readFile: (path: string) => string,
): EnvOverrides {
  const nodes = new Map(settingNodes().map((n) => [n.setting.env, n]));
  const overrides: EnvOverride[] = [];
  const problems: string[] = [];
  for (const variable of Object.keys(env).sort()) {
    if (!variable.startsWith(PREFIX)) continue;
    const fromFile = variable.endsWith(FILE_SUFFIX);
    const bare = fromFile ? variable.slice(0, -FILE_SUFFIX.length) : variable;
    const name = PREFIX + bare.slice(PREFIX.length).toUpperCase();
    const node = nodes.get(name);
    if (!node) {
      if (!bare.includes("__")) {
        // Not a setting path, unless it misspells a top-level one
        // (KUDURRU_OBJECTDIR): say so rather than ignore it.
        const near = nearTopLevel(name, nodes.keys());
        if (near !== undefined && !OTHER_VARIABLES.has(name)) {
          problems.push(
            `${variable}: names no setting (did you mean ${near}?)`,
          );
        }
        continue;
      }
      const guess = closestMatch(name, [...nodes.keys()]);
      problems.push(
        `${variable}: names no setting` +
          (guess
            ? ` (did you mean ${guess}${fromFile ? FILE_SUFFIX : ""}?)`
            : ""),
      );
      continue;
    }
    if (fromFile && env[bare] !== undefined) {
      problems.push(`${variable}: ${bare} is set too; set only one of them`);
      continue;
    }
    let text = env[variable]!;
    if (fromFile) {
      try {
        text = trimLineEnd(readFile(text));
      } catch (err) {
        problems.push(
          `${variable}: cannot read "${text}": ${(err as Error).message}`,
        );
        continue;
      }
    }
    const converted = convertEnvValue(text, node.schema);
    if ("error" in converted) {
      problems.push(`${variable}: ${converted.error}`);
      continue;
    }
    overrides.push({
      variable,
      key: node.setting.key,
      path: node.path,
      value: converted.value,
    });
  }
  return { overrides, problems };
}

/** Writes each override into a raw (pre-validation) config object. */
export function applyEnvOverrides(
  raw: Record<string, unknown>,
  overrides: readonly EnvOverride[],
): void {
  for (const { path, value } of overrides) {
    let cur: Record<string, unknown> = raw;
    for (const part of path.slice(0, -1)) {
      const next = cur[part];
      if (next === null || typeof next !== "object" || Array.isArray(next)) {
        cur[part] = {};
      }
      cur = cur[part] as Record<string, unknown>;
    }
    cur[path[path.length - 1]!] = value;
  }
}
