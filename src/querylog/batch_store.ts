/**
 * Writes one batch of events, and their rollups, in one transaction: the
 * unit of work of the writer (and of the benchmark's generator). Either the
 * whole batch is in the file or none of it is.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { PackedQueryEvents } from "../pipeline/query_event_pack.ts";
import { rollback } from "../sqlite/migrations.ts";
import { COLUMNS } from "./chunk_codec.ts";
import { type DictionaryCacheSizes, EventEncoder } from "./encode.ts";
import { EncodedRows } from "./encoded_rows.ts";
import { EventChunks } from "./event_chunks.ts";
import type { EventFilter } from "./event_filter.ts";
import { readDomainHoursThrough } from "./domain_hours.ts";
import {
  BatchRollups,
  oldestDomainMinute,
  prepareRollupStatements,
  type RollupStatements,
} from "./rollups.ts";
import { DOMAIN_MINUTES_RETENTION_MS } from "./settings.ts";

/** What one batch did. */
export interface BatchResult {
  /** Events stored or counted. */
  written: number;
  /** Events left out by an exclusion. */
  excluded: number;
  /** Events that could not be encoded. */
  invalid: number;
  /** Why the last invalid event was refused. */
  lastInvalid?: string;
}

/** Events [from, to) of a packed batch. */
export interface BatchSlice {
  batch: PackedQueryEvents;
  from: number;
  to: number;
}

export class BatchStore {
  readonly encoder: EventEncoder;
  readonly chunks: EventChunks;
  readonly #db: DatabaseSync;
  readonly #saveNextId: StatementSync;
  readonly #rollups: RollupStatements;
  readonly #rows = new EncodedRows();
  #nextId: number;

  constructor(db: DatabaseSync, cacheSizes?: DictionaryCacheSizes) {
    this.#db = db;
    this.encoder = new EventEncoder(db, cacheSizes);
    this.chunks = new EventChunks(db);
    this.#saveNextId = db.prepare(
      "UPDATE meta SET value = ? WHERE key = 'next_event_id'",
    );
    this.#rollups = prepareRollupStatements(db);
    this.#nextId = this.#loadNextId();
  }

  /**
   * Filters, encodes and stores the events of `slices` with their rollups,
   * in one transaction. Bad events are counted, not thrown.
   *
   * @throws the SQLite error that rolled the batch back (nothing written)
   */
  writeEvents(
    slices: readonly BatchSlice[],
    filter: EventFilter,
    now: number,
  ): BatchResult {
    const result: BatchResult = { written: 0, excluded: 0, invalid: 0 };
    this.#transaction(() => {
      // One buffer for every batch: a batch of 100,000 rows is 15 MB.
      const rows = this.#rows;
      rows.count = 0;
      for (const { batch, from, to } of slices) {
        const counts = this.encoder.encode(batch, from, to, filter, rows, now);
        result.excluded += counts.excluded;
        result.invalid += counts.invalid;
        if (counts.lastInvalid !== undefined) {
          result.lastInvalid = counts.lastInvalid;
        }
      }
      this.#store(rows, filter.privacy !== "none", now);
      result.written = rows.count;
    });
    return result;
  }

  #store(encoded: EncodedRows, storeEvents: boolean, now: number): void {
    // Time order makes ids follow time almost everywhere, which keeps the
    // id range of each minute tight.
    encoded.sortByTime();
    const rollups = new BatchRollups({
      perClientAndDomain: storeEvents,
      oldestDomainMinute: oldestDomainMinute(now, DOMAIN_MINUTES_RETENTION_MS),
      // Read in this transaction: the fold may have moved since the last batch.
      domainHoursThrough: readDomainHoursThrough(this.#db),
    });
    const { rows, kinds, count } = encoded;
    const firstId = this.#nextId;
    for (let i = 0; i < count; i++) {
      rollups.add(
        rows,
        i * COLUMNS,
        kinds[i]!,
        storeEvents ? firstId + i : undefined,
      );
    }
    if (storeEvents && count > 0) {
      this.chunks.append(firstId, rows, count);
      this.#nextId += count;
    }
    rollups.write(this.#rollups);
    for (const dictionary of this.encoder.all()) dictionary.writeBumps();
    this.#saveNextId.run(String(this.#nextId));
  }

  #transaction(body: () => void): void {
    const firstId = this.#nextId;
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      body();
      this.#db.exec("COMMIT");
    } catch (err) {
      rollback(this.#db);
      for (const insert of Object.values(this.#rollups)) insert.clear();
      // Ids cached during the batch may name rows that were rolled back.
      this.encoder.resetDictionaries();
      this.#nextId = firstId;
      throw err;
    }
  }

  #loadNextId(): number {
    const saved = this.#db.prepare(
      "SELECT value FROM meta WHERE key = 'next_event_id'",
    ).get();
    const newest = this.chunks.newestId() ?? 0;
    return Math.max(Number(saved?.value ?? 1), newest + 1);
  }
}
