/**
 * `kudurru apply -f`: the same decoding and validation as the loader, under
 * manager "api" by default. Objects owned by another manager are left alone
 * with a ManagedByOther diagnosis; nothing is deleted; nothing aborts the rest.
 */
import type { KObject } from "../api/v1alpha1/meta.ts";
import { NotFoundError, type Store } from "../store/store.ts";
import type { Logger } from "../log/logger.ts";
import { applyDeclared } from "./apply_object.ts";
import { decodeYaml } from "./decode.ts";
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
  const report = new ReportBuilder(opts.onOutcome);
  const manager = opts.manager ?? "api";
  const decoded = decodeYaml(sourceName, text, {
    defaultNamespace: opts.defaultNamespace || "default",
  });
  decoded.diagnoses.forEach((d) => {
    report.diagnose(d);
    report.outcome({
      source: sourceName,
      document: d.document ?? 0,
      result: "invalid",
    });
  });
  report.sources.push({
    name: sourceName,
    manager,
    read: true,
    objects: decoded.objects.length,
    protected: false,
  });
  const seen = new Map<string, number>();
  for (const d of decoded.objects) {
    const at = { source: sourceName, document: d.document, object: d.name };
    const first = seen.get(d.name);
    if (first !== undefined) {
      report.diagnose({
        severity: "error",
        reason: "Duplicate",
        ...at,
        message:
          `Ignoring ${d.name} in "${sourceName}" document ${d.document}: already declared in ${sourceName} document ${first}`,
      });
      report.outcome({ ...at, result: "invalid" });
      continue;
    }
    seen.set(d.name, d.document);
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
        continue;
      }
    }
    await applyDeclared({
      store,
      decoded: d,
      source: sourceName,
      manager,
      stored,
      takeover: false,
      actor: opts.actor ?? "apply",
      ...(opts.logger ? { logger: opts.logger } : {}),
    }, report);
  }
  return report.finish();
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
