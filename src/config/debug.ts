/**
 * The effective configuration as text, with secrets masked: what
 * `KUDURRU_DEBUG_CONFIG=yes` and `kudurru config get` print, and what the
 * control socket reports a running server started with.
 */
import type { z } from "zod";
import YAML from "yaml";
import { type Config, type ConfigInput, configSchema } from "./schema.ts";
import { defOf, unwrap } from "./schema_walk.ts";
import { formatDuration } from "./duration.ts";
import { formatSize } from "./size.ts";

/** What a set secret is shown as. */
export const MASK = "********";

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "";
}

/**
 * A duration in milliseconds as a user writes it: formatDuration's form,
 * or plain milliseconds when that is shorter ("1800ms", not "1s800ms").
 */
function durationText(ms: number): string {
  const text = formatDuration(ms);
  const plain = `${ms}ms`;
  return plain.length < text.length ? plain : text;
}

/**
 * `value` with every set secret masked and, when `asText`, every duration
 * (ms) and size (bytes) written back as text, by the schema's metadata.
 */
function shown(
  value: unknown,
  schema: z.ZodType | undefined,
  asText: boolean,
): unknown {
  if (!schema) return value;
  const { inner, meta } = unwrap(schema);
  if (meta.writeOnly) return isSet(value) ? MASK : value;
  if (asText && typeof value === "number") {
    if (meta.kind === "duration") return durationText(value);
    if (meta.kind === "size") return formatSize(value);
  }
  const def = defOf(inner);
  if (Array.isArray(value)) {
    return def.type === "array"
      ? value.map((v) => shown(v, def.element, asText))
      : value;
  }
  if (value === null || typeof value !== "object") return value;
  const child = (key: string) =>
    def.type === "object"
      ? def.shape?.[key]
      : def.type === "record"
      ? def.valueType
      : undefined;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, shown(v, child(k), asText)]),
  );
}

/** A copy of the config with every set writeOnly value replaced by "********". */
export function maskSecrets(config: Config): Config {
  return shown(config, configSchema, false) as Config;
}

/**
 * The config as kudurru prints it: secrets masked, and durations and sizes
 * (numbers of ms and bytes in Config) as text again ("5s", "64MiB"), in the
 * form the file takes. Read back through the schema, it is `config` again.
 */
export function shownConfig(config: Config): ConfigInput {
  return shown(config, configSchema, true) as ConfigInput;
}

/** The effective configuration as YAML, secrets masked. */
export function renderEffectiveConfig(config: Config): string {
  return YAML.stringify(shownConfig(config), { lineWidth: 0 });
}
