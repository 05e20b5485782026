/**
 * `kudurru config`: print the JSON Schema of kudurru.yaml, or the
 * configuration as kudurru would read it now (file + environment +
 * defaults, secrets masked; a running server read it when it started, and
 * `get` says where that differs), or the `upstreams` a dnsmasq file's
 * forwarding lines mean.
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
import { shownConfig } from "../config/debug.ts";
import { configJsonSchema } from "../config/json_schema.ts";
import { loadConfig } from "../config/load.ts";
import { settingsTable } from "../config/settings_table.ts";
import { runImportDnsmasq } from "./config_import_dnsmasq.ts";
import {
  askRunningServer,
  type RunningServer,
} from "../server/control_socket.ts";

const USAGE = `  kudurru config schema
      Print the JSON Schema of kudurru.yaml (for # yaml-language-server: $schema=…).
  kudurru config get [KEY] [--config FILE] [-o yaml|json]
      Print the configuration, or one key such as cache.maxTTL, with secrets
      masked, as kudurru would read it now: the file is --config, else
      $KUDURRU_CONFIG, else /etc/kudurru/kudurru.yaml; KUDURRU_* variables
      override it. kudurru reads it only when it starts: a running server
      keeps what it started with, and stderr says where it differs.
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
  /** What the server on a data directory runs with; none: not asked. */
  askServer?: (dataDir: string) => Promise<RunningServer>;
}

function realHost(): ConfigCommandHost {
  return {
    environment: () => Deno.env.toObject(),
    isRoot: () => Deno.uid() === 0,
    hostname: () => Deno.hostname(),
    askServer: askRunningServer,
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

async function runGet(
  args: string[],
  io: CommandIO,
  host: ConfigCommandHost,
): Promise<number> {
  const { values, positionals } = parseFlags("config get", args, {
    config: { type: "string", short: "c" },
    output: { type: "string", short: "o", default: "yaml" },
  }, 1);
  const format = values.output ?? "yaml";
  if (format !== "yaml" && format !== "json") {
    throw new UsageError(
      `kudurru config get: -o must be yaml or json, not "${format}"`,
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
  const printable = shownConfig(loaded.config);
  const key = positionals[0];
  const shown = key === undefined ? printable : valueAtKey(printable, key);
  io.stdout(render(shown, format));
  // What is printed is the file, not necessarily what a server uses now.
  const source = loaded.source ?? "the embedded defaults (no kudurru.yaml)";
  io.stderr(
    `# Shows ${source} with this shell's KUDURRU_* variables: what the next start reads.\n`,
  );
  if (host.askServer) {
    const dataDir = loaded.config.node.dataDir;
    const server = await host.askServer(dataDir);
    io.stderr(describeServer(server, dataDir, printable, key));
  }
  return 0;
}

/** The keys (or `key` alone) whose values differ between two configs. */
function differences(
  file: unknown,
  running: unknown,
  key: string | undefined,
): { key: string; file: unknown; running: unknown }[] {
  const keys = key !== undefined ? [key] : settingsTable().map((s) => s.key);
  const diffs = [];
  for (const k of keys) {
    const a = lookup(file, k);
    const b = lookup(running, k);
    if (stableJson(a) !== stableJson(b)) {
      diffs.push({ key: k, file: a, running: b });
    }
  }
  return diffs;
}

/** The value at a dotted key, or undefined. */
function lookup(config: unknown, key: string): unknown {
  let cur = config;
  for (const part of key.split(".")) {
    if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, part)) {
      return undefined;
    }
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** JSON with object keys sorted, for comparing. */
function stableJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_k, v) =>
      v !== null && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(
          Object.entries(v).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0),
        )
        : v,
  ) ?? "undefined";
}

/** At most this many differing keys are listed. */
const MAX_DIFFS_SHOWN = 10;

/** The stderr lines about the server running on `dataDir`. */
function describeServer(
  server: RunningServer,
  dataDir: string,
  file: unknown,
  key: string | undefined,
): string {
  switch (server.state) {
    case "absent":
      return `# No server is running on ${dataDir}.\n`;
    case "unknown":
      return `# Cannot ask the server running on ${dataDir}: ${server.why}; what it uses may differ.\n`;
    case "running": {
      const started = server.running.startedAt;
      // JSON both sides, as the server sent its config.
      const diffs = differences(
        JSON.parse(JSON.stringify(file ?? null)),
        server.running.config,
        key,
      );
      if (diffs.length === 0) {
        return `# The server running on ${dataDir} (started ${started}) uses the same ${
          key === undefined ? "values" : "value"
        }.\n`;
      }
      const lines = diffs.slice(0, MAX_DIFFS_SHOWN).map((d) =>
        `#   ${d.key}: ${stableJson(d.running)} (above: ${
          stableJson(d.file)
        })\n`
      );
      if (diffs.length > MAX_DIFFS_SHOWN) {
        lines.push(`#   … and ${diffs.length - MAX_DIFFS_SHOWN} more\n`);
      }
      return `# The server running on ${dataDir} (started ${started}) uses other values until it restarts:\n` +
        lines.join("");
    }
  }
}

function dispatch(
  args: string[],
  io: CommandIO,
  host: ConfigCommandHost,
): number | Promise<number> {
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
      "Print the configuration the next start reads, or its JSON Schema; import dnsmasq forwarding",
    usage: USAGE,
    // A Promise so that usage errors reject rather than throw synchronously.
    run: (args, io) =>
      new Promise((resolve) => resolve(dispatch(args, io, host))),
  };
}

/** `kudurru config`. */
export const configCommand: Command = createConfigCommand();
