/**
 * The retention sweep the writer runs every minute, with bounded work per
 * run (chunks of ids, yielding between them):
 *
 * 1. by age: raw events older than retention.raw (to the minute), rollups
 *    older than ROLLUP_RETENTION_MS, domain_minutes older than
 *    DOMAIN_MINUTES_RETENTION_MS (and folded into domain_hours);
 * 2. by size: when the file passes retention.maxDBBytes, the oldest raw
 *    events go in chunks until the pages in use are under 90 % of it. Only
 *    when no raw event is left, in this order: dictionary rows nothing
 *    refers to any more (a flood of one-off names leaves ~all of them), the
 *    oldest day of per-name rollups, the oldest day of the other rollups
 *    (the totals `kudurru stats` shows go last). Then `PRAGMA
 *    incremental_vacuum` gives the free pages back;
 * 3. once an hour, dictionary entries nothing can refer to any more.
 */
import type { DatabaseSync } from "node:sqlite";
import type { Logger } from "../log/logger.ts";
import { sweepDictionaries } from "./dictionary_sweep.ts";
import { readDomainHoursThrough } from "./domain_hours.ts";
import { EventChunks } from "./event_chunks.ts";
import {
  DAY_MS,
  DOMAIN_MINUTES_RETENTION_MS,
  HOUR_MS,
  MINUTE_MS,
  minuteOf,
  type RetentionLimits,
  ROLLUP_RETENTION_MS,
} from "./settings.ts";

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

/** Days of rollups deleted per run at most, when size forces it. */
const MAX_ROLLUP_DAYS_PER_RUN = 30;
/** Under size pressure, delete until the pages in use are under this share. */
const SIZE_TARGET = 0.9;
const ROLLUP_TABLES = [
  ["status_minutes", "minute"],
  ["client_minutes", "minute"],
  ["upstream_minutes", "minute"],
  ["domain_minutes", "minute"],
  ["domain_hours", "hour"],
] as const;
const PER_NAME_ROLLUPS = ROLLUP_TABLES.filter(([t]) => t.startsWith("domain"));
const TOTAL_ROLLUPS = ROLLUP_TABLES.filter(([t]) => !t.startsWith("domain"));

const yieldTurn = () => new Promise((r) => setTimeout(r, 0));

/** Runs one sweep; see the file comment. */
export async function runRetention(
  db: DatabaseSync,
  opts: RetentionOptions,
): Promise<RetentionReport> {
  const chunk = opts.chunk ?? 20_000;
  let eventBudget = opts.maxEventsPerRun ?? 1_000_000;
  const report: RetentionReport = {
    deletedEvents: 0,
    deletedRollupRows: 0,
    deletedDictionaryRows: 0,
    vacuumedPages: 0,
    fileBytes: 0,
    usedBytes: 0,
  };

  // 1. By age.
  const bound = firstIdAtOrAfter(db, minuteOf(opts.now - opts.limits.rawMs));
  const aged = await deleteEventsBelow(db, bound, chunk, eventBudget);
  report.deletedEvents += aged;
  eventBudget -= aged;
  report.deletedRollupRows += deleteOldRollups(db, opts.now);

  // 2. By size.
  const max = opts.limits.maxDbBytes;
  let pages = pageStats(db);
  if (pages.fileBytes > max) {
    let rollupDays = MAX_ROLLUP_DAYS_PER_RUN;
    while (pages.usedBytes > max * SIZE_TARGET && eventBudget > 0) {
      const range = eventIdRange(db);
      if (range === undefined) {
        const entries = deleteUnreferencedEntries(db);
        if (entries > 0) {
          report.deletedDictionaryRows += entries;
          opts.onDictionariesPruned?.();
        } else {
          const rows = rollupDays-- > 0 ? deleteOldestRollupDay(db) : 0;
          report.deletedRollupRows += rows;
          if (rows === 0) break;
        }
      } else {
        const perEvent = pages.usedBytes / (range.next - range.oldest);
        const excess = pages.usedBytes - max * SIZE_TARGET;
        const want = Math.min(
          eventBudget,
          Math.max(chunk, Math.ceil(excess / perEvent)),
        );
        const n = await deleteEventsBelow(
          db,
          range.oldest + want,
          chunk,
          want,
        );
        report.deletedEvents += n;
        eventBudget -= n;
      }
      pages = pageStats(db);
      await yieldTurn();
    }
    opts.logger.warn("Query log over its size limit; deleted the oldest rows", {
      maxDBBytes: max,
      deletedEvents: report.deletedEvents,
      deletedRollupRows: report.deletedRollupRows,
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
  pages = pageStats(db);
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

/**
 * The first id of any event at or after `minute`: every event below it is
 * older than that minute (ids follow write order, times almost).
 */
function firstIdAtOrAfter(db: DatabaseSync, minute: number): number {
  const row = db.prepare(
    "SELECT min(first_id) AS id FROM event_minutes WHERE minute >= ?",
  ).get(minute);
  if (row?.id !== null && row?.id !== undefined) return Number(row.id);
  return nextEventId(db);
}

function nextEventId(db: DatabaseSync): number {
  const row = db.prepare(
    "SELECT value FROM meta WHERE key = 'next_event_id'",
  ).get();
  return Number(row?.value ?? 1);
}

/** The oldest event id and the next one to be written; undefined when empty. */
function eventIdRange(
  db: DatabaseSync,
): { oldest: number; next: number } | undefined {
  const chunks = new EventChunks(db);
  const oldest = chunks.oldestId();
  if (oldest === undefined) return undefined;
  const newest = chunks.newestId() ?? oldest;
  return { oldest, next: Math.max(nextEventId(db), newest + 1) };
}

/**
 * Deletes events with id < `bound`, oldest first, at most `chunk` ids per
 * step (whole event chunks, and the one a step ends in is cut).
 */
async function deleteEventsBelow(
  db: DatabaseSync,
  bound: number,
  chunk: number,
  budget: number,
): Promise<number> {
  const chunks = new EventChunks(db);
  let deleted = 0;
  while (deleted < budget) {
    const oldest = chunks.oldestId();
    if (oldest === undefined || oldest >= bound) break;
    const upper = Math.min(bound, oldest + Math.min(chunk, budget - deleted));
    deleted += atomically(db, () => chunks.deleteBelow(upper));
    await yieldTurn();
  }
  return deleted;
}

/**
 * Runs `body` as one unit: cutting a chunk deletes it and inserts its rest,
 * and a crash in between must not lose the rest. A savepoint, so it also
 * works inside a caller's transaction.
 */
function atomically<T>(db: DatabaseSync, body: () => T): T {
  db.exec("SAVEPOINT retention_step");
  try {
    const result = body();
    db.exec("RELEASE retention_step");
    return result;
  } catch (err) {
    db.exec("ROLLBACK TO retention_step; RELEASE retention_step");
    throw err;
  }
}

/** Drops event_minutes rows whose events are all gone. */
function pruneEventMinutes(db: DatabaseSync): void {
  const oldest = new EventChunks(db).oldestId() ?? nextEventId(db);
  db.prepare("DELETE FROM event_minutes WHERE last_id < ?").run(oldest);
}

/** Rollups past their retention; at most a week of them per run. */
function deleteOldRollups(db: DatabaseSync, now: number): number {
  let deleted = 0;
  for (const [table, bucket] of ROLLUP_TABLES) {
    const unit = bucket === "hour" ? HOUR_MS : MINUTE_MS;
    const keep = table === "domain_minutes"
      ? DOMAIN_MINUTES_RETENTION_MS
      : ROLLUP_RETENTION_MS;
    let cutoff = Math.floor((now - keep) / unit);
    if (table === "domain_minutes") {
      // Readers take minute rows from the first hour not yet folded.
      cutoff = Math.min(
        cutoff,
        Math.floor(readDomainHoursThrough(db) / 60) * 60,
      );
    }
    const oldest = db.prepare(`SELECT min(${bucket}) AS b FROM ${table}`).get();
    if (oldest?.b === null || oldest?.b === undefined) continue;
    const upper = Math.min(cutoff, Number(oldest.b) + (7 * DAY_MS) / unit);
    deleted += Number(
      db.prepare(`DELETE FROM ${table} WHERE ${bucket} < ?`).run(upper).changes,
    );
  }
  return deleted;
}

/**
 * Size pressure with no raw events left: names no per-name rollup refers
 * to, and every answer text (only events refer to those). Nothing stored
 * refers to them, and the caller makes the writer forget the ids it holds.
 */
function deleteUnreferencedEntries(db: DatabaseSync): number {
  const names = db.prepare(
    `DELETE FROM names WHERE id NOT IN (SELECT name FROM domain_minutes)
       AND id NOT IN (SELECT name FROM domain_hours)`,
  ).run().changes;
  const answers = db.prepare("DELETE FROM answers").run().changes;
  return Number(names) + Number(answers);
}

/**
 * Size pressure with no raw events left: the oldest day of the per-name
 * rollups while there are any (the largest, and what a flood of names
 * fills), then of the others.
 */
function deleteOldestRollupDay(db: DatabaseSync): number {
  return deleteOldestDayOf(db, PER_NAME_ROLLUPS) ||
    deleteOldestDayOf(db, TOTAL_ROLLUPS);
}

function deleteOldestDayOf(
  db: DatabaseSync,
  tables: readonly (typeof ROLLUP_TABLES)[number][],
): number {
  let oldestMinute = Infinity;
  for (const [table, bucket] of tables) {
    const row = db.prepare(`SELECT min(${bucket}) AS b FROM ${table}`).get();
    if (row?.b === null || row?.b === undefined) continue;
    const minute = bucket === "hour" ? Number(row.b) * 60 : Number(row.b);
    oldestMinute = Math.min(oldestMinute, minute);
  }
  if (oldestMinute === Infinity) return 0;
  const cutoffMinute = oldestMinute + DAY_MS / MINUTE_MS;
  let deleted = 0;
  for (const [table, bucket] of tables) {
    const cutoff = bucket === "hour"
      ? Math.floor(cutoffMinute / 60)
      : cutoffMinute;
    deleted += Number(
      db.prepare(`DELETE FROM ${table} WHERE ${bucket} < ?`).run(cutoff)
        .changes,
    );
  }
  return deleted;
}

interface PageStats {
  fileBytes: number;
  usedBytes: number;
  freePages: number;
}

function pageStats(db: DatabaseSync): PageStats {
  const pragma = (name: string) =>
    Number(Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0] ?? 0);
  const pageSize = pragma("page_size");
  const pageCount = pragma("page_count");
  const freePages = pragma("freelist_count");
  return {
    fileBytes: pageCount * pageSize,
    usedBytes: (pageCount - freePages) * pageSize,
    freePages,
  };
}
