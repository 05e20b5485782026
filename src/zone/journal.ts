/**
 * The zone journal: for each primary zone, the chain of differences between
 * the serials the leader stamped on it, kept in SQLite so that an IXFR
 * (RFC 1995) can be answered after a restart. Each entry is one
 * {@linkcode ZoneDiff} as a binary blob (journal_blob.ts).
 *
 * The chain must be unbroken to answer: entry n+1 starts at the serial
 * entry n ends at. A difference that starts elsewhere (a restored
 * database, a serial set by hand) drops the older entries of its zone
 * first; the same step recorded twice (same serials) replaces the first.
 * Entries are trimmed oldest first, at each record, to a size cap
 * (diffSize) and an age; an entry alone over the size cap is not kept at
 * all, and IXFR from before it falls back to AXFR (RFC 1995 §4).
 *
 * A blob that does not decode (a damaged file) makes since() answer
 * undefined, as when the journal lacks the serial; the zone's entries are
 * then dropped, so the chain starts anew at the next record and the
 * damage is reported once, through `onDamaged`.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { serialGreater } from "../dns/serial_number.ts";
import { isDamagedDatabaseError } from "../sqlite/damaged_file.ts";
import { type Migration, rollback } from "../sqlite/migrations.ts";
import { WireFormatError } from "../dns/wire/wire_format_error.ts";
import { decodeDiff, encodeDiff } from "./journal_blob.ts";
import { diffSize, type ZoneDiff } from "./zone_diff.ts";

/**
 * The journal's table: one row per difference, in the order recorded
 * (`id`). `bytes` is the entry's diffSize, summed against the size cap
 * without reading the blobs; `recorded_at` is ms since the epoch.
 */
export const JOURNAL_SCHEMA_SQL = `
CREATE TABLE zone_journal (
  id          INTEGER PRIMARY KEY,
  zone        TEXT    NOT NULL,
  from_serial INTEGER NOT NULL,
  to_serial   INTEGER NOT NULL,
  recorded_at INTEGER NOT NULL,
  bytes       INTEGER NOT NULL,
  diff        BLOB    NOT NULL
);
CREATE INDEX zone_journal_by_zone ON zone_journal (zone, id);
`;

/** The migration step that adds the journal's table, as schema version `to`. */
export function journalMigration(to: number): Migration {
  return {
    to,
    description: "zone_journal table for IXFR",
    up: (db) => db.exec(JOURNAL_SCHEMA_SQL),
  };
}

export interface ZoneJournalOptions {
  /** Cap on one zone's entries, in diffSize octets. @default 16 MiB */
  maxBytesPerZone?: number;
  /** Entries older than this go at the next record. @default 14 days */
  maxAgeMs?: number;
  /** @default Date.now */
  now?: () => number;
  /** Told when a zone's entries cannot be read; they are dropped after. */
  onDamaged?: (zone: string, error: unknown) => void;
}

/** What the journal holds for one zone (status and metrics). */
export interface ZoneJournalStats {
  entries: number;
  /** Sum of the entries' diffSize. */
  bytes: number;
  /** The oldest serial an IXFR can start from; absent when empty. */
  oldestSerial?: number;
}

const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
const DEFAULT_MAX_AGE_MS = 14 * 24 * 60 * 60 * 1000;

/** The persisted chain of each zone's differences. */
export class ZoneJournal {
  readonly #db: DatabaseSync;
  readonly #maxBytes: number;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  readonly #onDamaged: (zone: string, error: unknown) => void;
  readonly #last: StatementSync;
  readonly #insert: StatementSync;
  readonly #entries: StatementSync;
  readonly #blobs: StatementSync;
  readonly #dropUpTo: StatementSync;
  readonly #dropZone: StatementSync;
  readonly #dropEntry: StatementSync;
  readonly #stats: StatementSync;

  /** `db` must hold the table of {@linkcode JOURNAL_SCHEMA_SQL}. */
  constructor(db: DatabaseSync, opts: ZoneJournalOptions = {}) {
    this.#db = db;
    this.#maxBytes = opts.maxBytesPerZone ?? DEFAULT_MAX_BYTES;
    this.#maxAgeMs = opts.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    this.#now = opts.now ?? Date.now;
    this.#onDamaged = opts.onDamaged ?? (() => {});
    this.#last = db.prepare(
      `SELECT id, from_serial, to_serial FROM zone_journal WHERE zone = ?
       ORDER BY id DESC LIMIT 1`,
    );
    this.#insert = db.prepare(
      `INSERT INTO zone_journal (zone, from_serial, to_serial, recorded_at, bytes, diff)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.#entries = db.prepare(
      `SELECT id, from_serial, to_serial, recorded_at, bytes FROM zone_journal
       WHERE zone = ? ORDER BY id DESC`,
    );
    this.#blobs = db.prepare(
      `SELECT diff FROM zone_journal WHERE zone = ? AND id BETWEEN ? AND ?
       ORDER BY id`,
    );
    this.#dropUpTo = db.prepare(
      "DELETE FROM zone_journal WHERE zone = ? AND id <= ?",
    );
    this.#dropZone = db.prepare("DELETE FROM zone_journal WHERE zone = ?");
    this.#dropEntry = db.prepare("DELETE FROM zone_journal WHERE id = ?");
    this.#stats = db.prepare(
      `SELECT count(*) AS entries, coalesce(sum(bytes), 0) AS bytes,
         (SELECT from_serial FROM zone_journal WHERE zone = ?1 ORDER BY id LIMIT 1) AS oldest
       FROM zone_journal WHERE zone = ?1`,
    );
  }

  /**
   * Appends the difference that took `zone` to a new serial, then trims.
   * Runs in its own transaction.
   *
   * @throws {RangeError} when diff.toSerial is not greater than
   *   diff.fromSerial (RFC 1982): such a chain could not be followed
   */
  record(zone: string, diff: ZoneDiff): void {
    if (!serialGreater(diff.toSerial, diff.fromSerial)) {
      throw new RangeError(
        `Cannot record a difference of zone "${zone}" from serial ${diff.fromSerial} to ${diff.toSerial}: the serial must increase`,
      );
    }
    const bytes = diffSize(diff, { limit: this.#maxBytes });
    const blob = bytes > this.#maxBytes ? undefined : encodeDiff(diff);
    const now = this.#now();
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const last = this.#last.get(zone);
      // The same step again (a retry, or a restore one step back): the new
      // entry replaces it, and the chain before it still leads here.
      const again = last !== undefined &&
        Number(last.from_serial) === diff.fromSerial &&
        Number(last.to_serial) === diff.toSerial;
      const gap = last !== undefined && !again &&
        Number(last.to_serial) !== diff.fromSerial;
      // After a gap, or an entry too big to keep, what is there leads nowhere.
      if (gap || blob === undefined) this.#dropZone.run(zone);
      else if (again) this.#dropEntry.run(Number(last.id));
      if (blob !== undefined) {
        this.#insert.run(
          zone,
          diff.fromSerial,
          diff.toSerial,
          now,
          bytes,
          blob,
        );
        this.#trim(zone, now);
      }
      this.#db.exec("COMMIT");
    } catch (error) {
      rollback(this.#db);
      throw error;
    }
  }

  /**
   * The differences that take `zone` from `serial` to `currentSerial`, in
   * order: `[]` when `serial` is `currentSerial` or newer (RFC 1995 §2: the
   * reply is the current SOA alone); undefined when the journal cannot
   * answer (no entry starts at `serial`, the chain stops short of
   * `currentSerial`, or an entry is damaged), and the caller sends AXFR.
   */
  since(
    zone: string,
    serial: number,
    currentSerial: number,
  ): ZoneDiff[] | undefined {
    if (serial === currentSerial || serialGreater(serial, currentSerial)) {
      return [];
    }
    try {
      const range = this.#chain(zone, serial, currentSerial);
      if (range === undefined) return undefined;
      const rows = this.#blobs.all(zone, range.first, range.last);
      if (rows.length !== range.count) return undefined;
      return rows.map((row) => readBlob(row.diff));
    } catch (error) {
      if (
        !(error instanceof WireFormatError || isDamagedDatabaseError(error))
      ) {
        throw error;
      }
      this.#damaged(zone, error);
      return undefined;
    }
  }

  /** Drops every entry of `zone` (the zone is gone). */
  forget(zone: string): void {
    this.#dropZone.run(zone);
  }

  stats(zone: string): ZoneJournalStats {
    const row = this.#stats.get(zone)!;
    return {
      entries: Number(row.entries),
      bytes: Number(row.bytes),
      ...(row.oldest !== null && { oldestSerial: Number(row.oldest) }),
    };
  }

  /**
   * The ids of the entries from `serial` to `currentSerial`: walks the
   * zone's chain from its newest entry back, so only the rows' serials
   * are read.
   */
  #chain(
    zone: string,
    serial: number,
    currentSerial: number,
  ): { first: number; last: number; count: number } | undefined {
    let last: number | undefined;
    let count = 0;
    let expect = currentSerial;
    // all(), not iterate(): a statement left unfinished would hold its
    // read transaction open.
    for (const row of this.#entries.all(zone)) {
      const to = Number(row.to_serial);
      if (last === undefined) {
        // Entries newer than currentSerial (a caller behind the leader).
        if (to !== currentSerial) continue;
        last = Number(row.id);
      } else if (to !== expect) {
        return undefined;
      }
      count++;
      expect = Number(row.from_serial);
      if (expect === serial) return { first: Number(row.id), last, count };
    }
    return undefined;
  }

  /** Drops the oldest entries past the size cap or the age; the newest stays. */
  #trim(zone: string, now: number): void {
    let total = 0;
    let newest = true;
    for (const row of this.#entries.all(zone)) {
      total += Number(row.bytes);
      const tooOld = now - Number(row.recorded_at) > this.#maxAgeMs;
      if (!newest && (total > this.#maxBytes || tooOld)) {
        this.#dropUpTo.run(zone, Number(row.id));
        return;
      }
      newest = false;
    }
  }

  #damaged(zone: string, error: unknown): void {
    this.#onDamaged(zone, error);
    try {
      this.#dropZone.run(zone);
    } catch {
      // A file too damaged to write: since() keeps answering undefined.
    }
  }
}

/**
 * The difference in one row's blob; any failure to decode it is a
 * WireFormatError, which since() takes for a damaged journal.
 */
function readBlob(value: unknown): ZoneDiff {
  if (!(value instanceof Uint8Array)) {
    throw new WireFormatError("zone journal entry is not a blob");
  }
  try {
    return decodeDiff(value);
  } catch (error) {
    if (error instanceof WireFormatError) throw error;
    throw new WireFormatError("damaged zone journal entry", { cause: error });
  }
}
