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
import { passLogger } from "./pass_log.ts";
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
import { findUnsettledFiles } from "./unsettled_files.ts";
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

/** A pass's report, and when to run again for files held back this pass. */
export interface LoadPassReport extends LoadReport {
  /**
   * Set when a file was held as not settled (unsettled_files.ts): a pass
   * after this many milliseconds applies it, unless it changed again.
   */
  retryAfterMs?: number;
}

/** Runs one pass; never throws for bad input or store failures. */
export async function runLoadPass(
  passOpts: LoadPassOptions,
): Promise<LoadPassReport> {
  const logger = passLogger(passOpts.logger);
  const opts = { ...passOpts, ...(logger && { logger }) };
  const report = new ReportBuilder();
  const read = await readSources({
    ...(opts.inline ? { inline: opts.inline } : {}),
    ...(opts.inlineSource ? { inlineSource: opts.inlineSource } : {}),
    ...(opts.dir ? { dir: opts.dir } : {}),
  });
  read.diagnoses.forEach((d) => report.diagnose(d));

  const { decls, declared, counts, protectedManagers } = decodeSources(
    read.sources,
    opts,
    report,
  );
  const ledger = await readLedger(opts.store, report);
  const unsettled = findUnsettledFiles({
    sources: read.sources,
    declared,
    stored: ledger.objects,
  });
  unsettled.diagnoses.forEach((d) => report.diagnose(d));
  unsettled.held.forEach((m) => protectedManagers.add(m));
  for (const source of read.sources) {
    report.sources.push({
      name: source.name,
      manager: source.manager,
      read: source.kind !== "unreadable",
      objects: counts.get(source.manager) ?? 0,
      protected: protectedManagers.has(source.manager),
    });
  }
  const ownerProtected = (owner: string) =>
    protectedManagers.has(owner) ||
    read.protectedPrefixes.some((p) => owner.startsWith(p));

  const winners = resolveDuplicates(decls, ledger, report);
  const kept = new Set<string>();
  for (const w of winners) {
    const cacheKey = `${w.source.manager}\n${w.decoded.name}`;
    kept.add(cacheKey);
    if (unsettled.held.has(w.source.manager)) continue;
    await applyWinner(opts, w, ledger, cacheKey, ownerProtected, report);
  }
  opts.cache.retain(kept);
  opts.decodeCache?.retain(new Set(read.sources.map((s) => s.name)));
  const declaredNames = new Set(decls.map((d) => d.decoded.name));
  await deleteUndeclared(opts, ledger, declaredNames, ownerProtected, report);
  return {
    ...report.finish(),
    ...(unsettled.retryAfterMs === undefined
      ? {}
      : { retryAfterMs: unsettled.retryAfterMs }),
  };
}

/** What the sources declare, per source too. */
interface Declarations {
  decls: Declaration[];
  /** Per manager, the names its source declares (the unsettled check). */
  declared: Map<string, Set<string>>;
  /** Per manager, the objects its source declares, duplicates included. */
  counts: Map<string, number>;
  /** Managers of sources unread or with an unidentifiable document. */
  protectedManagers: Set<string>;
}

function decodeSources(
  sources: readonly Source[],
  opts: LoadPassOptions,
  report: ReportBuilder,
): Declarations {
  const out: Declarations = {
    decls: [],
    declared: new Map(),
    counts: new Map(),
    protectedManagers: new Set(),
  };
  for (const source of sources) {
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
    if (source.kind === "unreadable" || decoded.unidentifiable > 0) {
      out.protectedManagers.add(source.manager);
    }
    const names = new Set(decoded.objects.map((d) => d.name));
    out.declared.set(source.manager, names);
    out.counts.set(source.manager, decoded.objects.length);
    for (const d of decoded.objects) out.decls.push({ source, decoded: d });
  }
  return out;
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

/**
 * One declaration per object. The file that manages the stored object keeps
 * it: a new file whose name sorts first must not take it over in silence.
 * For an object not stored yet (or managed elsewhere) the first declaration
 * wins: inline first, then files by name, then document order.
 */
function resolveDuplicates(
  decls: Declaration[],
  ledger: Ledger,
  report: ReportBuilder,
): Declaration[] {
  const byName = new Map<string, Declaration[]>();
  for (const d of decls) {
    const group = byName.get(d.decoded.name);
    if (group) group.push(d);
    else byName.set(d.decoded.name, [d]);
  }
  const winners: Declaration[] = [];
  for (const [name, group] of byName) {
    const owner = ledger.objects.get(name)?.metadata.managedBy;
    const winner = group.find((d) => d.source.manager === owner) ?? group[0]!;
    winners.push(winner);
    for (const d of group) if (d !== winner) reportDuplicate(d, winner, report);
  }
  return winners;
}

function reportDuplicate(
  d: Declaration,
  winner: Declaration,
  report: ReportBuilder,
): void {
  const where = winner.source === d.source
    ? `${winner.source.name} document ${winner.decoded.document}`
    : winner.source.name;
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
    hint:
      "declare each object once; the file that manages it keeps it, else the first declaration wins",
  });
  report.outcome({ ...at, result: "invalid" });
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
