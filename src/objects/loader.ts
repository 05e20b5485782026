/**
 * The objects loader: keeps the file-managed objects (the config file's
 * `objects:` and objectsDir/*.yaml) in the store, reloading on directory
 * events and on a poll. Loads are serialised and never abort.
 */
import type { Store } from "../store/store.ts";
import type { RebuildHold } from "../snapshot/rebuild_hold.ts";
import type { Logger } from "../log/logger.ts";
import type { Registry } from "../metrics/registry.ts";
import {
  countBySeverity,
  type Diagnosis,
  type DiagnosisSeverity,
} from "./diagnosis.ts";
import type { ValidateFn } from "./apply_object.ts";
import { DocumentCache } from "./document_cache.ts";
import { DecodeCache } from "./decode_cache.ts";
import { watchDirectory } from "./dir_watch.ts";
import { watchDeletions } from "./deletion_watch.ts";
import { type PassStore, passStore } from "./pass_store.ts";
import { runLoadPass } from "./load_pass.ts";
import { createObjectsMetrics, type ObjectsMetrics } from "./metrics.ts";
import type { ApplyResult, LoadReport, SourceSummary } from "./report.ts";
import { DEFAULT_INLINE_SOURCE } from "./sources.ts";

export interface ObjectsLoaderOptions {
  store: Store;
  /** The config file's `objects:` list. */
  inline?: readonly unknown[];
  /** The inline objects' source name, usually the config file's base name. @default "kudurru.yaml" */
  inlineSource?: string;
  /** objectsDir; "" or undefined disables it. */
  dir?: string;
  /** @default "default" */
  defaultNamespace?: string;
  /** @default 500 */
  debounceMs?: number;
  /** A full load every so often; < 0 disables. @default 60000 */
  pollIntervalMs?: number;
  /** Where the kudurru_objects_* metrics go; none: not exposed. */
  registry?: Registry;
  logger?: Logger;
  /** ha-static: objects come from files only and the API is read-only for them. */
  static?: boolean;
  /** @default validateObject (the kudurru.io/v1alpha1 schemas) */
  validate?: ValidateFn;
  /**
   * Taken from a pass's first write to its end: the snapshot builder and the
   * zone controller then build a file of many record sets once, not per object.
   */
  hold?: RebuildHold;
}

/** JSON-ready state for /healthz and the UI. */
export interface ObjectsStatus {
  static: boolean;
  dir?: string;
  inlineSource: string;
  /** The sources the last load saw. */
  files: SourceSummary[];
  /** When the last load started (ISO 8601). */
  lastLoad?: string;
  lastLoadDurationSeconds?: number;
  loads: number;
  /** Whether the directory watch is attached, and how often it (re-)attached. */
  watch: { watching: boolean; attaches: number };
  counts?: Record<ApplyResult, number>;
  diagnosisCounts: Record<DiagnosisSeverity, number>;
  diagnoses: Diagnosis[];
}

/** What CheckAPIWrite throws on an ha-static node. */
export class StaticReadOnlyError extends Error {
  constructor() {
    super(
      "Cannot change kudurru.io objects through the API: this node runs in ha-static mode, where they come from files only",
    );
    this.name = "StaticReadOnlyError";
  }
}

const DEFAULT_DEBOUNCE_MS = 500;
const DEFAULT_POLL_MS = 60_000;

export class ObjectsLoader {
  readonly #opts: ObjectsLoaderOptions;
  readonly #cache = new DocumentCache();
  readonly #decodeCache = new DecodeCache();
  readonly #metrics: ObjectsMetrics;
  #chain: Promise<unknown> = Promise.resolve();
  #queued = false;
  #last: LoadReport | undefined;
  #loads = 0;
  /** Messages already logged, so a steady poll does not repeat them. */
  #logged = new Set<string>();
  /** What the last load's sources declared: their deletion by others means a reload. */
  #declared = new Set<string>();
  /** The running pass's view of the store. */
  #pass: PassStore | undefined;
  #watch = { watching: false, attaches: 0 };

  constructor(opts: ObjectsLoaderOptions) {
    this.#opts = opts;
    this.#metrics = createObjectsMetrics(opts.registry);
  }

  /** One synchronous pass, after any load already running. Never throws for bad input. */
  load(): Promise<LoadReport> {
    const next = this.#chain.then(() => this.#loadOnce());
    this.#chain = next.catch(() => {});
    return next;
  }

  /** Asks for a reload soon; never blocks. Requests during a load coalesce into one more. */
  trigger(): void {
    if (this.#queued) return;
    this.#queued = true;
    const next = this.#chain.then(() => {
      this.#queued = false;
      return this.#loadOnce();
    });
    this.#chain = next.catch(() => {});
  }

  /** Resolves once no load is running or queued. */
  async idle(): Promise<void> {
    for (;;) {
      const c = this.#chain;
      await c;
      if (c === this.#chain) return;
    }
  }

  /**
   * Watches the directory, and the store for deletions of declared objects,
   * and polls, until the signal aborts; no initial load.
   */
  async watch(signal: AbortSignal): Promise<void> {
    const o = this.#opts;
    const deletions = watchDeletions(signal, {
      store: o.store,
      // Not the loader's own deletions: the running pass already decided.
      declared: (name) =>
        this.#declared.has(name) && !this.#pass?.deleted.has(name),
      onDeleted: () => this.trigger(),
      ...(o.logger ? { logger: o.logger } : {}),
    });
    await watchDirectory(signal, {
      ...(o.dir ? { dir: o.dir } : {}),
      debounceMs: o.debounceMs || DEFAULT_DEBOUNCE_MS,
      pollIntervalMs: o.pollIntervalMs || DEFAULT_POLL_MS,
      onChange: () => this.trigger(),
      onPoll: async () => {
        this.trigger();
        await this.idle();
      },
      onWatching: (watching) => {
        this.#watch.watching = watching;
        if (watching) this.#watch.attaches++;
      },
      ...(o.logger ? { logger: o.logger } : {}),
    });
    await deletions;
    await this.idle();
  }

  /** load, then watch. */
  async run(signal: AbortSignal): Promise<void> {
    await this.load();
    await this.watch(signal);
  }

  status(): ObjectsStatus {
    const last = this.#last;
    return {
      static: this.apiReadOnly(),
      ...(this.#opts.dir ? { dir: this.#opts.dir } : {}),
      inlineSource: this.#opts.inlineSource || DEFAULT_INLINE_SOURCE,
      files: last?.sources ?? [],
      ...(last
        ? {
          lastLoad: last.time,
          lastLoadDurationSeconds: last.durationSeconds,
          counts: last.counts,
        }
        : {}),
      loads: this.#loads,
      watch: { ...this.#watch },
      diagnosisCounts: countBySeverity(last?.diagnoses ?? []),
      diagnoses: last?.diagnoses ?? [],
    };
  }

  /** The last load's diagnoses, sorted by source, then document. */
  diagnoses(): Diagnosis[] {
    return this.#last?.diagnoses ?? [];
  }

  /** Ready once the first load has finished; bad files never make a node unready. */
  ready(): [boolean, string[]] {
    if (this.#loads === 0) {
      return [false, ["objects: the first load has not finished"]];
    }
    return [true, []];
  }

  apiReadOnly(): boolean {
    return this.#opts.static ?? false;
  }

  /** Throws StaticReadOnlyError in ha-static mode; the API calls it before every kudurru.io write. */
  checkApiWrite(): void {
    if (this.apiReadOnly()) throw new StaticReadOnlyError();
  }

  async #loadOnce(): Promise<LoadReport> {
    const o = this.#opts;
    const pass = this.#pass = passStore(o.store, o.hold);
    const report = await runLoadPass({
      store: pass.store,
      ...(o.inline ? { inline: o.inline } : {}),
      ...(o.inlineSource ? { inlineSource: o.inlineSource } : {}),
      ...(o.dir ? { dir: o.dir } : {}),
      defaultNamespace: o.defaultNamespace || "default",
      cache: this.#cache,
      decodeCache: this.#decodeCache,
      ...(o.validate ? { validate: o.validate } : {}),
      ...(o.logger ? { logger: o.logger } : {}),
    }).finally(pass.end);
    this.#last = report;
    this.#declared = new Set(
      report.outcomes.flatMap((o) =>
        o.object && o.result !== "deleted" ? [o.object] : []
      ),
    );
    this.#pass = undefined;
    this.#loads++;
    this.#metrics.observe(report);
    this.#log(report);
    return report;
  }

  #log(report: LoadReport): void {
    const log = this.#opts.logger;
    if (!log) return;
    // Each finding once while it lasts: a broken file is not news every
    // poll, but it is again after it was fixed and broke anew. Errors and
    // warnings at WARN (bad input, not a server fault), infos at INFO.
    const now = new Set<string>();
    for (const d of report.diagnoses) {
      const key = `${d.severity}\n${d.source}\n${d.message}`;
      now.add(key);
      if (this.#logged.has(key)) continue;
      (d.severity === "info" ? log.info : log.warn)(d.message, {
        reason: d.reason,
        source: d.source,
        ...(d.object ? { object: d.object } : {}),
        ...(d.owner ? { owner: d.owner } : {}),
        ...(d.hint ? { hint: d.hint } : {}),
      });
    }
    this.#logged = now;
    const c = report.counts;
    const changed = c.created + c.updated + c.deleted > 0;
    (changed ? log.info : log.debug)("Loaded file-managed objects", {
      ...c,
      sources: report.sources.length,
      diagnoses: report.diagnoses.length,
      duration: report.durationSeconds,
    });
  }
}

/** Creates an objects loader; call load() (or run()) to apply the objects. */
export function createObjectsLoader(opts: ObjectsLoaderOptions): ObjectsLoader {
  return new ObjectsLoader(opts);
}
