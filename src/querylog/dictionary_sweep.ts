/**
 * Removes dictionary entries nothing can refer to any more, so a flood of
 * one-off names (random-subdomain attacks, DGA malware) does not grow
 * querylog.db for ever. An entry's `last_used` lags its real last use by at
 * most LAST_USED_SLACK_MINUTES, so an entry whose last_used is older than
 * every row that could refer to it, minus that slack, is unused.
 */
import type { DatabaseSync } from "node:sqlite";
import { LAST_USED_SLACK_MINUTES } from "./dictionary.ts";

/** Rows deleted per dictionary per sweep at most. */
const MAX_ROWS_PER_SWEEP = 100_000;

/** Label kinds seeded by the schema: never removed. */
const SEEDED_KINDS = ["status", "stage", "transport"];

/** Sweeps every dictionary; returns how many rows went. `nowMinute` bounds an empty log. */
export function sweepDictionaries(db: DatabaseSync, nowMinute: number): number {
  const oldest = (sql: string) => {
    const row = db.prepare(sql).get();
    const value = row === undefined ? null : Object.values(row)[0];
    return value === null || value === undefined ? nowMinute : Number(value);
  };
  const events = oldest("SELECT min(minute) FROM event_minutes");
  const clientRollups = oldest("SELECT min(minute) FROM client_minutes");
  const domainMinutes = oldest("SELECT min(minute) FROM domain_minutes");
  const domainHours = oldest("SELECT min(hour) * 60 FROM domain_hours");
  const upstreams = oldest("SELECT min(minute) FROM upstream_minutes");

  const sweep = (table: string, oldestRef: number, extra = "") => {
    const cutoff = oldestRef - LAST_USED_SLACK_MINUTES - 1;
    return Number(
      db.prepare(
        `DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table}
           WHERE last_used < ? ${extra} LIMIT ${MAX_ROWS_PER_SWEEP})`,
      ).run(cutoff).changes,
    );
  };
  const seeded = SEEDED_KINDS.map((k) => `'${k}'`).join(", ");
  return sweep("names", Math.min(events, domainMinutes, domainHours)) +
    sweep("clients", Math.min(events, clientRollups)) +
    sweep("answers", events) +
    sweep(
      "labels",
      Math.min(events, upstreams),
      `AND kind NOT IN (${seeded})`,
    );
}
