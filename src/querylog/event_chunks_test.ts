import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { migrateSchema } from "../sqlite/migrations.ts";
import { C, COLUMNS, encodeChunk } from "./chunk_codec.ts";
import { openQueryLogDb } from "./db.ts";
import {
  EventChunks,
  MAX_CHUNK_EVENTS,
  unreadableChunks,
} from "./event_chunks.ts";
import { loadEvents } from "./event_rows.ts";
import { QUERYLOG_MIGRATIONS, QUERYLOG_SCHEMA_VERSION } from "./schema.ts";
import { storedEvents, T0, tempQueryLog } from "./test_support.ts";

/** Column c of event `id`: distinct per id and column, 0 for some optionals. */
function valueOf(id: number, c: number): number {
  switch (c) {
    case C.time:
      return T0 + id * 7;
    case C.upstream:
    case C.answer:
      return id % 3 === 0 ? 0 : id % 11 + 1;
    case C.rcode:
      return id % 5 === 0 ? -1 : id % 4;
    default:
      return (id * (c + 3)) % (100 + c * 1000);
  }
}

/** Rows of events firstId … firstId + count - 1, row-major. */
function rowsFor(firstId: number, count: number): Float64Array {
  const rows = new Float64Array(count * COLUMNS);
  for (let i = 0; i < count; i++) {
    for (let c = 0; c < COLUMNS; c++) {
      rows[i * COLUMNS + c] = valueOf(firstId + i, c);
    }
  }
  return rows;
}

/** An in-memory querylog.db with the current schema, closed on dispose. */
function memoryLog() {
  const db = new DatabaseSync(":memory:");
  migrateSchema(db, ":memory:", QUERYLOG_MIGRATIONS, QUERYLOG_SCHEMA_VERSION);
  return Object.assign(db, { [Symbol.dispose]: () => db.close() });
}

/** Appends events firstId … firstId + count - 1 with rowsFor's values. */
function append(chunks: EventChunks, firstId: number, count: number): void {
  chunks.append(firstId, rowsFor(firstId, count), count);
}

/** The stored chunks as [first_id, last_id]. */
const spans = (db: DatabaseSync) =>
  db.prepare("SELECT first_id, last_id FROM event_chunks ORDER BY first_id")
    .all().map((r) => [Number(r.first_id), Number(r.last_id)]);

/** The ids a list of decoded chunks holds, with every row checked. */
function idsIn(chunks: ReturnType<EventChunks["read"]>): number[] {
  const ids: number[] = [];
  for (const chunk of chunks) {
    assert.equal(chunk.rows.length, chunk.count * COLUMNS);
    for (let i = 0; i < chunk.count; i++) {
      const id = chunk.firstId + i;
      const row = [...chunk.rows.subarray(i * COLUMNS, (i + 1) * COLUMNS)];
      assert.deepEqual(row, [...rowsFor(id, 1)], `row of id ${id}`);
      ids.push(id);
    }
  }
  return ids;
}

/**
 * Asserts that every chunk has the span of its own event times (T0 + id
 * × 7 here) and that no span outlives its chunk.
 */
function assertTimeSpans(db: DatabaseSync, chunks: EventChunks): void {
  const stored = spans(db);
  const all = chunks.spans(-1, Number.MAX_SAFE_INTEGER);
  assert.deepEqual(
    all.map((c) => [c.firstId, c.lastId, c.minTime, c.maxTime]),
    stored.map((
      [first, last],
    ) => [first, last, T0 + first! * 7, T0 + last! * 7]),
  );
  const times = db.prepare("SELECT count(*) AS n FROM event_chunk_times").get();
  assert.equal(Number(times?.n), stored.length, "a span for each chunk only");
}

const range = (first: number, last: number) =>
  Array.from({ length: last - first + 1 }, (_, i) => first + i);

/** Three chunks: 1–1024, 1025–2048, 2049–3072. */
function threeChunks(db: DatabaseSync): EventChunks {
  const chunks = new EventChunks(db);
  for (let first = 1; first <= 2049; first += 1024) {
    append(chunks, first, 1024);
  }
  assert.deepEqual(spans(db), [[1, 1024], [1025, 2048], [2049, 3072]]);
  return chunks;
}

Deno.test("event chunks: an empty log", () => {
  using db = memoryLog();
  const chunks = new EventChunks(db);
  assert.equal(chunks.oldestId(), undefined);
  assert.equal(chunks.newestId(), undefined);
  assert.equal(chunks.count(), 0);
  assert.deepEqual(chunks.read(0, 100), []);
  assert.deepEqual(chunks.rowsOf([1, 2]), new Map());
  assert.equal(chunks.deleteBelow(10), 0);
  // Appending nothing stores nothing.
  chunks.append(1, new Float64Array(0), 0);
  assert.deepEqual(spans(db), []);
});

Deno.test("event chunks: a batch is one chunk; a batch past MAX_CHUNK_EVENTS is split", () => {
  using db = memoryLog();
  const chunks = new EventChunks(db);
  append(chunks, 1, 1500);
  assert.deepEqual(spans(db), [[1, 1500]]);
  const big = 2 * MAX_CHUNK_EVENTS + 5;
  append(chunks, 1501, big);
  assert.deepEqual(spans(db), [
    [1, 1500],
    [1501, 1500 + MAX_CHUNK_EVENTS],
    [1501 + MAX_CHUNK_EVENTS, 1500 + 2 * MAX_CHUNK_EVENTS],
    [1501 + 2 * MAX_CHUNK_EVENTS, 1500 + big],
  ]);
  assert.equal(chunks.count(), 1500 + big);
  assert.equal(chunks.oldestId(), 1);
  assert.equal(chunks.newestId(), 1500 + big);
  assert.deepEqual(idsIn(chunks.read(1, 1500 + big)), range(1, 1500 + big));
});

Deno.test("event chunks: thin batches merge into the newest chunk while it holds fewer than 1024", () => {
  using db = memoryLog();
  const chunks = new EventChunks(db);
  append(chunks, 1, 10);
  append(chunks, 11, 10);
  assert.deepEqual(spans(db), [[1, 20]]);
  append(chunks, 21, 1003); // 1023 events: still room
  append(chunks, 1024, 5);
  assert.deepEqual(spans(db), [[1, 1028]]);
  append(chunks, 1029, 1); // the newest holds 1028: a new chunk
  assert.deepEqual(spans(db), [[1, 1028], [1029, 1029]]);
  // A merge fills the newest chunk up to MAX_CHUNK_EVENTS, the rest goes on.
  append(chunks, 1030, MAX_CHUNK_EVENTS);
  assert.deepEqual(spans(db), [
    [1, 1028],
    [1029, 1028 + MAX_CHUNK_EVENTS],
    [1029 + MAX_CHUNK_EVENTS, 1029 + MAX_CHUNK_EVENTS],
  ]);
  const newest = 1029 + MAX_CHUNK_EVENTS;
  assert.deepEqual(idsIn(chunks.read(1, newest)), range(1, newest));
  assertTimeSpans(db, chunks);
});

Deno.test("event chunks: a gap in ids starts a new chunk", () => {
  using db = memoryLog();
  const chunks = new EventChunks(db);
  append(chunks, 1, 10);
  append(chunks, 20, 10);
  assert.deepEqual(spans(db), [[1, 10], [20, 29]]);
  assert.equal(chunks.count(), 20);
  assert.deepEqual(idsIn(chunks.read(1, 29)), [
    ...range(1, 10),
    ...range(20, 29),
  ]);
  // Nothing stored in the gap.
  assert.deepEqual(chunks.read(12, 18).map((c) => c.firstId), []);
  assert.deepEqual([...chunks.rowsOf([15, 10, 20]).keys()], [10, 20]);
});

Deno.test("event chunks: read returns the chunks overlapping a range, oldest first", () => {
  using db = memoryLog();
  const chunks = threeChunks(db);
  const firsts = (first: number, last: number) =>
    chunks.read(first, last).map((c) => c.firstId);
  assert.deepEqual(firsts(10, 20), [1], "inside one chunk");
  assert.deepEqual(firsts(1024, 1025), [1, 1025], "across a boundary");
  assert.deepEqual(firsts(1030, 2049), [1025, 2049]);
  assert.deepEqual(firsts(500, 2500), [1, 1025, 2049]);
  assert.deepEqual(firsts(-5, 1), [1], "starting before everything");
  assert.deepEqual(firsts(3072, 9999), [2049], "ending after everything");
  assert.deepEqual(firsts(-5, 0), [], "before everything");
  assert.deepEqual(firsts(3073, 9999), [], "after everything");
  assert.deepEqual(firsts(20, 10), [], "an empty range");
  assert.deepEqual(idsIn(chunks.read(1, 3072)), range(1, 3072));
  assert.equal(chunks.corrupt, 0);
});

Deno.test("event chunks: rowsOf finds ids across chunks, in any order, and skips missing ones", () => {
  using db = memoryLog();
  const chunks = threeChunks(db);
  const wanted = [2500, 7, 0, 1025, 9999, 1024, 7, 3072, -3];
  const rows = chunks.rowsOf(wanted);
  assert.deepEqual(
    [...rows.keys()].sort((a, b) => a - b),
    [7, 1024, 1025, 2500, 3072],
  );
  for (const [id, row] of rows) {
    assert.deepEqual([...row], [...rowsFor(id, 1)], `row of id ${id}`);
  }
  assert.deepEqual(chunks.rowsOf([]), new Map());
});

Deno.test("event chunks: deleteBelow drops whole chunks and cuts the one the bound falls in", () => {
  using db = memoryLog();
  const chunks = threeChunks(db);
  assert.equal(chunks.deleteBelow(1), 0, "below everything");
  assert.equal(chunks.deleteBelow(-7), 0);
  assert.equal(chunks.count(), 3072);
  assert.equal(chunks.deleteBelow(1025), 1024, "one whole chunk");
  assert.deepEqual(spans(db), [[1025, 2048], [2049, 3072]]);
  assert.equal(chunks.deleteBelow(1500), 475, "into the middle of one");
  assert.deepEqual(spans(db), [[1500, 2048], [2049, 3072]]);
  assertTimeSpans(db, chunks);
  assert.equal(chunks.oldestId(), 1500);
  assert.equal(chunks.count(), 3072 - 1499);
  // The rest of the cut chunk keeps its ids and values.
  assert.deepEqual(idsIn(chunks.read(0, 9999)), range(1500, 3072));
  assert.deepEqual(chunks.rowsOf([1499]), new Map());
  assert.equal(chunks.deleteBelow(1500), 0, "at the oldest id");
  assert.equal(chunks.deleteBelow(2500), 1000, "a chunk and a half");
  assert.deepEqual(spans(db), [[2500, 3072]]);
  assert.equal(chunks.deleteBelow(1_000_000), 573, "above everything");
  assert.deepEqual(spans(db), []);
  assertTimeSpans(db, chunks);
  assert.equal(chunks.oldestId(), undefined);
  assert.equal(chunks.count(), 0);
  // Appending goes on with the next ids.
  append(chunks, 3073, 3);
  assert.deepEqual(idsIn(chunks.read(0, 9999)), range(3073, 3075));
  assertTimeSpans(db, chunks);
  assert.deepEqual(chunks.spans(3074, 3074).map((c) => c.firstId), [3073]);
  assert.equal(chunks.chunk(3073)?.count, 3);
  assert.equal(chunks.chunk(3074), undefined, "not a chunk's first id");
});

Deno.test("event chunks: a corrupt blob is skipped and counted, never thrown", () => {
  using db = memoryLog();
  const chunks = threeChunks(db);
  const seenBefore = unreadableChunks();
  const corrupt = db.prepare(
    "UPDATE event_chunks SET data = ? WHERE first_id = ?",
  );
  corrupt.run(new Uint8Array([1, 2, 3]), 1025);
  // Well-formed, but fewer events than its id range says.
  corrupt.run(encodeChunk(rowsFor(2049, 10), 10), 2049);
  assert.deepEqual(idsIn(chunks.read(1, 3072)), range(1, 1024));
  assert.equal(chunks.corrupt, 2);
  assert.deepEqual(
    [...chunks.rowsOf([5, 1500, 2050]).keys()],
    [5],
  );
  assert.equal(chunks.corrupt, 4);
  // Cutting a corrupt chunk drops all of it: nothing in it can be read.
  const before = chunks.corrupt;
  assert.equal(chunks.deleteBelow(1500), 2048);
  assert.equal(chunks.corrupt, before + 1);
  // Readers are made per call (search, export): each counts into the
  // process's total too, which metrics export.
  assert.deepEqual(idsIn(new EventChunks(db).read(2049, 3072)), []);
  assert.equal(unreadableChunks() - seenBefore, chunks.corrupt + 1);
  assert.deepEqual(spans(db), [[2049, 3072]]);
  assert.equal(chunks.deleteBelow(9999), 1024);
  assert.deepEqual(spans(db), []);
});

Deno.test("event chunks: a thin batch after a corrupt newest chunk starts a new one", () => {
  using db = memoryLog();
  const chunks = new EventChunks(db);
  append(chunks, 1, 10);
  db.prepare("UPDATE event_chunks SET data = ? WHERE first_id = 1")
    .run(new Uint8Array([9]));
  append(chunks, 11, 5);
  assert.deepEqual(spans(db), [[1, 10], [11, 15]]);
  assert.deepEqual(idsIn(chunks.read(0, 99)), range(11, 15));
  assert.equal(chunks.corrupt, 1);
});

/** v1 `events` rows: [id, time, …, groups] with NULL for absent optionals. */
type V1Row = (number | null)[];

const V1_COLUMNS = [
  "id",
  "time",
  "node",
  "client",
  "port",
  "transport",
  "qname",
  "qtype",
  "qclass",
  "rcode",
  "status",
  "stage",
  "upstream",
  "list",
  "rule",
  "flags",
  "answer",
  "size",
  "duration_us",
  "groups",
] as const;

Deno.test("migration 2 moves v1 events into chunks with the same values and drops events and events_text", async () => {
  await using log = await tempQueryLog();
  const v1 = new DatabaseSync(log.path);
  let labels: Map<string, number>;
  const rows: V1Row[] = [];
  try {
    migrateSchema(v1, log.path, QUERYLOG_MIGRATIONS.slice(0, 1), 1);
    v1.exec(`
      INSERT INTO names (text, last_used) VALUES ('a.example.', 0), ('b.example.', 0);
      INSERT INTO clients (text, last_used) VALUES ('192.0.2.1', 0);
      INSERT INTO answers (text, last_used) VALUES ('A 192.0.2.7', 0);
      INSERT INTO labels (kind, text, last_used) VALUES ('node', 'node-a', 0),
        ('upstream', 'default/1.1.1.1', 0), ('list', 'ads', 0),
        ('rule', '||b.example^', 0), ('groups', 'default/kids,lab/iot', 0);`);
    labels = new Map(
      v1.prepare("SELECT kind || ':' || text AS k, id FROM labels").all()
        .map((r) => [String(r.k), Number(r.id)]),
    );
    const label = (key: string) => labels.get(key)!;
    // More consecutive ids than one chunk holds, a gap, then events with
    // every optional NULL.
    for (let id = 1; id <= MAX_CHUNK_EVENTS + 100; id++) {
      rows.push([
        id,
        T0 + id * 13,
        label("node:node-a"),
        1,
        1024 + id % 60_000,
        label("transport:udp"),
        1,
        1,
        1,
        id % 2 === 0 ? -1 : 0,
        label("status:forwarded"),
        label("stage:upstream"),
        label("upstream:default/1.1.1.1"),
        null,
        null,
        id % 4,
        1,
        60 + id % 500,
        id * 3,
        label("groups:default/kids,lab/iot"),
      ]);
    }
    for (let id = MAX_CHUNK_EVENTS + 200; id < MAX_CHUNK_EVENTS + 203; id++) {
      rows.push([
        id,
        T0 + id * 13,
        label("node:node-a"),
        1,
        0,
        label("transport:tcp"),
        2,
        28,
        1,
        3,
        label("status:blocked_list"),
        label("stage:blocking"),
        null,
        id % 2 === 0 ? label("list:ads") : null,
        id % 2 === 0 ? label("rule:||b.example^") : null,
        0,
        null,
        0,
        5,
        null,
      ]);
    }
    const insert = v1.prepare(
      `INSERT INTO events (${V1_COLUMNS.join(", ")})
       VALUES (${V1_COLUMNS.map(() => "?").join(", ")})`,
    );
    v1.exec("BEGIN");
    for (const row of rows) insert.run(...row);
    v1.exec("COMMIT");
    assert.equal(
      Number(v1.prepare("SELECT count(*) AS n FROM events_text").get()!.n),
      rows.length,
    );
  } finally {
    v1.close();
  }

  const db = openQueryLogDb(log.path);
  try {
    const version = db.prepare(
      "SELECT value FROM meta WHERE key = 'schema_version'",
    ).get()!;
    assert.equal(Number(version.value), QUERYLOG_SCHEMA_VERSION);
    const gone = db.prepare(
      "SELECT name FROM sqlite_master WHERE name IN ('events', 'events_text')",
    ).all();
    assert.deepEqual(gone, []);
    assert.deepEqual(spans(db), [
      [1, MAX_CHUNK_EVENTS],
      [MAX_CHUNK_EVENTS + 1, MAX_CHUNK_EVENTS + 100],
      [MAX_CHUNK_EVENTS + 200, MAX_CHUNK_EVENTS + 202],
    ]);
    const stored = storedEvents(db).map((e) => V1_COLUMNS.map((c) => e[c]));
    assert.deepEqual(stored, rows);

    // Read back with their strings: NULL optionals are absent.
    const [forwarded, blocked, unlisted] = loadEvents(db, [
      5,
      MAX_CHUNK_EVENTS + 200,
      MAX_CHUNK_EVENTS + 201,
    ]);
    assert.equal(forwarded!.qname, "a.example.");
    assert.equal(forwarded!.clientAddress, "192.0.2.1");
    assert.equal(forwarded!.upstream, "default/1.1.1.1");
    assert.equal(forwarded!.answer, "A 192.0.2.7");
    assert.deepEqual(forwarded!.groups, ["default/kids", "lab/iot"]);
    assert.equal(forwarded!.dnssecOk, true);
    assert.equal(forwarded!.rcode, 0);
    assert.ok(!("list" in forwarded!) && !("rule" in forwarded!));
    assert.equal(blocked!.qname, "b.example.");
    assert.equal(blocked!.status, "blocked_list");
    assert.equal(blocked!.transport, "tcp");
    assert.equal(blocked!.list, "ads");
    assert.equal(blocked!.rule, "||b.example^");
    assert.equal(blocked!.answer, "");
    assert.deepEqual(blocked!.groups, []);
    assert.ok(!("upstream" in blocked!));
    assert.ok(!("list" in unlisted!) && !("rule" in unlisted!));
  } finally {
    db.close();
  }
  // Opening again migrates nothing.
  openQueryLogDb(log.path).close();
});

Deno.test("loadEvents keeps the order asked for and leaves out ids that do not exist", () => {
  using db = memoryLog();
  const chunks = threeChunks(db);
  const events = loadEvents(db, [2050, 3, 99_999, 1024]);
  assert.deepEqual(events.map((e) => e.id), [2050, 3, 1024]);
  for (const e of events) assert.equal(e.time, valueOf(e.id, C.time));
  assert.deepEqual(loadEvents(db, []), []);
  assert.equal(chunks.corrupt, 0);
});
