/**
 * Deleting rollup rows: by age (each table past its retention) and, for
 * size retention, everything before a cutoff minute.
 */
import type { DatabaseSync } from "node:sqlite";
import type { DeletedReferences } from "./dictionary_sweep.ts";
import { readDomainHoursThrough } from "./domain_hours.ts";
import {
  DAY_MS,
  DOMAIN_MINUTES_RETENTION_MS,
  HOUR_MS,
  MINUTE_MS,
  ROLLUP_RETENTION_MS,
} from "./settings.ts";

const ROLLUP_TABLES = [
  ["status_minutes", "minute"],
  ["client_minutes", "minute"],
  ["upstream_minutes", "minute"],
  ["domain_minutes", "minute"],
  ["domain_hours", "hour"],
] as const;

/** Rollups past their retention; at most a week of them per run. */
export function deleteOldRollups(db: DatabaseSync, now: number): number {
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
 * Deletes every rollup row before minute `cutoff` and adds the names and
 * clients they named to `refs`. domain_hours loses the hours before the
 * cutoff's, and from the cutoff's own hour what its deleted minute rows
 * had added: a name asked only before the cutoff is named by nothing.
 */
export function deleteRollupsBefore(
  db: DatabaseSync,
  cutoff: number,
  refs: DeletedReferences,
): number {
  const run = (sql: string, bound: number, into?: Set<number>) => {
    const rows = db.prepare(sql).all(bound);
    if (into !== undefined) {
      for (const row of rows) into.add(Number(Object.values(row)[0]));
    }
    return rows.length;
  };
  const hour = Math.floor(cutoff / 60);
  const folded = Math.min(cutoff, readDomainHoursThrough(db));
  return run(
    "DELETE FROM status_minutes WHERE minute < ? RETURNING 1",
    cutoff,
  ) +
    run("DELETE FROM upstream_minutes WHERE minute < ? RETURNING 1", cutoff) +
    run(
      "DELETE FROM client_minutes WHERE minute < ? RETURNING client",
      cutoff,
      refs.clients,
    ) +
    unfoldMinutes(db, hour, folded) +
    run(
      "DELETE FROM domain_minutes WHERE minute < ? RETURNING name",
      cutoff,
      refs.names,
    ) +
    run(
      "DELETE FROM domain_hours WHERE hour < ? RETURNING name",
      hour,
      refs.names,
    );
}

/**
 * Takes the domain_minutes rows of `hour` before minute `until` (all
 * folded) back out of that hour's domain_hours rows; rows left with no
 * query go. Returns how many went.
 */
function unfoldMinutes(db: DatabaseSync, hour: number, until: number): number {
  if (until <= hour * 60) return 0;
  const emptied = db.prepare(
    `UPDATE domain_hours SET queries = domain_hours.queries - m.queries,
       blocked = domain_hours.blocked - m.blocked
     FROM (SELECT name, sum(queries) AS queries, sum(blocked) AS blocked
           FROM domain_minutes WHERE minute >= ? AND minute < ?
           GROUP BY name) AS m
     WHERE domain_hours.hour = ? AND domain_hours.name = m.name
     RETURNING domain_hours.name AS name, domain_hours.queries AS queries`,
  ).all(hour * 60, until, hour).filter((r) => Number(r.queries) <= 0);
  if (emptied.length === 0) return 0;
  return Number(
    db.prepare(
      `DELETE FROM domain_hours WHERE hour = ?
         AND name IN (SELECT value FROM json_each(?))`,
    ).run(hour, JSON.stringify(emptied.map((r) => Number(r.name)))).changes,
  );
}
