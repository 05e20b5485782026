import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import { QueryEventPacker } from "../pipeline/query_event_pack.ts";
import { QueryEventReceiver } from "../pipeline/query_event_receiver.ts";
import { C, COLUMNS } from "./chunk_codec.ts";
import { openQueryLogDb } from "./db.ts";
import { EventEncoder } from "./encode.ts";
import { EncodedRows } from "./encoded_rows.ts";
import { createEventFilter } from "./event_filter.ts";
import { minuteOf } from "./settings.ts";
import {
  queryEvent,
  querylogSettings,
  T0,
  tempQueryLog,
} from "./test_support.ts";

/** A packer and its receiver, as a worker and the main thread hold them. */
function workerTable() {
  const packer = new QueryEventPacker();
  const receiver = new QueryEventReceiver();
  return (qnames: string[], time: number) => {
    for (const qname of qnames) packer.add(queryEvent({ qname, time }));
    return receiver.receive(packer.take())!;
  };
}

/** One filter for every call, as the writer keeps one until settings change. */
const keepAll = createEventFilter(querylogSettings());

function encodeAll(
  encoder: EventEncoder,
  batch: ReturnType<ReturnType<typeof workerTable>>,
  filter = keepAll,
) {
  const rows = new EncodedRows();
  encoder.encode(batch, 0, batch.count, filter, rows);
  return Array.from(
    { length: rows.count },
    (_, i) => rows.rows[i * COLUMNS + C.qname]!,
  );
}

const nameOf = (db: DatabaseSync, id: number) =>
  db.prepare("SELECT text FROM names WHERE id = ?").get(id)?.text;
const lastUsed = (db: DatabaseSync, text: string) =>
  Number(
    db.prepare("SELECT last_used FROM names WHERE text = ?").get(text)!
      .last_used,
  );

/** An encoder on a fresh database, and a worker's table feeding it. */
async function withEncoder(
  body: (
    db: DatabaseSync,
    encoder: EventEncoder,
    batchOf: ReturnType<typeof workerTable>,
  ) => void,
): Promise<void> {
  await using log = await tempQueryLog();
  const db = openQueryLogDb(log.path);
  try {
    body(db, new EventEncoder(db), workerTable());
  } finally {
    db.close();
  }
}

Deno.test("encoder: ids kept with a worker's table are looked up again after the dictionaries forget theirs", () =>
  withEncoder((db, encoder, batchOf) => {
    const [first] = encodeAll(encoder, batchOf(["a.example."], T0));
    assert.equal(nameOf(db, first!), "a.example.");
    // A sweep took the row (as retention does with unused ones), in the
    // same minute: the id kept with the table must not be trusted.
    db.exec("DELETE FROM names");
    encoder.resetDictionaries();
    const [again] = encodeAll(encoder, batchOf(["a.example."], T0 + 1));
    assert.equal(nameOf(db, again!), "a.example.");
  }));

Deno.test("encoder: a name that comes back batch after batch is stamped in every hour it is used", () =>
  withEncoder((db, encoder, batchOf) => {
    const hour = 60 * 60_000;
    encodeAll(encoder, batchOf(["a.example."], T0));
    encodeAll(encoder, batchOf(["a.example."], T0 + 30_000));
    assert.equal(lastUsed(db, "a.example."), minuteOf(T0));
    for (const dictionary of encoder.all()) dictionary.writeBumps();
    encodeAll(encoder, batchOf(["a.example."], T0 + 2 * hour));
    for (const dictionary of encoder.all()) dictionary.writeBumps();
    assert.equal(lastUsed(db, "a.example."), minuteOf(T0 + 2 * hour));
  }));

Deno.test("encoder: a new filter decides again on names it kept", () =>
  withEncoder((_db, encoder, batchOf) => {
    assert.equal(encodeAll(encoder, batchOf(["ads.example."], T0)).length, 1);
    const excluding = createEventFilter(
      querylogSettings({ exclude: { domains: ["ads.example"] } }),
    );
    assert.equal(
      encodeAll(encoder, batchOf(["ads.example."], T0), excluding).length,
      0,
    );
    assert.equal(encodeAll(encoder, batchOf(["ads.example."], T0)).length, 1);
  }));
