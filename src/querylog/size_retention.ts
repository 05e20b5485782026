/**
 * Retention by size: when querylog.db passes retention.maxDBBytes, the log
 * gets shorter from its old end, raw events and rollups alike, until the
 * pages in use are under 90 % of the limit.
 *
 * Each step picks a cutoff minute and deletes everything before it: raw
 * events, the per-minute rollups, the per-hour domain rows of the hours
 * that end before it, then the dictionary entries (names, clients,
 * answers) only those rows named. A step spans a minute at first, then
 * about half of what the space the previous step freed says is still
 * needed (see nextSpan), and never more than `chunk` rows of any one table
 * (or one minute, or one hour of domain_hours, when those alone hold
 * more): small steps however dense the data, and little more deleted than
 * the limit needs. A flood of one-off names costs the oldest minutes, not
 * the whole history; a single minute larger than the limit goes whole.
 */
import type { DatabaseSync } from "node:sqlite";
import { C } from "./chunk_codec.ts";
import {
  DeletedReferences,
  deleteUnreferenced,
  sweepDictionaries,
} from "./dictionary_sweep.ts";
import { EventChunks } from "./event_chunks.ts";
import { deleteRollupsBefore } from "./rollup_retention.ts";
import {
  deleteEventsBelow,
  firstIdAtOrAfter,
  lastIdBefore,
  pruneEventMinutes,
  yieldTurn,
} from "./event_retention.ts";
import {
  DAY_MS,
  MINUTE_MS,
  minuteOf,
  ROLLUP_RETENTION_MS,
} from "./settings.ts";

/** Under size pressure, delete until the pages in use are under this share. */
export const SIZE_TARGET = 0.9;
/** Steps per run at most (each deletes up to `chunk` rows per table). */
const MAX_STEPS_PER_RUN = 1000;
const MINUTE_TABLES = [
  "status_minutes",
  "client_minutes",
  "domain_minutes",
  "upstream_minutes",
] as const;

export interface SizeTrimOptions {
  maxDbBytes: number;
  nowMinute: number;
  /** Rows per table per step at most (see the file comment). */
  chunk: number;
  /** Events deleted at most. */
  eventBudget: number;
  /** Called after dictionary rows were deleted: drop cached ids. */
  onDictionariesPruned?: () => void;
}

export interface SizeTrimReport {
  deletedEvents: number;
  deletedRollupRows: number;
  deletedDictionaryRows: number;
  /** The last cutoff: what is left is from this epoch minute on. */
  keptFromMinute: number | undefined;
}

/** Deletes the oldest rows until under SIZE_TARGET of the limit; see the file comment. */
export async function trimToSize(
  db: DatabaseSync,
  opts: SizeTrimOptions,
): Promise<SizeTrimReport> {
  const report: SizeTrimReport = {
    deletedEvents: 0,
    deletedRollupRows: 0,
    deletedDictionaryRows: 0,
    keptFromMinute: undefined,
  };
  const target = opts.maxDbBytes * SIZE_TARGET;
  const refs = new DeletedReferences();
  const pruned = (rows: number) => {
    report.deletedDictionaryRows += rows;
    if (rows > 0) opts.onDictionariesPruned?.();
  };
  let span = 1;
  let used = pageStats(db).usedBytes;
  for (
    let steps = 0;
    steps < MAX_STEPS_PER_RUN && used > target &&
    report.deletedEvents < opts.eventBudget;
    steps++
  ) {
    const step = nextStep(db, opts.chunk, span);
    if (step === undefined) {
      // No rows left, only dictionary entries: those nothing names go.
      pruned(sweepDictionaries(db, opts.nowMinute));
      break;
    }
    const events = await deleteEventsBelow(
      db,
      eventBound(db, step.cutoff, opts),
      opts.chunk,
      opts.eventBudget - report.deletedEvents,
      (rows, count) => refs.addEvents(rows, count),
    );
    const rollups = deleteRollupsBefore(db, step.cutoff, refs);
    pruneEventMinutes(db);
    const entries = deleteUnreferenced(db, refs, {
      nowMinute: opts.nowMinute,
      rollupsCoverEvents: rollupsCoverEvents(db, step.cutoff, opts.nowMinute),
    });
    pruned(entries);
    report.deletedEvents += events;
    report.deletedRollupRows += rollups;
    report.keptFromMinute = step.cutoff;
    if (events + rollups + entries === 0) break; // cannot happen; never spin
    const before = used;
    used = pageStats(db).usedBytes;
    span = nextSpan(span, before - used, step, used - target);
    await yieldTurn();
  }
  return report;
}

/**
 * Minutes the next step spans: doubled while steps free no page, else half
 * of what the last step's rate says the rest needs (a page is freed only
 * once all its rows are gone, so the rate rises as deleting goes on), at
 * most twice the last span.
 */
function nextSpan(
  span: number,
  freedBytes: number,
  last: Step,
  excessBytes: number,
): number {
  if (freedBytes <= 0) return 2 * span;
  const perMinute = freedBytes / (last.cutoff - last.oldest);
  return Math.max(
    1,
    Math.min(2 * span, Math.ceil(excessBytes / perMinute / 2)),
  );
}

/** The oldest minute with rows, and the cutoff of the next step. */
interface Step {
  oldest: number;
  cutoff: number;
}

/**
 * The next step: `span` minutes past the oldest minute with rows (at least
 * one), but not past the minute of any table's `chunk`-th oldest row;
 * undefined when every table is empty. A domain_hours row counts as its
 * hour's last minute: it goes once the cutoff passes its whole hour.
 */
function nextStep(
  db: DatabaseSync,
  chunk: number,
  span: number,
): Step | undefined {
  let oldest = Infinity;
  let cap = Infinity;
  const nth = (sql: string, n: number) => {
    const row = db.prepare(`${sql} LIMIT 1 OFFSET ?`).get(n);
    return row === undefined ? undefined : Number(Object.values(row)[0]);
  };
  const consider = (first: number | undefined, atChunk: number | undefined) => {
    if (first !== undefined) oldest = Math.min(oldest, first);
    if (atChunk !== undefined) cap = Math.min(cap, atChunk);
  };
  for (const table of MINUTE_TABLES) {
    const sql = `SELECT minute FROM ${table} ORDER BY minute`;
    consider(nth(sql, 0), nth(sql, chunk));
  }
  const hours = "SELECT hour * 60 + 59 FROM domain_hours ORDER BY hour";
  consider(nth(hours, 0), nth(hours, chunk));
  // Events by id: the oldest id's minute, and that of `chunk` ids later.
  const chunks = new EventChunks(db);
  const oldestId = chunks.oldestId();
  if (oldestId !== undefined) {
    const rows = chunks.rowsOf([oldestId, oldestId + chunk]);
    const minuteOfId = (id: number) => {
      const row = rows.get(id);
      return row === undefined ? undefined : minuteOf(row[C.time]!);
    };
    consider(
      minuteOfId(oldestId) ?? oldestEventMinute(db),
      minuteOfId(oldestId + chunk),
    );
  }
  if (oldest === Infinity) return undefined;
  return {
    oldest,
    cutoff: Math.max(oldest + 1, Math.min(oldest + span, cap)),
  };
}

/** event_minutes' oldest minute (when the oldest chunk does not decode). */
function oldestEventMinute(db: DatabaseSync): number | undefined {
  const row = db.prepare("SELECT min(minute) AS m FROM event_minutes").get();
  return row?.m === null || row?.m === undefined ? undefined : Number(row.m);
}

/**
 * Events below this id go with the cutoff: those of minutes before it,
 * including events of the last such minutes written a moment after the
 * first of the cutoff's (workers' batches interleave at minute edges);
 * events written much later than their time are not chased.
 */
function eventBound(
  db: DatabaseSync,
  cutoff: number,
  opts: SizeTrimOptions,
): number {
  const bound = firstIdAtOrAfter(db, cutoff, opts.nowMinute);
  const late = lastIdBefore(db, cutoff) + 1;
  return late > bound && late - bound <= opts.chunk ? late : bound;
}

/**
 * True when no event from before `cutoff` is left and `cutoff` is inside
 * the rollups' retention: every remaining event is in the rollups.
 */
function rollupsCoverEvents(
  db: DatabaseSync,
  cutoff: number,
  nowMinute: number,
): boolean {
  const oldest = oldestEventMinute(db);
  return (oldest === undefined || oldest >= cutoff) &&
    cutoff >= nowMinute - ROLLUP_RETENTION_MS / MINUTE_MS + DAY_MS / MINUTE_MS;
}

export interface PageStats {
  fileBytes: number;
  usedBytes: number;
  freePages: number;
}

export function pageStats(db: DatabaseSync): PageStats {
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
