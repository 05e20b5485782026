import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import { memoryLogger } from "../log/logger.ts";
import type { QueryEvent } from "../pipeline/query_event.ts";
import { runRetention } from "./retention.ts";
import { searchEvents } from "./search.ts";
import { topDomains } from "./stats.ts";
import { DAY_MS, HOUR_MS, minuteOf, retentionLimits } from "./settings.ts";
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

Deno.test("retention by age is not stopped by an event stamped in the future", async () => {
  await using log = await tempQueryLog();
  const now = T0 + 40 * DAY_MS;
  {
    // Written while the clock ran a year ahead.
    const ahead = now + 365 * DAY_MS;
    await using early = testWriter(log.path, { now: () => ahead });
    early.enqueue([queryEvent({ time: ahead, qname: "ahead.example." })]);
    await early.flush();
  }
  await using writer = testWriter(log.path, { now: () => now });
  writer.enqueue(
    Array.from(
      { length: 40 },
      (_, day) => queryEvent({ time: T0 + day * DAY_MS }),
    ),
  );
  await writer.flush();
  const report = await runRetention(writer.db, {
    now,
    limits: limits("720h"),
    state: {},
    logger: memoryLogger(),
  });
  const kept = storedEvents(writer.db).map((e) => e.time);
  assert.deepEqual(
    kept,
    Array.from({ length: 30 }, (_, i) => T0 + (10 + i) * DAY_MS),
    "the last 30 days, and not the event from the future",
  );
  assert.equal(report.deletedEvents, 11);
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
  // The rollups of the deleted minutes went with them, and only those.
  for (const table of ["status_minutes", "client_minutes", "domain_minutes"]) {
    assert.equal(
      count(db, `SELECT min(minute) FROM ${table}`),
      minuteOf(oldestLeft),
      table,
    );
  }
});

Deno.test("retention by size trims the totals from their oldest minute when no raw event is stored", async () => {
  await using log = await tempQueryLog();
  const now = T0 + 15 * DAY_MS;
  await using writer = testWriter(log.path, {
    now: () => now,
    settings: querylogSettings({ privacy: "none" }),
  });
  writer.enqueue(
    Array.from(
      { length: 20_000 },
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
  assert.ok(report.fileBytes <= size * 0.7);
  const rowsLeft = count(db, "SELECT count(*) FROM status_minutes");
  // Small steps: what goes is about what the limit needs, not everything.
  assert.ok(
    rowsLeft < rowsBefore && rowsLeft > rowsBefore * 0.4,
    `${rowsLeft}`,
  );
  // The newest minutes are the ones kept, without gaps.
  const newest = minuteOf(T0 + 19_999 * 60_000);
  assert.equal(count(db, "SELECT max(minute) FROM status_minutes"), newest);
  assert.equal(
    count(db, "SELECT min(minute) FROM status_minutes"),
    newest - rowsLeft + 1,
  );
});

/** Writes `events` with the writer's own clock at the newest of them, then folds. */
async function write(
  writer: ReturnType<typeof testWriter>,
  events: QueryEvent[],
): Promise<void> {
  writer.enqueue(events);
  await writer.flush();
}

/** Asserts that every stored event's name, client and answer still exist. */
function assertNoDanglingIds(db: DatabaseSync): void {
  const ids = (table: string) =>
    new Set(db.prepare(`SELECT id FROM ${table}`).all().map((r) => r.id));
  const [names, clients, answers] = ["names", "clients", "answers"].map(ids);
  for (const e of storedEvents(db)) {
    assert.ok(names!.has(e.qname), `event ${e.id}: name ${e.qname}`);
    assert.ok(clients!.has(e.client), `event ${e.id}: client ${e.client}`);
    if (e.answer !== null) assert.ok(answers!.has(e.answer));
  }
}

const fileSize = (db: DatabaseSync) =>
  count(db, "PRAGMA page_count") * count(db, "PRAGMA page_size");

Deno.test("retention by size under a flood of one-off names drops the oldest minutes and their names", async () => {
  await using log = await tempQueryLog();
  const now = T0 + HOUR_MS;
  await using writer = testWriter(log.path, { now: () => now });
  await write(
    writer,
    Array.from({ length: 20_000 }, (_, i) =>
      queryEvent({
        time: T0 + i * 100,
        // Random-subdomain style: every name asked once.
        qname: `x${(i * 2_654_435_761) % 4_294_967_296}.flood.example.`,
        answer: "NXDOMAIN",
      })),
  );
  const db = writer.db;
  const size = fileSize(db);
  let pruned = 0;
  const report = await runRetention(db, {
    now,
    limits: limits("720h", String(Math.floor(size * 0.25))),
    state: { lastDictionarySweep: now }, // the hourly sweep is not due
    logger: memoryLogger(),
    onDictionariesPruned: () => pruned++,
  });
  assert.ok(report.fileBytes <= size * 0.25, `${report.fileBytes} of ${size}`);
  const kept = storedEvents(db);
  assert.ok(kept.length > 1000, `kept ${kept.length}`);
  assert.equal(kept.at(-1)!.time, T0 + 19_999 * 100, "the newest are kept");
  // Only the names of the events kept are left, and only their minutes.
  assert.equal(count(db, "SELECT count(*) FROM names"), kept.length);
  assert.ok(pruned > 0, "the writer forgets the ids it held");
  assertNoDanglingIds(db);
  assert.equal(
    count(db, "SELECT min(minute) FROM status_minutes"),
    minuteOf(kept[0]!.time),
  );
});

Deno.test("retention by size after a flood of new names keeps the newest history, not only the flood", async () => {
  await using log = await tempQueryLog();
  let now = T0;
  await using writer = testWriter(log.path, { now: () => now });
  // Three hours of ordinary traffic: 300 names, 100 queries a minute.
  for (let minute = 0; minute < 180; minute++) {
    now = T0 + (minute + 1) * 60_000;
    await write(
      writer,
      Array.from({ length: 100 }, (_, i) =>
        queryEvent({
          time: T0 + minute * 60_000 + i * 600,
          qname: `h${(minute * 100 + i) % 300}.example.`,
          clientPort: 1024 + ((minute * 100 + i) * 7919) % 60_000,
        })),
    );
  }
  await writer.runRetention(); // folds the minutes into hours
  const history = fileSize(writer.db);
  // Then one minute of 20,000 random names.
  const floodStart = now;
  now += 60_000;
  await write(
    writer,
    Array.from({ length: 20_000 }, (_, i) =>
      queryEvent({
        time: floodStart + i * 3,
        qname: `r${(i * 2_654_435_761) % 4_294_967_296}.victim.example.`,
        status: "servfail_upstream",
      })),
  );
  const db = writer.db;
  const flooded = fileSize(db);
  // Room for the flood and about half the history.
  const max = Math.floor((flooded - history / 2) / 0.9);
  writer.updateSettings(
    querylogSettings({ retention: { maxDBBytes: String(max) } }),
  );
  const report = await writer.runRetention();
  assert.ok(
    report.usedBytes <= max * 0.9,
    `${report.usedBytes} > 90 % of ${max}`,
  );
  const kept = storedEvents(db);
  const keptHistory = kept.filter((e) => e.time < floodStart);
  assert.equal(kept.length - keptHistory.length, 20_000, "the flood is kept");
  assert.ok(
    keptHistory.length > 3000 && keptHistory.length < 17_000,
    `history kept: ${keptHistory.length} of 18,000`,
  );
  // The oldest went first: what is left of the history is its newest part.
  assert.equal(keptHistory.at(-1)!.time, T0 + 179 * 60_000 + 99 * 600);
  const top = topDomains(db, { since: T0, until: now, limit: 1 })[0];
  assert.match(top?.domain ?? "", /^h\d+\.example\.$/);
  assertNoDanglingIds(db);
});

Deno.test("retention by size holds the limit under a flood of one-off clients", async () => {
  await using log = await tempQueryLog();
  let now = T0;
  const max = 1024 * 1024;
  await using writer = testWriter(log.path, {
    now: () => now,
    settings: querylogSettings({ retention: { maxDBBytes: String(max) } }),
  });
  let n = 0;
  for (let round = 0; round < 8; round++) {
    for (let minute = 0; minute < 5; minute++) {
      const events = Array.from({ length: 2000 }, (_, i) => {
        n++;
        return queryEvent({
          time: now + i * 20,
          // Spoofed sources: every query from an address never seen again.
          clientAddress: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
          qname: `h${n % 50}.example.`,
        });
      });
      now += 60_000;
      await write(writer, events);
    }
    const report = await writer.runRetention();
    assert.ok(report.fileBytes <= max, `round ${round}: ${report.fileBytes}`);
    const kept = storedEvents(writer.db).length;
    assert.ok(kept > 0, `round ${round}: no event kept`);
    assert.ok(
      count(writer.db, "SELECT count(*) FROM clients") <= kept,
      `round ${round}: the clients of deleted events are gone`,
    );
    assertNoDanglingIds(writer.db);
  }
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
