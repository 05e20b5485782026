/**
 * The effective configuration as text, with secrets masked: what
 * `KUDURRU_DEBUG_CONFIG=yes` and `kudurru config get` print.
 */
import type { z } from "zod";
import YAML from "yaml";
import { type Config, configSchema } from "./schema.ts";
import { defOf, unwrap } from "./schema_walk.ts";

/** What a set secret is shown as. */
export const MASK = "********";

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "";
}

function mask(value: unknown, schema: z.ZodType | undefined): unknown {
  if (!schema) return value;
  const { inner, meta } = unwrap(schema);
  if (meta.writeOnly) return isSet(value) ? MASK : value;
  const def = defOf(inner);
  if (Array.isArray(value)) {
    return def.type === "array"
      ? value.map((v) => mask(v, def.element))
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
    Object.entries(value).map(([k, v]) => [k, mask(v, child(k))]),
  );
}

/** A copy of the config with every set writeOnly value replaced by "********". */
export function maskSecrets(config: Config): Config {
  return mask(config, configSchema) as Config;
}

/** The effective configuration as YAML, secrets masked. */
export function renderEffectiveConfig(config: Config): string {
  return YAML.stringify(maskSecrets(config), { lineWidth: 0 });
}
