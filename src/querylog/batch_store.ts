/**
 * Writes one batch of events, and their rollups, in one transaction: the
 * unit of work of the writer (and of the benchmark's generator). Either the
 * whole batch is in the file or none of it is.
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { QueryEvent } from "../pipeline/query_event.ts";
import { rollback } from "../store/sqlite/sqlite_schema.ts";
import {
  type DictionaryCacheSizes,
  type EncodedEvent,
  EventEncoder,
  InvalidEventError,
} from "./encode.ts";
import type { EventFilter } from "./event_filter.ts";
import { readDomainHoursThrough } from "./domain_hours.ts";
import {
  BatchRollups,
  oldestDomainMinute,
  prepareRollupStatements,
  type RollupStatements,
} from "./rollups.ts";
import { MultiRowInsert } from "./multi_row_insert.ts";
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

export class BatchStore {
  readonly encoder: EventEncoder;
  readonly #db: DatabaseSync;
  readonly #insert: MultiRowInsert;
  readonly #saveNextId: StatementSync;
  readonly #rollups: RollupStatements;
  #nextId: number;

  constructor(db: DatabaseSync, cacheSizes?: DictionaryCacheSizes) {
    this.#db = db;
    this.encoder = new EventEncoder(db, cacheSizes);
    this.#insert = new MultiRowInsert(
      db,
      `INSERT INTO events (id, time, node, client, port, transport, qname,
         qtype, qclass, rcode, status, stage, upstream, list, rule, flags,
         answer, size, duration_us, groups) VALUES`,
      20,
    );
    this.#saveNextId = db.prepare(
      "UPDATE meta SET value = ? WHERE key = 'next_event_id'",
    );
    this.#rollups = prepareRollupStatements(db);
    this.#nextId = this.#loadNextId();
  }

  /**
   * Filters, encodes and stores `events` (in time order) with their
   * rollups, in one transaction. Bad events are counted, not thrown.
   *
   * @throws the SQLite error that rolled the batch back (nothing written)
   */
  writeEvents(
    events: readonly QueryEvent[],
    filter: EventFilter,
    now: number,
  ): BatchResult {
    const result: BatchResult = { written: 0, excluded: 0, invalid: 0 };
    this.#transaction(() => {
      const rows: EncodedEvent[] = [];
      for (const event of events) {
        try {
          if (filter.excludes(event)) {
            result.excluded++;
            continue;
          }
          rows.push(this.encoder.encode(event, filter));
        } catch (err) {
          if (!(err instanceof InvalidEventError || err instanceof TypeError)) {
            throw err;
          }
          result.invalid++;
          result.lastInvalid = err.message;
        }
      }
      this.#store(rows, filter.privacy !== "none", now);
      result.written = rows.length;
    });
    return result;
  }

  /**
   * Stores rows encoded elsewhere (the benchmark's generator) exactly as
   * writeEvents would, in one transaction.
   */
  writeEncoded(rows: EncodedEvent[], storeEvents: boolean, now: number): void {
    this.#transaction(() => this.#store(rows, storeEvents, now));
  }

  #store(rows: EncodedEvent[], storeEvents: boolean, now: number): void {
    // Time order makes ids follow time almost everywhere, which keeps the
    // id range of each minute tight.
    rows.sort((a, b) => a.time - b.time);
    const rollups = new BatchRollups({
      perClientAndDomain: storeEvents,
      oldestDomainMinute: oldestDomainMinute(now, DOMAIN_MINUTES_RETENTION_MS),
      // Read in this transaction: the fold may have moved since the last batch.
      domainHoursThrough: readDomainHoursThrough(this.#db),
    });
    for (const e of rows) {
      let id: number | undefined;
      if (storeEvents) {
        id = this.#nextId++;
        this.#insert.add(
          id,
          e.time,
          e.node,
          e.client,
          e.port,
          e.transport,
          e.qname,
          e.qtype,
          e.qclass,
          e.rcode,
          e.status,
          e.stage,
          e.upstream,
          e.list,
          e.rule,
          e.flags,
          e.answer,
          e.size,
          e.durationUs,
          e.groups,
        );
      }
      rollups.add(e, id);
    }
    this.#insert.flush();
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
      this.#insert.clear();
      for (const insert of Object.values(this.#rollups)) insert.clear();
      // Ids cached during the batch may name rows that were rolled back.
      for (const dictionary of this.encoder.all()) dictionary.reset();
      this.#nextId = firstId;
      throw err;
    }
  }

  #loadNextId(): number {
    const saved = this.#db.prepare(
      "SELECT value FROM meta WHERE key = 'next_event_id'",
    ).get();
    const max = this.#db.prepare("SELECT max(id) AS id FROM events").get();
    return Math.max(Number(saved?.value ?? 1), Number(max?.id ?? 0) + 1);
  }
}
