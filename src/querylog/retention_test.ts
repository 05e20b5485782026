import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import { memoryLogger } from "../log/logger.ts";
import type { QueryEvent } from "../pipeline/query_event.ts";
import { runRetention } from "./retention.ts";
import { searchEvents } from "./search.ts";
import { DAY_MS, HOUR_MS, retentionLimits } from "./settings.ts";
import {
  queryEvent,
  querylogSettings,
  storedEvents,
  T0,
  tempQueryLog,
  testWriter,
} from "./test_support.ts";

const count = (db: DatabaseSync, sql: string) =>
  Number(Object.values(db.prepare(sql).get()!)[0]);

const limits = (raw = "720h", maxDBBytes = "10GiB") =>
  retentionLimits(querylogSettings({ retention: { raw, maxDBBytes } }));

Deno.test("retention by age deletes old raw events and keeps rollups longer", async () => {
  await using log = await tempQueryLog();
  const now = T0 + 40 * DAY_MS;
  await using writer = testWriter(log.path, { now: () => now });
  const at = (daysAgo: number, qname: string): QueryEvent =>
    queryEvent({ time: now - daysAgo * DAY_MS, qname });
  writer.enqueue([
    at(35, "old.example."),
    at(31, "old.example."),
    at(29, "recent.example."),
    at(1, "recent.example."),
  ]);
  await writer.flush();
  const db = writer.db;
  const report = await runRetention(db, {
    now,
    limits: limits("720h"),
    state: {},
    logger: memoryLogger(),
  });
  assert.equal(report.deletedEvents, 2);
  assert.deepEqual(
    searchEvents(db).events.map((e) => e.qname),
    ["recent.example.", "recent.example."],
  );
  // event_minutes follows; rollups stay (400 days), domain minutes only 48 h.
  assert.equal(count(db, "SELECT count(*) FROM event_minutes"), 2);
  assert.equal(count(db, "SELECT sum(queries) FROM status_minutes"), 4);
  assert.equal(count(db, "SELECT sum(queries) FROM client_minutes"), 4);
  assert.equal(count(db, "SELECT sum(queries) FROM domain_hours"), 3);
  assert.equal(count(db, "SELECT sum(queries) FROM domain_minutes"), 1);
  // The names of deleted events stay while rollups name them.
  assert.equal(count(db, "SELECT count(*) FROM names"), 2);
});

Deno.test("retention deletes rollups after 400 days and then unused dictionary rows", async () => {
  await using log = await tempQueryLog();
  const now = T0 + 500 * DAY_MS;
  await using writer = testWriter(log.path, { now: () => now });
  // Two batches: a batch stamps every string it uses with its newest minute.
  writer.enqueue([
    queryEvent({
      time: T0,
      qname: "ancient.example.",
      clientAddress: "192.0.2.1",
      answer: "A 192.0.2.7",
    }),
  ]);
  await writer.flush();
  writer.enqueue([
    queryEvent({
      time: now - HOUR_MS,
      qname: "fresh.example.",
      clientAddress: "192.0.2.2",
      answer: "A 192.0.2.8",
    }),
  ]);
  await writer.flush();
  const db = writer.db;
  const report = await writer.runRetention();
  assert.equal(report.deletedEvents, 1);
  assert.ok(report.deletedRollupRows >= 3);
  assert.ok(
    count(db, "SELECT min(minute) FROM status_minutes") * 60_000 >
      now - 400 * DAY_MS,
  );
  assert.equal(report.deletedDictionaryRows, 3);
  const texts = (table: string) =>
    db.prepare(`SELECT text FROM ${table} ORDER BY text`).all().map((r) =>
      r.text
    );
  assert.deepEqual(texts("names"), ["fresh.example."]);
  assert.deepEqual(texts("clients"), ["192.0.2.2"]);
  assert.deepEqual(texts("answers"), ["A 192.0.2.8"]);
  // The writer forgot its cached ids: a pruned name comes back with a new row.
  writer.enqueue([queryEvent({ time: now, qname: "ancient.example." })]);
  await writer.flush();
  assert.deepEqual(texts("names"), ["ancient.example.", "fresh.example."]);
  assert.equal(searchEvents(db, { domain: "ancient" }).events.length, 1);
});

Deno.test("retention by size deletes the oldest events until under 90 % and vacuums", async () => {
  await using log = await tempQueryLog();
  const now = T0 + DAY_MS;
  await using writer = testWriter(log.path, {
    now: () => now,
    batchSize: 2000,
  });
  const events = Array.from({ length: 20_000 }, (_, i) =>
    queryEvent({
      // Dense, as a busy node's log is: rollups are small next to events.
      // Ports, sizes and durations vary as real ones do, so chunks do not
      // shrink the events to nothing.
      time: T0 + i * 30,
      qname: `host${i % 50}.example.`,
      answer: `A 198.51.100.${i % 200}`,
      clientPort: 1024 + (i * 7919) % 64_000,
      responseSize: 40 + (i * 104_729) % 1400,
      durationUs: (i * 1_299_709) % 2_000_000,
    }));
  writer.enqueue(events);
  await writer.flush();
  const db = writer.db;
  const pageSize = count(db, "PRAGMA page_size");
  const before = count(db, "PRAGMA page_count") * pageSize;
  const max = Math.floor(before / 2);
  const report = await runRetention(db, {
    now,
    limits: limits("720h", String(max)),
    state: {},
    logger: memoryLogger(),
    chunk: 1000,
  });
  assert.ok(report.deletedEvents > 5000, `deleted ${report.deletedEvents}`);
  assert.ok(report.vacuumedPages > 0);
  const after = count(db, "PRAGMA page_count") * pageSize;
  assert.ok(after <= max * 0.9 + pageSize, `${after} > 90 % of ${max}`);
  assert.equal(report.fileBytes, after);
  // The oldest went first: what is left is the newest, without gaps.
  const left = searchEvents(db, { limit: 1000 }).events;
  assert.equal(left[0]!.time, events.at(-1)!.time);
  const stored = storedEvents(db);
  const oldestLeft = Math.min(...stored.map((e) => e.time));
  assert.equal(stored.length, (events.at(-1)!.time - oldestLeft) / 30 + 1);
  // Ids without gaps too (the chunk a step ended in was cut, not lost).
  assert.equal(stored.at(-1)!.id - stored[0]!.id + 1, stored.length);
  assert.equal(report.deletedRollupRows, 0, "no rollups needed to go");
});

Deno.test("retention by size removes rollups once no raw event is left", async () => {
  await using log = await tempQueryLog();
  const now = T0 + 3 * DAY_MS;
  await using writer = testWriter(log.path, {
    now: () => now,
    settings: querylogSettings({ privacy: "none" }),
  });
  writer.enqueue(
    Array.from(
      { length: 3000 },
      (_, i) => queryEvent({ time: T0 + i * 60_000, upstream: `up-${i % 40}` }),
    ),
  );
  await writer.flush();
  const db = writer.db;
  const rowsBefore = count(db, "SELECT count(*) FROM status_minutes");
  const size = count(db, "PRAGMA page_count") * count(db, "PRAGMA page_size");
  const report = await runRetention(db, {
    now,
    limits: limits("720h", String(Math.floor(size * 0.7))),
    state: {},
    logger: memoryLogger(),
  });
  assert.ok(report.deletedRollupRows > 0);
  assert.ok(report.fileBytes <= size * 0.7);
  assert.ok(count(db, "SELECT count(*) FROM status_minutes") < rowsBefore);
  // The newest minutes are the ones kept.
  assert.equal(
    count(db, "SELECT max(minute) FROM status_minutes"),
    Math.floor((T0 + 2999 * 60_000) / 60_000),
  );
});

Deno.test("retention by size under a flood of one-off names keeps the totals and drops the names", async () => {
  await using log = await tempQueryLog();
  const now = T0 + HOUR_MS;
  await using writer = testWriter(log.path, { now: () => now });
  writer.enqueue(Array.from({ length: 20_000 }, (_, i) =>
    queryEvent({
      time: T0 + i * 100,
      // Random-subdomain style: every name asked once.
      qname: `x${(i * 2_654_435_761) % 4_294_967_296}.flood.example.`,
      answer: "NXDOMAIN",
    })));
  await writer.flush();
  const db = writer.db;
  const statusRows = count(db, "SELECT count(*) FROM status_minutes");
  const size = count(db, "PRAGMA page_count") * count(db, "PRAGMA page_size");
  let pruned = 0;
  const report = await runRetention(db, {
    now,
    limits: limits("720h", String(Math.floor(size * 0.25))),
    state: { lastDictionarySweep: now }, // the hourly sweep is not due
    logger: memoryLogger(),
    onDictionariesPruned: () => pruned++,
  });
  assert.equal(count(db, "SELECT count(*) FROM event_chunks"), 0);
  assert.ok(
    report.deletedDictionaryRows >= 20_000,
    `${report.deletedDictionaryRows}`,
  );
  assert.ok(pruned > 0, "the writer forgets the ids it held");
  assert.ok(count(db, "SELECT count(*) FROM names") < 100);
  assert.equal(
    count(db, "SELECT count(*) FROM status_minutes"),
    statusRows,
    "the totals kudurru stats shows are kept",
  );
  assert.ok(report.fileBytes <= size * 0.25, `${report.fileBytes} of ${size}`);
});

Deno.test("the writer runs retention on its own timer", async () => {
  await using log = await tempQueryLog();
  const now = T0 + 40 * DAY_MS;
  await using writer = testWriter(log.path, {
    now: () => now,
    retentionIntervalMs: 20,
  });
  writer.enqueue([queryEvent({ time: T0 }), queryEvent({ time: now })]);
  await writer.flush();
  const deadline = Date.now() + 5000;
  while (storedEvents(writer.db).length > 1 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.deepEqual(storedEvents(writer.db).map((e) => e.time), [now]);
});
