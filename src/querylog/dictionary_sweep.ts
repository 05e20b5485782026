/**
 * Removes dictionary entries nothing can refer to any more, so a flood of
 * one-off names (random-subdomain attacks, DGA malware) or of spoofed
 * clients does not grow querylog.db for ever. An entry's `last_used` lags
 * its real last use by at most LAST_USED_SLACK_MINUTES, so an entry whose
 * last_used is older than every row that could refer to it, minus that
 * slack, is unused.
 *
 * Two ways in: once an hour every dictionary is swept that way
 * (sweepDictionaries); and size retention hands over the entries the rows
 * it just deleted named (deleteUnreferenced), which, for names and
 * clients, are also checked against the rollups that would name them if
 * anything still did: an entry used only in the last hour can go at once.
 */
import type { DatabaseSync } from "node:sqlite";
import { C, COLUMNS } from "./chunk_codec.ts";
import { LAST_USED_SLACK_MINUTES } from "./dictionary.ts";

/** Rows deleted per dictionary per sweep at most. */
const MAX_ROWS_PER_SWEEP = 100_000;

/** Label kinds seeded by the schema: never removed. */
const SEEDED_KINDS = ["status", "stage", "transport"];

/**
 * For each dictionary, the oldest minute of anything that can refer to it
 * (`nowMinute` when nothing does).
 */
function oldestReferences(db: DatabaseSync, nowMinute: number) {
  const oldest = (sql: string) => {
    const row = db.prepare(sql).get();
    const value = row === undefined ? null : Object.values(row)[0];
    return value === null || value === undefined ? nowMinute : Number(value);
  };
  const events = oldest("SELECT min(minute) FROM event_minutes");
  return {
    names: Math.min(
      events,
      oldest("SELECT min(minute) FROM domain_minutes"),
      oldest("SELECT min(hour) * 60 FROM domain_hours"),
    ),
    clients: Math.min(events, oldest("SELECT min(minute) FROM client_minutes")),
    answers: events,
    labels: Math.min(
      events,
      oldest("SELECT min(minute) FROM upstream_minutes"),
    ),
  };
}

/** Entries last used before this minute are unused, given the oldest reference. */
const unusedBefore = (oldestRef: number) =>
  oldestRef - LAST_USED_SLACK_MINUTES - 1;

/** Sweeps every dictionary; returns how many rows went. `nowMinute` bounds an empty log. */
export function sweepDictionaries(db: DatabaseSync, nowMinute: number): number {
  const oldest = oldestReferences(db, nowMinute);
  const sweep = (table: string, oldestRef: number, extra = "") =>
    Number(
      db.prepare(
        `DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table}
           WHERE last_used < ? ${extra} LIMIT ${MAX_ROWS_PER_SWEEP})`,
      ).run(unusedBefore(oldestRef)).changes,
    );
  const seeded = SEEDED_KINDS.map((k) => `'${k}'`).join(", ");
  return sweep("names", oldest.names) +
    sweep("clients", oldest.clients) +
    sweep("answers", oldest.answers) +
    sweep("labels", oldest.labels, `AND kind NOT IN (${seeded})`);
}

/** Dictionary ids that deleted rows named: maybe unused now. */
export class DeletedReferences {
  readonly names = new Set<number>();
  readonly clients = new Set<number>();
  readonly answers = new Set<number>();

  /** Adds the ids named by `count` event rows (chunk_codec columns). */
  addEvents(rows: Float64Array, count: number): void {
    for (let i = 0; i < count; i++) {
      const at = i * COLUMNS;
      this.names.add(rows[at + C.qname]!);
      this.clients.add(rows[at + C.client]!);
      const answer = rows[at + C.answer]!;
      if (answer !== 0) this.answers.add(answer);
    }
  }
}

/**
 * How many hours of domain_hours a name may be checked in, one lookup
 * each: the rows that could name an entry lie between the oldest hour and
 * its last_used plus the slack, a span this short when the entry was last
 * used where size retention is deleting.
 */
const MAX_HOURS_CHECKED = 4;

export interface DeleteUnreferencedOptions {
  nowMinute: number;
  /**
   * Every remaining event has its client in client_minutes and its name in
   * domain_minutes or domain_hours (no event older than the rows deleted is
   * left): entries those rollups do not name are unused whatever their
   * last_used says.
   */
  rollupsCoverEvents: boolean;
}

/**
 * Deletes the entries of `refs` nothing refers to any more and takes them
 * out of `refs`; under `rollupsCoverEvents` names and clients are decided
 * for good (those kept are in use), the others stay for a later call.
 * Returns how many rows went.
 */
export function deleteUnreferenced(
  db: DatabaseSync,
  refs: DeletedReferences,
  opts: DeleteUnreferencedOptions,
): number {
  const oldest = oldestReferences(db, opts.nowMinute);
  const exact = opts.rollupsCoverEvents ? 1 : 0;
  const deleted = deleteIn(
    db,
    "names",
    refs.names,
    `last_used < ? OR (? AND ${namedByNoRollup(db)})`,
    unusedBefore(oldest.names),
    exact,
  ) + deleteIn(
    db,
    "clients",
    refs.clients,
    `last_used < ? OR (? AND NOT EXISTS
       (SELECT 1 FROM client_minutes WHERE client = clients.id))`,
    unusedBefore(oldest.clients),
    exact,
  ) + deleteIn(
    db,
    "answers",
    refs.answers,
    "last_used < ?",
    unusedBefore(oldest.answers),
  );
  if (opts.rollupsCoverEvents) {
    refs.names.clear();
    refs.clients.clear();
  }
  return deleted;
}

/**
 * SQL, true for a `names` row no per-name rollup names: no domain_minutes
 * row, and no domain_hours row in the hours that could hold one (from the
 * oldest to that of last_used plus the slack, when that is at most
 * MAX_HOURS_CHECKED hours, one lookup each; else it counts as named).
 */
function namedByNoRollup(db: DatabaseSync): string {
  const noMinutes =
    "NOT EXISTS (SELECT 1 FROM domain_minutes WHERE name = names.id)";
  const first = db.prepare("SELECT min(hour) AS h FROM domain_hours").get()?.h;
  if (first === null || first === undefined) return noMinutes;
  const hours = Array.from(
    { length: MAX_HOURS_CHECKED },
    (_, i) => Number(first) + i,
  );
  return `${noMinutes}
    AND (last_used + ${LAST_USED_SLACK_MINUTES}) / 60 <= ${hours.at(-1)}
    AND NOT EXISTS (SELECT 1 FROM domain_hours
      WHERE hour IN (${hours.join(", ")}) AND name = names.id)`;
}

/** Deletes the rows of `ids` that match `unused`; removes them from `ids`. */
function deleteIn(
  db: DatabaseSync,
  table: string,
  ids: Set<number>,
  unused: string,
  ...params: number[]
): number {
  if (ids.size === 0) return 0;
  const gone = db.prepare(
    `DELETE FROM ${table} WHERE id IN (SELECT value FROM json_each(?))
       AND (${unused}) RETURNING id`,
  ).all(JSON.stringify([...ids]), ...params);
  for (const row of gone) ids.delete(Number(row.id));
  return gone.length;
}
