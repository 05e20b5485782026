/**
 * Loads kudurru.yaml: file (or embedded defaults) → `${VAR}` expansion →
 * KUDURRU_* environment overrides → machine-dependent defaults → validation.
 * Pure apart from `readFile`, so tests pass everything in.
 */
import { dirname, join, resolve } from "node:path";
import YAML from "yaml";
import { ConfigError, describeIssues, formatPath } from "./config_error.ts";
import { applyEnvOverrides, readEnvOverrides } from "./env.ts";
import { expandVariables } from "./expand_vars.ts";
import { type Config, configSchema } from "./schema.ts";
import { USER_DNS_LISTENERS } from "./schema_listeners.ts";
import { containsItself, CYCLIC_ALIAS } from "./yaml_cycles.ts";
import { readUtf8FileSync } from "./utf8_file.ts";

/** Where kudurru looks when neither --config nor KUDURRU_CONFIG names a file. */
export const DEFAULT_CONFIG_PATH = "/etc/kudurru/kudurru.yaml";

export interface LoadOptions {
  /** The file from --config; wins over KUDURRU_CONFIG. */
  path?: string;
  /** The process environment (KUDURRU_* overrides, ${VAR} references). */
  env: Record<string, string>;
  /** Running as root: decides the data directory and the DNS port. */
  isRoot: boolean;
  /** The default node name. */
  hostname: string;
  /** Base of relative paths and non-root defaults. @default Deno.cwd() */
  cwd?: string;
  /** Reads a file as text. @default readUtf8FileSync (invalid UTF-8 is an error) */
  readFile?: (path: string) => string;
}

export interface LoadedConfig {
  config: Config;
  /**
   * What `config` was parsed from: the file with the environment and the
   * machine's defaults applied. Settings changed through the API are
   * merged over it (apiserver/cluster_settings.ts).
   */
  input: Record<string, unknown>;
  /** The file read, or null for embedded defaults. */
  source: string | null;
  /** Keys set by environment variables: read-only in the UI and API. */
  lockedByEnv: string[];
  /** Things the operator should know (printed at startup). */
  notes: string[];
}

type Raw = Record<string, unknown>;

function isNotFound(err: unknown): boolean {
  return err instanceof Deno.errors.NotFound ||
    (err as { code?: string } | null)?.code === "ENOENT";
}

function parseYaml(source: string, text: string): Raw {
  const doc = YAML.parseDocument(text, {
    uniqueKeys: true,
    prettyErrors: true,
  });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      source,
      doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        const what = e.message.split("\n")[0]!.replace(
          / at line \d+, column \d+:?$/,
          "",
        );
        return pos ? `line ${pos.line}, column ${pos.col}: ${what}` : what;
      }),
    );
  }
  const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
  if (value === null || value === undefined) return {};
  if (containsItself(value)) throw new ConfigError(source, [CYCLIC_ALIAS]);
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError(source, [
      "the file must be a mapping of sections such as node: and cache:",
    ]);
  }
  dropEmptyKeys(value as Raw);
  return value as Raw;
}

/**
 * A key left empty (`cache:` with its keys commented out, `objectsDir:`)
 * counts as not set, at any depth of the mappings, so it gets its default.
 */
function dropEmptyKeys(raw: Raw): void {
  for (const [key, value] of Object.entries(raw)) {
    if (value === null) delete raw[key];
    else if (typeof value === "object" && !Array.isArray(value)) {
      dropEmptyKeys(value as Raw);
    }
  }
}

function section(raw: Raw, name: string): Raw | undefined {
  if (raw[name] === undefined) raw[name] = {};
  const value = raw[name];
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? value as Raw
    : undefined; // not a mapping: validation reports it
}

/** Fills the defaults that depend on the machine, where neither file nor env set them. */
function applyMachineDefaults(
  raw: Raw,
  opts: LoadOptions,
  cwd: string,
  source: string | null,
  notes: string[],
): void {
  const node = section(raw, "node");
  if (node) {
    node.name ??= opts.hostname;
    node.dataDir ??= opts.isRoot ? "/var/lib/kudurru" : join(cwd, "data");
  }
  const listeners = section(raw, "listeners");
  if (listeners && listeners.dns === undefined && !opts.isRoot) {
    listeners.dns = structuredClone(USER_DNS_LISTENERS);
    notes.push(
      "DNS listens on 127.0.0.1:5353 because kudurru is not running as root; to use port 53, " +
        "run as root or grant CAP_NET_BIND_SERVICE and set listeners.dns " +
        '(e.g. KUDURRU_LISTENERS__DNS="0.0.0.0:53")',
    );
  }
  raw.objectsDir ??= source !== null
    ? join(dirname(source), "objects.d")
    : opts.isRoot
    ? "/etc/kudurru/objects.d"
    : join(cwd, "objects.d");
}

function chooseFile(
  opts: LoadOptions,
  cwd: string,
): { path: string; required: boolean } {
  const named = opts.path ?? (opts.env.KUDURRU_CONFIG || undefined);
  if (named !== undefined) return { path: resolve(cwd, named), required: true };
  return { path: DEFAULT_CONFIG_PATH, required: false };
}

function readSource(
  opts: LoadOptions,
  cwd: string,
): { source: string | null; raw: Raw } {
  const file = chooseFile(opts, cwd);
  const readFile = opts.readFile ?? readUtf8FileSync;
  let text: string;
  try {
    text = readFile(file.path);
  } catch (err) {
    if (!file.required && isNotFound(err)) return { source: null, raw: {} };
    const why = isNotFound(err) ? "no such file" : (err as Error).message;
    throw new ConfigError(file.path, [why], { cause: err });
  }
  return { source: file.path, raw: parseYaml(file.path, text) };
}

/**
 * Loads and validates the configuration. Throws ConfigError naming the file
 * and every bad key.
 */
export function loadConfig(opts: LoadOptions): LoadedConfig {
  const cwd = opts.cwd ?? Deno.cwd();
  const { source, raw: fromFile } = readSource(opts, cwd);
  const lookup = (name: string) =>
    opts.env[name] ?? (name === "HOSTNAME" ? opts.hostname : undefined);
  const expanded = expandVariables(fromFile, lookup);
  const raw = expanded.value as Raw;
  const problems = expanded.unset.map((u) =>
    `${formatPath(u.path)}: environment variable ${u.name} is not set ` +
    `(write \${${u.name}:-fallback} for a default)`
  );
  const env = readEnvOverrides(
    opts.env,
    opts.readFile ?? readUtf8FileSync,
  );
  problems.push(...env.problems);
  applyEnvOverrides(raw, env.overrides);
  const notes: string[] = [];
  applyMachineDefaults(raw, opts, cwd, source, notes);
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const fromEnv = new Map(env.overrides.map((o) => [o.key, o.variable]));
    problems.push(...describeIssues(parsed.error.issues, raw, fromEnv));
  }
  if (problems.length > 0 || !parsed.success) {
    throw new ConfigError(source, problems);
  }
  return {
    config: structuredClone(parsed.data),
    input: structuredClone(raw),
    source,
    lockedByEnv: env.overrides.map((o) => o.key),
    notes,
  };
}
