/**
 * The copies of secondary zones this node transferred, kept in its
 * local.db so that a restart serves them at once, before any primary
 * answers. Each copy is its records in the zone journal's binary form
 * (src/zone/journal_blob.ts: a difference from nothing to the copy).
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { RRSet } from "../dns/rrset.ts";
import { TYPE } from "../dns/wire/constants.ts";
import type { Migration } from "../sqlite/migrations.ts";
import { decodeDiff, encodeDiff } from "../zone/journal_blob.ts";

/** The table of copies. */
export const SECONDARY_COPIES_SQL = `
CREATE TABLE secondary_copies (
  zone           TEXT    PRIMARY KEY,
  serial         INTEGER NOT NULL,
  transferred_at INTEGER NOT NULL,
  refreshed_at   INTEGER NOT NULL,
  records        BLOB    NOT NULL
);
`;

/** The migration step that adds the table, as schema version `to`. */
export function secondaryCopiesMigration(to: number): Migration {
  return {
    to,
    description: "secondary_copies table",
    up: (db) => db.exec(SECONDARY_COPIES_SQL),
  };
}

/** One zone's copy: its RRsets (the apex SOA first) and when it was fetched. */
export interface SecondaryCopy {
  serial: number;
  rrsets: RRSet[];
  /** ms since the epoch: the transfer that brought it. */
  transferredAt: number;
  /** ms since the epoch: when a primary last said it is current. */
  refreshedAt: number;
}

/** The copies in one database. */
export class SecondaryCopies {
  readonly #get: StatementSync;
  readonly #put: StatementSync;
  readonly #touch: StatementSync;
  readonly #drop: StatementSync;

  constructor(db: DatabaseSync) {
    this.#get = db.prepare(
      "SELECT serial, transferred_at, refreshed_at, records FROM secondary_copies WHERE zone = ?",
    );
    this.#put = db.prepare(
      `INSERT OR REPLACE INTO secondary_copies (zone, serial, transferred_at, refreshed_at, records)
       VALUES (?, ?, ?, ?, ?)`,
    );
    this.#touch = db.prepare(
      "UPDATE secondary_copies SET refreshed_at = ? WHERE zone = ?",
    );
    this.#drop = db.prepare("DELETE FROM secondary_copies WHERE zone = ?");
  }

  /**
   * The copy of `zone`, if one is kept.
   * @throws {WireFormatError} when the stored records do not decode
   */
  load(zone: string): SecondaryCopy | undefined {
    const row = this.#get.get(zone);
    if (row === undefined) return undefined;
    const diff = decodeDiff(row.records as Uint8Array);
    return {
      serial: Number(row.serial),
      rrsets: [diff.toSoa, ...diff.added],
      transferredAt: Number(row.transferred_at),
      refreshedAt: Number(row.refreshed_at),
    };
  }

  save(zone: string, copy: SecondaryCopy): void {
    const soa = copy.rrsets.find((r) => r.type === TYPE.SOA)!;
    const blob = encodeDiff({
      fromSerial: copy.serial,
      toSerial: copy.serial,
      fromSoa: soa,
      toSoa: soa,
      removed: [],
      added: copy.rrsets.filter((r) => r !== soa),
    });
    this.#put.run(
      zone,
      copy.serial,
      copy.transferredAt,
      copy.refreshedAt,
      blob,
    );
  }

  touch(zone: string, refreshedAt: number): void {
    this.#touch.run(refreshedAt, zone);
  }

  forget(zone: string): void {
    this.#drop.run(zone);
  }
}
