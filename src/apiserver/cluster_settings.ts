/**
 * The cluster settings as the API changes them: a merge patch over the
 * kudurru.yaml shape, checked key by key (config/settings_patch.ts: never a
 * hostOnly or environment-set key), validated whole with the file's schema,
 * and kept in the Store as the internal Settings object "cluster". The
 * effective configuration is the file (with the environment and the
 * machine's defaults) with those overrides merged over it; keys the
 * running server applies live (upstreams, cache, ratelimit) take effect at
 * once, the rest at the next start.
 */
import { mergePatch } from "../api/merge_patch.ts";
import { API_VERSION } from "../api/v1alpha1/meta.ts";
import type { Settings } from "../api/v1alpha1/auth_kinds.ts";
import { describeIssues } from "../config/config_error.ts";
import { shownConfig } from "../config/debug.ts";
import { type Config, configSchema } from "../config/schema.ts";
import {
  type SettingsPatchIssue,
  settingsPatchIssues,
} from "../config/settings_patch.ts";
import {
  sectionHelp,
  type Setting,
  settingsTable,
} from "../config/settings_table.ts";
import type { Logger } from "../log/logger.ts";
import {
  NotFoundError,
  originOptions,
  type Store,
  type WriteOrigin,
} from "../store/store.ts";

/** The Settings object's name: one per cluster. */
export const SETTINGS_NAME = "cluster";
/** The manager of the Settings object. */
const MANAGER = "api";

type Raw = Record<string, unknown>;

/** One setting as the API lists it. */
export interface SettingView {
  key: string;
  /** The effective value (secrets masked; durations and sizes as text). */
  value: unknown;
  /** Where it comes from: the environment, the API, or the file (or its default). */
  source: "env" | "api" | "file";
  help: string;
  /** The key's type as the docs name it ("boolean", "enum", "duration", "integer", "list of strings", …). */
  type: string;
  /** The schema's default, as kudurru.yaml spells it (absent for secrets). */
  default?: unknown;
  /** How the default is described when it depends on the machine. */
  defaultText?: string;
  /** The values an enum allows. */
  allowed?: string[];
  /** The environment variable that sets it. */
  env: string;
  hostOnly: boolean;
  envLocked: boolean;
  /** Changed through the API, it applies at the next start only. */
  restartRequired: boolean;
  /** Changed through the API, it applies at once. */
  live: boolean;
  /** Changed through the API since the server started; applies at the next start. */
  pendingRestart: boolean;
}

/** What a patch changed. */
export interface SettingsPatchResult {
  /** Keys whose value changed and that apply now. */
  applied: string[];
  /** Keys whose value changed and that apply at the next start. */
  restartRequired: string[];
  /** The API's overrides after the patch. */
  overrides: Raw;
}

/** A patch that was refused, with every reason (nothing was stored). */
export class SettingsPatchError extends Error {
  constructor(readonly issues: SettingsPatchIssue[]) {
    super(
      `The settings patch was refused: ${
        issues.map((i) => `${i.path}: ${i.message}`).join("; ")
      }`,
    );
    this.name = "SettingsPatchError";
  }
}

export interface ClusterSettingsOptions {
  store: Store;
  /** The file's settings with the environment and machine defaults applied. */
  input: Raw;
  /** Keys the environment sets (LoadedConfig.lockedByEnv). */
  lockedByEnv: readonly string[];
  logger: Logger;
}

/** The settings of a running server and the API's changes to them. */
export class ClusterSettings {
  readonly #opts: ClusterSettingsOptions;
  readonly #table: Setting[];
  #overrides: Raw;
  #resourceVersion: string | undefined;
  /** What the server started with, and what it would start with now. */
  readonly started: Config;
  #effective: Config;
  #onLive: (config: Config) => void = () => {};
  #patching: Promise<unknown> = Promise.resolve();

  private constructor(
    opts: ClusterSettingsOptions,
    overrides: Raw,
    resourceVersion: string | undefined,
    config: Config,
  ) {
    this.#opts = opts;
    this.#table = settingsTable([...opts.lockedByEnv]);
    this.#overrides = overrides;
    this.#resourceVersion = resourceVersion;
    this.started = config;
    this.#effective = config;
  }

  /**
   * Reads the stored overrides and makes the effective configuration. When
   * they no longer fit the file (a key renamed, a value the file's other
   * keys now forbid), the server starts on the file alone and says why:
   * the stored overrides are kept for the operator to fix or remove.
   */
  static async open(opts: ClusterSettingsOptions): Promise<ClusterSettings> {
    const stored = await readSettings(opts.store);
    const overrides = stored?.spec?.overrides ?? {};
    const merged = effectiveConfig(opts.input, overrides);
    let config: Config;
    if (merged.ok) {
      config = merged.config;
      if (Object.keys(overrides).length > 0) {
        opts.logger.info("Settings changed through the API apply", {
          keys: overriddenKeys(overrides).join(", "),
        });
      }
    } else {
      opts.logger.error(
        "Settings changed through the API no longer fit the configuration; starting without them",
        { problems: merged.problems.join("; ") },
      );
      const file = effectiveConfig(opts.input, {});
      if (!file.ok) throw new Error(file.problems.join("; "));
      config = file.config;
    }
    return new ClusterSettings(
      opts,
      overrides,
      stored?.metadata.resourceVersion,
      config,
    );
  }

  /** The configuration now: the file with the API's changes. */
  get effective(): Config {
    return this.#effective;
  }

  /** Called with the new configuration when a patch changed a live key. */
  onLive(apply: (config: Config) => void): void {
    this.#onLive = apply;
  }

  /** Every setting with its value and where it comes from. */
  view(): {
    settings: SettingView[];
    /** Each top-level section's help. */
    sections: Record<string, string>;
    overrides: Raw;
    resourceVersion?: string;
  } {
    const shown = shownConfig(this.#effective) as Raw;
    const started = shownConfig(this.started) as Raw;
    const overridden = new Set(overriddenKeys(this.#overrides));
    const settings = this.#table.map((s): SettingView => {
      const value = valueAt(shown, s.key);
      return {
        key: s.key,
        value,
        source: s.envLocked && this.#opts.lockedByEnv.includes(s.key)
          ? "env"
          : overridden.has(s.key) ||
              [...overridden].some((k) => k.startsWith(`${s.key}.`))
          ? "api"
          : "file",
        help: s.help,
        type: s.type,
        ...(!s.writeOnly && s.default !== undefined &&
          { default: s.default }),
        ...(s.defaultText !== undefined && { defaultText: s.defaultText }),
        ...(s.allowed !== undefined && { allowed: s.allowed }),
        env: s.env,
        hostOnly: s.hostOnly,
        envLocked: s.envLocked,
        restartRequired: s.restartRequired,
        live: !s.hostOnly && !s.restartRequired,
        pendingRestart: s.restartRequired &&
          JSON.stringify(value) !== JSON.stringify(valueAt(started, s.key)),
      };
    });
    return {
      settings,
      sections: sectionHelp(),
      overrides: structuredClone(this.#overrides),
      ...(this.#resourceVersion !== undefined &&
        { resourceVersion: this.#resourceVersion }),
    };
  }

  /**
   * Merges `patch` into the API's overrides (null removes one: the file's
   * value is back), stores them and applies the live keys.
   *
   * @throws {SettingsPatchError} a key that may not be changed, or a
   *   result the schema refuses; nothing is stored then
   * @throws the Store's errors (ConflictError when `ifMatch` is stale)
   */
  patch(
    patch: Raw,
    opts: { origin: WriteOrigin; ifMatch?: string },
  ): Promise<SettingsPatchResult> {
    // One at a time: each merges into what the previous one stored.
    const result = this.#patching.then(() => this.#patchNow(patch, opts));
    this.#patching = result.catch(() => {});
    return result;
  }

  async #patchNow(
    patch: Raw,
    opts: { origin: WriteOrigin; ifMatch?: string },
  ): Promise<SettingsPatchResult> {
    const refused = settingsPatchIssues(patch, this.#table);
    if (refused.length > 0) throw new SettingsPatchError(refused);
    const overrides = mergePatch(this.#overrides, patch) as Raw;
    const merged = effectiveConfig(this.#opts.input, overrides);
    if (!merged.ok) {
      throw new SettingsPatchError(
        merged.problems.map((message) => ({ path: "", message })),
      );
    }
    // Conditional on what was read last: another node's change in between
    // is a conflict, not lost.
    const expected = opts.ifMatch ?? this.#resourceVersion;
    const stored = await this.#opts.store.apply({
      apiVersion: API_VERSION,
      kind: "Settings",
      metadata: { name: SETTINGS_NAME },
      spec: { overrides },
    }, {
      manager: MANAGER,
      ...originOptions(opts.origin),
      ...(expected !== undefined && { expectedResourceVersion: expected }),
    });
    const before = this.#effective;
    this.#overrides = overrides;
    this.#resourceVersion = stored.metadata.resourceVersion;
    this.#effective = merged.config;
    const changed = this.#table.filter((s) =>
      JSON.stringify(valueAt(before, s.key)) !==
        JSON.stringify(valueAt(merged.config, s.key))
    );
    const applied = changed.filter((s) => !s.restartRequired);
    if (applied.length > 0) this.#onLive(merged.config);
    return {
      applied: applied.map((s) => s.key),
      restartRequired: changed.filter((s) => s.restartRequired).map((s) =>
        s.key
      ),
      overrides: structuredClone(overrides),
    };
  }
}

/** The file's input with `overrides` merged over it, parsed. */
export function effectiveConfig(
  input: Raw,
  overrides: Raw,
): { ok: true; config: Config } | { ok: false; problems: string[] } {
  const merged = mergePatch(input, overrides);
  const parsed = configSchema.safeParse(merged);
  if (parsed.success) return { ok: true, config: parsed.data };
  return { ok: false, problems: describeIssues(parsed.error.issues, merged) };
}

async function readSettings(store: Store): Promise<Settings | undefined> {
  try {
    return await store.get({
      kind: "Settings",
      namespace: "",
      name: SETTINGS_NAME,
    }) as Settings;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/** The dotted keys of the leaves of `overrides` ("cache.maxTTL"). */
function overriddenKeys(overrides: Raw, prefix = ""): string[] {
  return Object.entries(overrides).flatMap(([k, v]) => {
    const key = prefix === "" ? k : `${prefix}.${k}`;
    return typeof v === "object" && v !== null && !Array.isArray(v)
      ? [key, ...overriddenKeys(v as Raw, key)]
      : [key];
  });
}

function valueAt(object: unknown, key: string): unknown {
  let at = object;
  for (const part of key.split(".")) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Raw)[part];
  }
  return at;
}
