/**
 * `kudurru config`: print the JSON Schema of kudurru.yaml, or the effective
 * configuration (file + environment + defaults, secrets masked), or the
 * `upstreams` a dnsmasq file's forwarding lines mean.
 */
import YAML from "yaml";
import {
  type Command,
  type CommandIO,
  parseFlags,
  UsageError,
} from "./command.ts";
import { closestMatch } from "../config/closest_match.ts";
import { ConfigError } from "../config/config_error.ts";
import { maskSecrets } from "../config/debug.ts";
import { configJsonSchema } from "../config/json_schema.ts";
import { loadConfig } from "../config/load.ts";
import { settingsTable } from "../config/settings_table.ts";
import { runImportDnsmasq } from "./config_import_dnsmasq.ts";

const USAGE = `  kudurru config schema
      Print the JSON Schema of kudurru.yaml (for # yaml-language-server: $schema=…).
  kudurru config get [KEY] [--config FILE] [-o yaml|json]
      Print the effective configuration, or one key such as cache.maxTTL, with
      secrets masked. The file is --config, else $KUDURRU_CONFIG, else
      /etc/kudurru/kudurru.yaml; KUDURRU_* variables override it.
  kudurru config import-dnsmasq FILE [-o yaml|json]
      Print the upstreams groups and conditional entries that dnsmasq's
      server=, local= and rev-server= lines in FILE mean (Pi-hole writes
      them), to merge into kudurru.yaml.
`;

/** What the command reads from the machine; tests substitute all of it. */
export interface ConfigCommandHost {
  environment: () => Record<string, string>;
  isRoot: () => boolean;
  hostname: () => string;
  readFile?: (path: string) => string;
  cwd?: () => string;
}

function realHost(): ConfigCommandHost {
  return {
    environment: () => Deno.env.toObject(),
    isRoot: () => Deno.uid() === 0,
    hostname: () => Deno.hostname(),
  };
}

/** Looks up a dotted key ("cache.maxTTL", "listeners.dns.0.address") in a value. */
function valueAtKey(config: unknown, key: string): unknown {
  let cur = config;
  for (const part of key.split(".")) {
    if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, part)) {
      // Sections ("cache") are keys too: "cach" means the section.
      const keys = settingsTable().map((s) => s.key);
      const sections = [...new Set(keys.map((k) => k.split(".")[0]!))];
      const guess = closestMatch(key, [...sections, ...keys]);
      throw new UsageError(
        `kudurru config get: no setting "${key}"` +
          (guess ? ` (did you mean "${guess}"?)` : ""),
      );
    }
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function render(value: unknown, format: string): string {
  if (format === "json") return JSON.stringify(value, null, 2) + "\n";
  return YAML.stringify(value, { lineWidth: 0 });
}

function runGet(
  args: string[],
  io: CommandIO,
  host: ConfigCommandHost,
): number {
  const { values, positionals } = parseFlags("config get", args, {
    config: { type: "string" },
    output: { type: "string", short: "o", default: "yaml" },
  }, 1);
  const format = values.output ?? "yaml";
  if (format !== "yaml" && format !== "json") {
    throw new UsageError(
      `kudurru config get: --output must be yaml or json, not "${format}"`,
    );
  }
  let loaded;
  try {
    loaded = loadConfig({
      ...(values.config !== undefined ? { path: values.config } : {}),
      env: host.environment(),
      isRoot: host.isRoot(),
      hostname: host.hostname(),
      ...(host.cwd ? { cwd: host.cwd() } : {}),
      ...(host.readFile ? { readFile: host.readFile } : {}),
    });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.stderr(err.message + "\n");
    return 1;
  }
  const masked = maskSecrets(loaded.config);
  const key = positionals[0];
  io.stdout(
    render(key === undefined ? masked : valueAtKey(masked, key), format),
  );
  return 0;
}

function dispatch(
  args: string[],
  io: CommandIO,
  host: ConfigCommandHost,
): number {
  const [sub, ...rest] = args;
  switch (sub) {
    case "schema":
      parseFlags("config schema", rest, {}, 0);
      io.stdout(JSON.stringify(configJsonSchema(), null, 2) + "\n");
      return 0;
    case "get":
      return runGet(rest, io, host);
    case "import-dnsmasq":
      return runImportDnsmasq(
        rest,
        io,
        host.readFile ?? ((path) => Deno.readTextFileSync(path)),
      );
    case undefined:
      throw new UsageError(
        "kudurru config: missing subcommand (schema, get or import-dnsmasq)",
      );
    default:
      throw new UsageError(
        `kudurru config: unknown subcommand "${sub}" (schema, get or import-dnsmasq)`,
      );
  }
}

/** Builds the command over a host; `configCommand` uses the real machine. */
export function createConfigCommand(
  host: ConfigCommandHost = realHost(),
): Command {
  return {
    name: "config",
    summary:
      "Print the effective configuration or its JSON Schema; import dnsmasq forwarding",
    usage: USAGE,
    // A Promise so that usage errors reject rather than throw synchronously.
    run: (args, io) =>
      new Promise((resolve) => resolve(dispatch(args, io, host))),
  };
}

/** `kudurru config`. */
export const configCommand: Command = createConfigCommand();
