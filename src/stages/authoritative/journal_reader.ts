/**
 * The zone journal as a listener worker reads it for IXFR: the leader's
 * SQLite file (src/zone/journal.ts) opened read-only on first use, and kept
 * open. A file that cannot be opened is tried again a minute later;
 * meanwhile IXFR answers with the whole zone.
 */
import { DatabaseSync } from "node:sqlite";
import { ZoneJournal } from "../../zone/journal.ts";
import type { JournalLookup } from "./zone_transfer.ts";

const RETRY_MS = 60_000;

/** A JournalLookup that opens each path once. */
export function journalReader(now: () => number = Date.now): JournalLookup {
  let open:
    | { path: string; db: DatabaseSync; journal: ZoneJournal }
    | undefined;
  let failed: { path: string; at: number } | undefined;
  return (path) => {
    if (open?.path === path) return open.journal;
    if (failed?.path === path && now() - failed.at < RETRY_MS) return undefined;
    let db: DatabaseSync | undefined;
    try {
      db = new DatabaseSync(path, { readOnly: true });
      db.exec("PRAGMA busy_timeout = 1000");
      const journal = new ZoneJournal(db);
      open?.db.close();
      open = { path, db, journal };
      failed = undefined;
      return journal;
    } catch {
      db?.close();
      failed = { path, at: now() };
      return undefined;
    }
  };
}
