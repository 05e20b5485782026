/** The configuration: schema, settings table, loader and renderers. */
export { type Config, type ConfigInput, configSchema } from "./schema.ts";
export {
  type ItemField,
  type Setting,
  settingsTable,
} from "./settings_table.ts";
export {
  DEFAULT_CONFIG_PATH,
  loadConfig,
  type LoadedConfig,
  type LoadOptions,
} from "./load.ts";
export { ConfigError } from "./config_error.ts";
export { MASK, maskSecrets, renderEffectiveConfig } from "./debug.ts";
export { configJsonSchema } from "./json_schema.ts";
export { type EnvOverride, readEnvOverrides } from "./env.ts";
export { durationSchema, formatDuration, parseDuration } from "./duration.ts";
export { parseSize, sizeSchema } from "./size.ts";
