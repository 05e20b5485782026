/**
 * `kudurru apply -f`: the same decoding and validation as the loader, under
 * manager "api" by default. Objects owned by another manager are left alone
 * with a ManagedByOther diagnosis; nothing is deleted; nothing aborts the rest.
 */
import type { KObject } from "../api/v1alpha1/meta.ts";
import { NotFoundError, type Store } from "../store/store.ts";
import type { Logger } from "../log/logger.ts";
import { applyDeclared } from "./apply_object.ts";
import { type DecodedObject, decodeValue, decodeYaml } from "./decode.ts";
import type { Diagnosis } from "./diagnosis.ts";
import {
  type LoadReport,
  type ObjectOutcome,
  ReportBuilder,
} from "./report.ts";
import { readObjectsFile } from "./sources.ts";

export interface ApplyFileOptions {
  /** @default "api" */
  manager?: string;
  /** @default "default" */
  defaultNamespace?: string;
  /** Who asked, for the audit row. @default "apply" */
  actor?: string;
  logger?: Logger;
  /**
   * Told of each object's outcome as soon as it is written (or not), so
   * a caller can show what landed before the rest is done.
   */
  onOutcome?: (o: ObjectOutcome) => void;
}

/** Applies every object in multi-document YAML text; `sourceName` names it in diagnoses. */
export async function applyYamlText(
  store: Store,
  sourceName: string,
  text: string,
  opts: ApplyFileOptions = {},
): Promise<LoadReport> {
  const decoded = decodeYaml(sourceName, text, {
    defaultNamespace: opts.defaultNamespace || "default",
  });
  const applying = new Applying(store, sourceName, opts);
  applying.read(decoded.objects.length);
  applying.diagnose(decoded.diagnoses);
  for (const d of decoded.objects) await applying.apply(d);
  return applying.report.finish();
}

/**
 * Applies objects as applyYamlText would the List of them, each item its
 * own document, decoded only when its turn comes: an import of a million
 * records applies one record set at a time and never holds the whole List
 * decoded (nor as text).
 */
export async function applyObjects(
  store: Store,
  sourceName: string,
  objects: readonly unknown[],
  opts: ApplyFileOptions = {},
): Promise<LoadReport> {
  const applying = new Applying(store, sourceName, opts);
  applying.read(objects.length);
  for (let i = 0; i < objects.length; i++) {
    const decoded = decodeValue(sourceName, i + 1, objects[i], {
      defaultNamespace: opts.defaultNamespace || "default",
    });
    applying.diagnose(decoded.diagnoses);
    for (const d of decoded.objects) await applying.apply(d);
  }
  return applying.report.finish();
}

/** One source being applied: its report and the objects it declared so far. */
class Applying {
  readonly report: ReportBuilder;
  readonly #manager: string;
  readonly #seen = new Map<string, number>();

  constructor(
    readonly store: Store,
    readonly sourceName: string,
    readonly opts: ApplyFileOptions,
  ) {
    this.report = new ReportBuilder(opts.onOutcome);
    this.#manager = opts.manager ?? "api";
  }

  /** The source was read and declares `objects` objects. */
  read(objects: number): void {
    this.report.sources.push({
      name: this.sourceName,
      manager: this.#manager,
      read: true,
      objects,
      protected: false,
    });
  }

  /** Documents that could not be decoded. */
  diagnose(diagnoses: readonly Diagnosis[]): void {
    for (const d of diagnoses) {
      this.report.diagnose(d);
      this.report.outcome({
        source: this.sourceName,
        document: d.document ?? 0,
        result: "invalid",
      });
    }
  }

  async apply(d: DecodedObject): Promise<void> {
    const { report, sourceName, store } = this;
    const at = { source: sourceName, document: d.document, object: d.name };
    const first = this.#seen.get(d.name);
    if (first !== undefined) {
      report.diagnose({
        severity: "error",
        reason: "Duplicate",
        ...at,
        message:
          `Ignoring ${d.name} in "${sourceName}" document ${d.document}: already declared in ${sourceName} document ${first}`,
      });
      report.outcome({ ...at, result: "invalid" });
      return;
    }
    this.#seen.set(d.name, d.document);
    let stored: KObject | undefined;
    try {
      stored = await store.get(d.key);
    } catch (e) {
      if (!(e instanceof NotFoundError)) {
        report.diagnose({
          severity: "error",
          reason: "ApplyFailed",
          ...at,
          message: `Cannot read ${d.name}: ${
            e instanceof Error ? e.message : String(e)
          }`,
        });
        report.outcome({ ...at, result: "error" });
        return;
      }
    }
    await applyDeclared({
      store,
      decoded: d,
      source: sourceName,
      manager: this.#manager,
      stored,
      takeover: false,
      actor: this.opts.actor ?? "apply",
      ...(this.opts.logger ? { logger: this.opts.logger } : {}),
    }, report);
  }
}

/** Reads `path` and applies it like applyYamlText; a read failure becomes a ReadFailed diagnosis. */
export async function applyYamlFile(
  store: Store,
  path: string,
  opts: ApplyFileOptions = {},
): Promise<LoadReport> {
  let text: string;
  try {
    text = await readObjectsFile(path);
  } catch (e) {
    const report = new ReportBuilder();
    report.sources.push({
      name: path,
      manager: opts.manager ?? "api",
      read: false,
      objects: 0,
      protected: false,
    });
    report.diagnose({
      severity: "error",
      reason: "ReadFailed",
      source: path,
      message: `Cannot read "${path}": ${
        e instanceof Error ? e.message : String(e)
      }`,
    });
    report.outcome({ source: path, result: "error" });
    return report.finish();
  }
  return applyYamlText(store, path, text, opts);
}
