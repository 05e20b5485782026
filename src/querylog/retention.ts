/**
 * The retention sweep the writer runs every minute, with bounded work per
 * run (chunks of ids, yielding between them):
 *
 * 1. by age: raw events older than retention.raw (to the minute), rollups
 *    older than ROLLUP_RETENTION_MS, domain_minutes older than
 *    DOMAIN_MINUTES_RETENTION_MS (and folded into domain_hours);
 * 2. by size: when the file passes retention.maxDBBytes, the oldest rows,
 *    raw events and rollups alike, and the dictionary entries only they
 *    named, until the pages in use are under 90 % of it
 *    (size_retention.ts). Then `PRAGMA incremental_vacuum` gives the free
 *    pages back;
 * 3. once an hour, dictionary entries nothing can refer to any more.
 */
import type { DatabaseSync } from "node:sqlite";
import type { Logger } from "../log/logger.ts";
import { sweepDictionaries } from "./dictionary_sweep.ts";
import {
  deleteEventsBelow,
  firstIdAtOrAfter,
  pruneEventMinutes,
} from "./event_retention.ts";
import { deleteOldRollups } from "./rollup_retention.ts";
import {
  HOUR_MS,
  MINUTE_MS,
  minuteOf,
  type RetentionLimits,
} from "./settings.ts";
import { pageStats, SIZE_TARGET, trimToSize } from "./size_retention.ts";

export interface RetentionOptions {
  now: number;
  limits: RetentionLimits;
  /** Kept by the caller between runs. */
  state: RetentionState;
  logger: Logger;
  /** Called after dictionary rows were deleted: drop cached ids. */
  onDictionariesPruned?: () => void;
  /** Ids deleted per step (between two yields). @default 20_000 */
  chunk?: number;
  /** Events deleted per run at most. @default 1_000_000 */
  maxEventsPerRun?: number;
  /** Pages given back per run at most. @default 65_536 */
  maxVacuumPages?: number;
}

export interface RetentionState {
  /** When the dictionaries were last swept (ms). */
  lastDictionarySweep?: number;
}

export interface RetentionReport {
  deletedEvents: number;
  deletedRollupRows: number;
  deletedDictionaryRows: number;
  vacuumedPages: number;
  /** page_count × page_size after the run. */
  fileBytes: number;
  /** Pages in use × page_size after the run. */
  usedBytes: number;
}

/** What a sweep that did not run reports (the file was not open). */
export const NO_RETENTION: Readonly<RetentionReport> = {
  deletedEvents: 0,
  deletedRollupRows: 0,
  deletedDictionaryRows: 0,
  vacuumedPages: 0,
  fileBytes: 0,
  usedBytes: 0,
};

/** Runs one sweep; see the file comment. */
export async function runRetention(
  db: DatabaseSync,
  opts: RetentionOptions,
): Promise<RetentionReport> {
  const chunk = opts.chunk ?? 20_000;
  let eventBudget = opts.maxEventsPerRun ?? 1_000_000;
  const report: RetentionReport = { ...NO_RETENTION };

  // 1. By age.
  const nowMinute = minuteOf(opts.now);
  const bound = firstIdAtOrAfter(
    db,
    minuteOf(opts.now - opts.limits.rawMs),
    nowMinute,
  );
  const aged = await deleteEventsBelow(db, bound, chunk, eventBudget);
  report.deletedEvents += aged;
  eventBudget -= aged;
  report.deletedRollupRows += deleteOldRollups(db, opts.now);

  // 2. By size.
  const max = opts.limits.maxDbBytes;
  if (pageStats(db).fileBytes > max) {
    const trimmed = await trimToSize(db, {
      maxDbBytes: max,
      nowMinute,
      chunk,
      eventBudget,
      ...(opts.onDictionariesPruned
        ? { onDictionariesPruned: opts.onDictionariesPruned }
        : {}),
    });
    report.deletedEvents += trimmed.deletedEvents;
    report.deletedRollupRows += trimmed.deletedRollupRows;
    report.deletedDictionaryRows += trimmed.deletedDictionaryRows;
    opts.logger.warn("Query log over its size limit; deleted the oldest rows", {
      maxDBBytes: max,
      deletedEvents: trimmed.deletedEvents,
      deletedRollupRows: trimmed.deletedRollupRows,
      deletedDictionaryRows: trimmed.deletedDictionaryRows,
      keptFrom: trimmed.keptFromMinute === undefined
        ? undefined
        : new Date(trimmed.keptFromMinute * MINUTE_MS).toISOString(),
    });
  }
  pruneEventMinutes(db);

  // 3. Dictionaries, hourly.
  const last = opts.state.lastDictionarySweep ?? -Infinity;
  if (opts.now - last >= HOUR_MS) {
    opts.state.lastDictionarySweep = opts.now;
    const swept = sweepDictionaries(db, minuteOf(opts.now));
    report.deletedDictionaryRows += swept;
    if (swept > 0) opts.onDictionariesPruned?.();
  }

  // Give free pages back once the file is near its limit.
  let pages = pageStats(db);
  if (pages.freePages > 0 && pages.fileBytes > max * SIZE_TARGET) {
    const n = Math.min(pages.freePages, opts.maxVacuumPages ?? 65_536);
    // Each step frees one page: exec() and run() would stop after the first.
    db.prepare(`PRAGMA incremental_vacuum(${n})`).all();
    report.vacuumedPages = pages.freePages - pageStats(db).freePages;
    pages = pageStats(db);
  }
  report.fileBytes = pages.fileBytes;
  report.usedBytes = pages.usedBytes;
  return report;
}
