/**
 * One synchronous pass of the objects loader: read every source, decode,
 * resolve duplicates, apply the winners under the ownership rules and delete
 * file-managed objects that no source declares any more. The store is the
 * ownership ledger; there is no side file.
 */
import type { KObject } from "../api/v1alpha1/meta.ts";
import { formatKey, keyOf } from "../api/v1alpha1/meta.ts";
import { KINDS } from "../api/v1alpha1/kinds.ts";
import { ManagedByError, NotFoundError, type Store } from "../store/store.ts";
import type { Logger } from "../log/logger.ts";
import { applyDeclared, type ValidateFn } from "./apply_object.ts";
import {
  type DecodedObject,
  type DecodeResult,
  decodeValues,
  decodeYaml,
} from "./decode.ts";
import { DocumentCache, hashDocument } from "./document_cache.ts";
import { DecodeCache } from "./decode_cache.ts";
import { readSources, type Source } from "./sources.ts";
import { type LoadReport, ReportBuilder } from "./report.ts";

/** The actor recorded in the audit rows of loader writes. */
export const LOADER_ACTOR = "file-loader";

export interface LoadPassOptions {
  store: Store;
  inline?: readonly unknown[];
  inlineSource?: string;
  dir?: string;
  defaultNamespace: string;
  cache: DocumentCache;
  /** Skips parsing files whose text did not change since the last pass. */
  decodeCache?: DecodeCache;
  validate?: ValidateFn;
  logger?: Logger;
}

interface Declaration {
  source: Source;
  decoded: DecodedObject;
}

/** Runs one pass; never throws for bad input or store failures. */
export async function runLoadPass(opts: LoadPassOptions): Promise<LoadReport> {
  const report = new ReportBuilder();
  const read = await readSources({
    ...(opts.inline ? { inline: opts.inline } : {}),
    ...(opts.inlineSource ? { inlineSource: opts.inlineSource } : {}),
    ...(opts.dir ? { dir: opts.dir } : {}),
  });
  read.diagnoses.forEach((d) => report.diagnose(d));

  const protectedManagers = new Set<string>();
  const decls: Declaration[] = [];
  for (const source of read.sources) {
    const decoded = decodeSource(
      source,
      opts.defaultNamespace,
      opts.decodeCache,
    );
    decoded.diagnoses.forEach((d) => report.diagnose(d));
    for (const d of decoded.diagnoses) {
      report.outcome({
        source: source.name,
        document: d.document ?? 0,
        result: "invalid",
      });
    }
    const isProtected = source.kind === "unreadable" ||
      decoded.unidentifiable > 0;
    if (isProtected) protectedManagers.add(source.manager);
    report.sources.push({
      name: source.name,
      manager: source.manager,
      read: source.kind !== "unreadable",
      objects: decoded.objects.length,
      protected: isProtected,
    });
    for (const d of decoded.objects) decls.push({ source, decoded: d });
  }
  const ownerProtected = (owner: string) =>
    protectedManagers.has(owner) ||
    read.protectedPrefixes.some((p) => owner.startsWith(p));

  const winners = resolveDuplicates(decls, report);
  const declared = new Set(decls.map((d) => d.decoded.name));
  const ledger = await readLedger(opts.store, report);

  const kept = new Set<string>();
  for (const w of winners) {
    const cacheKey = `${w.source.manager}\n${w.decoded.name}`;
    kept.add(cacheKey);
    await applyWinner(opts, w, ledger, cacheKey, ownerProtected, report);
  }
  opts.cache.retain(kept);
  opts.decodeCache?.retain(new Set(read.sources.map((s) => s.name)));
  await deleteUndeclared(opts, ledger, declared, ownerProtected, report);
  return report.finish();
}

function decodeSource(
  source: Source,
  defaultNamespace: string,
  cache = new DecodeCache(),
): DecodeResult {
  switch (source.kind) {
    case "inline":
      return decodeValues(source.name, source.values, { defaultNamespace });
    case "file":
      return cache.decode(
        source.name,
        source.text,
        () => decodeYaml(source.name, source.text, { defaultNamespace }),
      );
    case "unreadable":
      return { objects: [], diagnoses: [], unidentifiable: 0 };
  }
}

/** First declaration wins (inline first, then files by name, then document order). */
function resolveDuplicates(
  decls: Declaration[],
  report: ReportBuilder,
): Declaration[] {
  const first = new Map<string, Declaration>();
  for (const d of decls) {
    const prev = first.get(d.decoded.name);
    if (!prev) {
      first.set(d.decoded.name, d);
      continue;
    }
    const where = prev.source === d.source
      ? `${prev.source.name} document ${prev.decoded.document}`
      : prev.source.name;
    const at = {
      source: d.source.name,
      document: d.decoded.document,
      object: d.decoded.name,
    };
    report.diagnose({
      severity: "error",
      reason: "Duplicate",
      ...at,
      message:
        `Ignoring ${d.decoded.name} in "${d.source.name}" document ${d.decoded.document}: already declared in ${where}`,
      hint: "declare each object once; the first declaration wins",
    });
    report.outcome({ ...at, result: "invalid" });
  }
  return [...first.values()];
}

interface Ledger {
  objects: Map<string, KObject>;
  /** Kinds whose list failed: look objects up one by one, delete nothing. */
  failedKinds: Set<string>;
}

async function readLedger(
  store: Store,
  report: ReportBuilder,
): Promise<Ledger> {
  const ledger: Ledger = { objects: new Map(), failedKinds: new Set() };
  for (const { kind } of KINDS) {
    try {
      const list = await store.list(kind);
      for (const o of list.items) ledger.objects.set(formatKey(keyOf(o)), o);
    } catch (e) {
      ledger.failedKinds.add(kind);
      report.diagnose({
        severity: "error",
        reason: "ListFailed",
        source: "",
        message: `Cannot list ${kind} objects: ${errorText(e)}`,
        hint: "nothing of this kind is deleted until the store answers again",
      });
    }
  }
  return ledger;
}

async function applyWinner(
  opts: LoadPassOptions,
  w: Declaration,
  ledger: Ledger,
  cacheKey: string,
  ownerProtected: (owner: string) => boolean,
  report: ReportBuilder,
): Promise<void> {
  const { decoded, source } = w;
  const at = {
    source: source.name,
    document: decoded.document,
    object: decoded.name,
  };
  let stored: KObject | undefined;
  if (ledger.failedKinds.has(decoded.key.kind)) {
    try {
      stored = await opts.store.get(decoded.key);
    } catch (e) {
      if (!(e instanceof NotFoundError)) {
        report.diagnose({
          severity: "error",
          reason: "ApplyFailed",
          ...at,
          message: `Cannot read ${decoded.name} for "${source.name}": ${
            errorText(e)
          }`,
        });
        report.outcome({ ...at, result: "error" });
        return;
      }
    }
  } else {
    stored = ledger.objects.get(decoded.name);
  }
  const hash = await hashDocument(decoded.object);
  if (
    stored?.metadata.managedBy === source.manager &&
    opts.cache.agrees(cacheKey, hash, stored.metadata.resourceVersion)
  ) {
    report.outcome({ ...at, result: "unchanged" });
    return;
  }
  const done = await applyDeclared({
    store: opts.store,
    decoded,
    source: source.name,
    manager: source.manager,
    stored,
    takeover: true,
    ownerProtected,
    actor: LOADER_ACTOR,
    ...(opts.validate ? { validate: opts.validate } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  }, report);
  const agreed = ["created", "updated", "unchanged"].includes(done.result) &&
    done.object?.metadata.managedBy === source.manager;
  if (agreed) {
    opts.cache.remember(cacheKey, hash, done.object?.metadata.resourceVersion);
  }
}

async function deleteUndeclared(
  opts: LoadPassOptions,
  ledger: Ledger,
  declared: ReadonlySet<string>,
  ownerProtected: (owner: string) => boolean,
  report: ReportBuilder,
): Promise<void> {
  for (const [name, obj] of ledger.objects) {
    const owner = obj.metadata.managedBy ?? "";
    if (!owner.startsWith("file:") || declared.has(name)) continue;
    if (ownerProtected(owner) || obj.metadata.deletionTimestamp) continue;
    const source = owner.slice("file:".length);
    try {
      await opts.store.delete(keyOf(obj), {
        manager: owner,
        actor: LOADER_ACTOR,
      });
      report.outcome({ object: name, source, result: "deleted" });
      opts.logger?.info("Deleted file-managed object", {
        object: name,
        source,
      });
    } catch (e) {
      // Gone or re-owned meanwhile: someone else decided, nothing left to do.
      if (e instanceof NotFoundError || e instanceof ManagedByError) continue;
      report.diagnose({
        severity: "error",
        reason: "DeleteFailed",
        source,
        object: name,
        owner,
        message:
          `Cannot delete ${name}, which "${source}" no longer declares: ${
            errorText(e)
          }`,
      });
      report.outcome({ object: name, source, result: "error" });
    }
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
