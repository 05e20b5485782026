/**
 * Metrics of state the main thread holds, read when scraped or set by
 * their owners: the query log writer's queue and totals, and the snapshot
 * the workers answer from (age, version, zones, block-list rules).
 */
import client from "prom-client";
import { CallbackGauge } from "./bulk_metrics.ts";
import type { Registry } from "./registry.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import { MAX_LIST_LABELS } from "./query_metrics.ts";

/** What the query log writer reports. */
export interface QueryLogStats {
  /** Events waiting to be written now. */
  queued: number;
  /** Events written since the writer started. */
  written: number;
  /** Events dropped (queue full, write failed) since the writer started. */
  dropped: number;
  /** Of `dropped`, those lost to writes that failed (the rest found a queue full). */
  droppedWriteFailed?: number;
  /** Transactions that failed and were rolled back. */
  failedBatches?: number;
  /** Attempts to open querylog.db that failed. */
  failedOpens?: number;
  /** True while the query log cannot be written. */
  failing?: boolean;
  /** Reads that skipped an undecodable event chunk, in this process. */
  unreadableChunks?: number;
  /** Damaged querylog.db files moved aside and replaced while running. */
  damagedFilesReplaced?: number;
  /** Times querylog.db was deleted or replaced under the writer. */
  filesLostFromPath?: number;
}

/** Creates the query log and snapshot metrics. */
export function createStateMetrics(registry: Registry) {
  const registers = [registry];
  let source: (() => QueryLogStats) | undefined;
  /** Totals already added to the counters. */
  const counted = {
    written: 0,
    droppedQueueFull: 0,
    droppedWriteFailed: 0,
    failedBatches: 0,
    failedOpens: 0,
    unreadableChunks: 0,
    damagedFilesReplaced: 0,
    filesLostFromPath: 0,
  };

  // Registered first: when the writer gave a source, this gauge's collect
  // reads it at scrape time for every query log metric, before the
  // registry reads the counters.
  const queueDepth = new client.Gauge({
    name: "kudurru_querylog_queue_depth",
    help: "Query log events waiting to be written.",
    registers,
    collect() {
      if (source === undefined) return;
      try {
        set(source());
      } catch {
        // A failing source leaves the last values.
      }
    },
  });
  const written = new client.Counter({
    name: "kudurru_querylog_written_total",
    help: "Query log events written.",
    registers,
  });
  const dropped = new client.Counter({
    name: "kudurru_querylog_dropped_total",
    help:
      'Query log events dropped, by reason: "queue_full" (no room in the writer\'s or a listener worker\'s queue, as when the log cannot be written for long), "write_failed" (their batch failed three times, or was still unwritten at shutdown).',
    labelNames: ["reason"],
    registers,
  });
  for (const reason of ["queue_full", "write_failed"]) {
    dropped.inc({ reason }, 0);
  }
  const failedBatches = new client.Counter({
    name: "kudurru_querylog_failed_batches_total",
    help:
      "Query log transactions that failed and were rolled back; each is retried, and dropped after its third failure.",
    registers,
  });
  const failedOpens = new client.Counter({
    name: "kudurru_querylog_failed_opens_total",
    help:
      "Attempts to open querylog.db that failed (a full disk, a newer kudurru's file); each is tried again, at most a minute later.",
    registers,
  });
  const writeError = new client.Gauge({
    name: "kudurru_querylog_write_error",
    help:
      "1 while the query log cannot be written (querylog.db does not open, or writes failed since the last that worked), else 0.",
    registers,
  });
  const unreadable = new client.Counter({
    name: "kudurru_querylog_unreadable_chunks_total",
    help:
      "Reads of the query log that skipped a stored chunk of events because it did not decode (a damaged querylog.db).",
    registers,
  });

  const replaced = new client.Counter({
    name: "kudurru_querylog_damaged_files_replaced_total",
    help:
      "Times querylog.db was found damaged (at start or while running), moved aside and replaced with a new file.",
    registers,
  });

  const lostFromPath = new client.Counter({
    name: "kudurru_querylog_files_lost_total",
    help:
      "Times querylog.db was deleted or replaced while kudurru had it open; the writer then writes to the file at its path again (a new one, or a damaged one moved aside).",
    registers,
  });

  /** Advances a counter to a reported total; a smaller total means a new writer. */
  function advance(
    counter: client.Counter,
    key: keyof typeof counted,
    total: number | undefined,
    labels: Partial<Record<string, string>> = {},
  ): void {
    if (total === undefined || !Number.isFinite(total) || total < 0) return;
    const added = total >= counted[key] ? total - counted[key] : total;
    if (added > 0) counter.inc(labels, added);
    counted[key] = total;
  }

  function set(stats: QueryLogStats): void {
    if (Number.isFinite(stats.queued) && stats.queued >= 0) {
      queueDepth.set(stats.queued);
    }
    advance(written, "written", stats.written);
    const writeFailed = stats.droppedWriteFailed ?? 0;
    advance(dropped, "droppedQueueFull", stats.dropped - writeFailed, {
      reason: "queue_full",
    });
    advance(dropped, "droppedWriteFailed", writeFailed, {
      reason: "write_failed",
    });
    advance(failedBatches, "failedBatches", stats.failedBatches);
    advance(failedOpens, "failedOpens", stats.failedOpens);
    advance(unreadable, "unreadableChunks", stats.unreadableChunks);
    advance(replaced, "damagedFilesReplaced", stats.damagedFilesReplaced);
    advance(lostFromPath, "filesLostFromPath", stats.filesLostFromPath);
    if (stats.failing !== undefined) writeError.set(stats.failing ? 1 : 0);
  }

  let snapshot: () => Snapshot | undefined = () => undefined;
  new CallbackGauge({
    name: "kudurru_snapshot_age_seconds",
    help:
      "Seconds since the snapshot the listeners answer from was taken (absent before the first); a snapshot is taken when objects or lists change, so on a quiet server this grows without anything being wrong.",
    read: () => {
      const builtAt = snapshot()?.builtAt;
      if (builtAt === undefined) return undefined;
      return Math.max(0, Date.now() - Date.parse(builtAt)) / 1000;
    },
    registers,
  });
  new CallbackGauge({
    name: "kudurru_snapshot_version",
    help:
      "Version of the snapshot the listeners answer from (absent before the first); it goes up with every snapshot this process builds.",
    read: () => snapshot()?.version,
    registers,
  });
  new client.Gauge({
    name: "kudurru_zones",
    help: "Zones the listeners answer from, by type (primary, forward).",
    labelNames: ["type"],
    registers,
    collect() {
      const current = snapshot();
      if (current === undefined) return;
      // Two objects may claim one zone name; the listeners answer one.
      const names = (zones: { name: string }[]) =>
        new Set(zones.map((zone) => zone.name)).size;
      this.set({ type: "primary" }, names(current.zones));
      this.set({ type: "forward" }, names(current.forwardZones));
    },
  });
  new client.Gauge({
    name: "kudurru_blocklist_rules",
    help:
      `Rules compiled and in force per BlockList (at most ${MAX_LIST_LABELS} lists), labelled as in kudurru_blocked_total and the query log: its name, with "namespace/" outside the default namespace; a list still compiling shows its previous rules, a list not yet compiled none.`,
    labelNames: ["list"],
    registers,
    collect() {
      this.reset();
      const lists = snapshot()?.blocking?.lists ?? [];
      for (const list of lists.slice(0, MAX_LIST_LABELS)) {
        this.set({ list: list.name }, list.ruleCount);
      }
    },
  });

  return {
    setQueryLogStats: set,
    readQueryLogStatsFrom(read: () => QueryLogStats): void {
      source = read;
    },
    readSnapshotFrom(read: () => Snapshot | undefined): void {
      snapshot = read;
    },
  };
}
