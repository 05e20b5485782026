/**
 * The writer when querylog.db will not open or write: it keeps what waits,
 * opens the file again once it can, and says so in a few lines, not one a
 * second. Failures are real: a directory where the file should be, a
 * directory moved away under an open file, a handle closed underneath, a
 * trigger that fails every write as a full disk does.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { memoryLogger } from "../log/logger.ts";
import { searchEvents } from "./search.ts";
import { queryEvent, T0, tempQueryLog, testWriter } from "./test_support.ts";
import { QueryLogNotOpenError } from "./writer_connection.ts";

/** A clock the test moves. */
function testClock(start = T0 + 3_600_000) {
  const clock = { now: start, tick: (ms: number) => clock.now += ms };
  return clock;
}

const events = (n: number, qname = "www.example.com.") =>
  Array.from({ length: n }, (_, i) => queryEvent({ time: T0 + i, qname }));

/** The lines of `level` a memory logger holds, as their messages. */
function messages(lines: readonly string[], level: string): string[] {
  return lines.map((l) => JSON.parse(l)).filter((l) => l.level === level)
    .map((l) => l.msg);
}

/** Damages a page that opening the file never reads: status_minutes'. */
function damageStatusMinutes(path: string): void {
  const probe = new DatabaseSync(path, { readOnly: true });
  const page = Number(
    probe.prepare(
      "SELECT rootpage FROM sqlite_master WHERE name = 'status_minutes'",
    ).get()!.rootpage,
  );
  const pageSize = Number(probe.prepare("PRAGMA page_size").get()!.page_size);
  probe.close();
  const file = Deno.openSync(path, { write: true });
  file.seekSync((page - 1) * pageSize, Deno.SeekMode.Start);
  file.writeSync(new Uint8Array(pageSize).fill(0x41));
  file.close();
}

Deno.test("writer that cannot open its file at start keeps events and writes them once it opens", async () => {
  await using log = await tempQueryLog();
  await Deno.mkdir(log.path); // where the file should be
  const clock = testClock();
  const logger = memoryLogger();
  await using writer = testWriter(log.path, { logger, now: () => clock.now });
  let stats = writer.stats();
  assert.equal(stats.failing, true);
  assert.equal(stats.failedOpens, 1);
  assert.throws(() => writer.db, QueryLogNotOpenError);

  writer.enqueue(events(5));
  await writer.flush(); // too soon to try again
  assert.equal(writer.stats().failedOpens, 1);
  clock.tick(1000);
  await writer.flush(); // tried, still a directory
  stats = writer.stats();
  assert.equal(stats.failedOpens, 2);
  assert.equal(stats.queued, 5, "events wait while the file does not open");
  assert.equal(stats.dropped, 0);

  await Deno.remove(log.path);
  clock.tick(1000);
  await writer.flush();
  assert.equal(writer.stats().failedOpens, 2, "the pause doubled to 2 s");
  clock.tick(1000);
  await writer.flush();
  stats = writer.stats();
  assert.equal(stats.written, 5);
  assert.equal(stats.failing, false);
  assert.equal(searchEvents(writer.db).events.length, 5);
  assert.deepEqual(messages(logger.lines, "error"), [
    "Cannot open the query log; will try again, keeping events in memory meanwhile",
  ]);
  assert.match(
    logger.lines.find((l) => JSON.parse(l).level === "error") ?? "",
    /is a directory or another non-file, not a query log: move it away/,
  );
  assert.deepEqual(messages(logger.lines, "info"), [
    "The query log works again",
  ]);
});

Deno.test("writer opens its file again after the handle was closed underneath", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path);
  writer.db.close();
  assert.throws(() => writer.db, QueryLogNotOpenError, "no closed handle");
  writer.enqueue(events(3));
  await writer.flush();
  await writer.flush();
  const stats = writer.stats();
  assert.equal(stats.written, 3);
  assert.equal(stats.dropped, 0);
  assert.equal(stats.failing, false);
  assert.equal(writer.db.isOpen, true);
});

Deno.test("writer writes to the file at its path again when the open one was deleted or replaced", async () => {
  // SQLite kept writing into the deleted file: every later event was lost
  // while counted as written, and nothing said so.
  await using log = await tempQueryLog();
  const logger = memoryLogger();
  await using writer = testWriter(log.path, { logger });
  writer.enqueue(events(3, "before.example."));
  await writer.flush();
  for (const suffix of ["", "-wal", "-shm"]) {
    await Deno.remove(log.path + suffix).catch(() => {});
  }
  writer.enqueue(events(2, "deleted.example."));
  await writer.flush();
  let stats = writer.stats();
  assert.equal(stats.filesLostFromPath, 1);
  assert.equal(stats.written, 5);
  assert.equal(stats.failing, false);
  assert.deepEqual(
    searchEvents(writer.db).events.map((e) => e.qname),
    ["deleted.example.", "deleted.example."],
    "in a new file at the path",
  );
  assert.ok(Deno.statSync(log.path).isFile);

  // Replaced by something that is not a query log: moved aside as damaged.
  // The lost file's write-ahead log stays at the path, and SQLite would
  // read its pages as the new file's: the writer removes it.
  await Deno.rename(log.path, `${log.path}-kept`);
  assert.ok(Deno.statSync(`${log.path}-wal`).isFile);
  await Deno.writeTextFile(log.path, "not sqlite, and long enough to tell");
  writer.enqueue(events(1, "replaced.example."));
  await writer.flush();
  stats = writer.stats();
  assert.equal(stats.filesLostFromPath, 2);
  assert.equal(stats.damagedFilesReplaced, 1);
  assert.deepEqual(
    searchEvents(writer.db).events.map((e) => e.qname),
    ["replaced.example."],
  );
  assert.deepEqual(messages(logger.lines, "error"), [
    "The query log file was deleted or replaced while open; writing to the file at its path again",
    "The query log file was deleted or replaced while open; writing to the file at its path again",
    "The query log was damaged; moved it aside and started a new one",
  ]);
});

Deno.test("writer that cannot replace a damaged file keeps events, and replaces it once it can", async () => {
  await using log = await tempQueryLog();
  const dataDir = join(log.dir, "data");
  const path = join(dataDir, "querylog.db");
  await Deno.mkdir(dataDir);
  {
    await using first = testWriter(path);
    first.enqueue(events(3));
    await first.flush();
  }
  damageStatusMinutes(path);
  const clock = testClock();
  const logger = memoryLogger();
  await using writer = testWriter(path, { logger, now: () => clock.now });
  // The data directory goes away under the open file, as a disk that
  // cannot take a new file: moving aside and starting anew both fail.
  await Deno.rename(dataDir, `${dataDir}-away`);
  await Deno.writeTextFile(dataDir, "");
  writer.enqueue(events(2, "after.example."));
  await writer.flush();
  assert.throws(() => writer.db, QueryLogNotOpenError, "no closed handle");
  let stats = writer.stats();
  assert.equal(stats.queued, 2, "the batch waits for a file");
  assert.equal(stats.damagedFilesReplaced, 0);
  assert.equal(stats.failing, true);

  await Deno.remove(dataDir);
  await Deno.rename(`${dataDir}-away`, dataDir);
  clock.tick(1000);
  await writer.flush();
  stats = writer.stats();
  assert.equal(stats.damagedFilesReplaced, 1, "no hour's wait: none worked");
  assert.equal(stats.written, 2);
  assert.equal(stats.dropped, 0);
  assert.equal(stats.failing, false);
  assert.deepEqual(
    searchEvents(writer.db).events.map((e) => e.qname),
    ["after.example.", "after.example."],
  );
  assert.ok(
    [...Deno.readDirSync(dataDir)].some((f) =>
      f.name.startsWith("querylog.db.damaged-")
    ),
  );
  // The file left its path with its directory: the writer lets it go and
  // cannot open the path until the directory is back, damaged file and all.
  assert.deepEqual(messages(logger.lines, "error"), [
    "The query log file was deleted or replaced while open; writing to the file at its path again",
    "Cannot open the query log; will try again, keeping events in memory meanwhile",
    "The query log was damaged; moved it aside and started a new one",
  ]);
});

Deno.test("writer moves a file that is damaged at start aside, and counts it", async () => {
  await using log = await tempQueryLog();
  await Deno.writeTextFile(log.path, "not sqlite, and long enough to tell");
  await using writer = testWriter(log.path);
  assert.equal(writer.stats().damagedFilesReplaced, 1);
  writer.enqueue(events(1));
  await writer.flush();
  assert.equal(writer.stats().written, 1);
});

/** Makes every batch fail as a full disk does. */
function failEveryBatch(db: DatabaseSync): void {
  db.exec(`CREATE TRIGGER full BEFORE INSERT ON event_chunks
    BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
}

Deno.test("writer logs a failing disk once, then a summary a minute, then when it works again", async () => {
  await using log = await tempQueryLog();
  const clock = testClock();
  const logger = memoryLogger();
  await using writer = testWriter(log.path, { logger, now: () => clock.now });
  failEveryBatch(writer.db);
  for (let second = 0; second < 150; second++) {
    writer.enqueue(events(10));
    await writer.flush();
    clock.tick(1000);
  }
  assert.deepEqual(messages(logger.lines, "warn"), [
    "Cannot write a query-log batch; will retry",
    "The query log still cannot be written", // after a minute; then two
  ]);
  assert.deepEqual(messages(logger.lines, "error"), [
    "Dropped a query-log batch that failed repeatedly; further drops are summed up once a minute",
  ]);
  let stats = writer.stats();
  assert.equal(stats.written, 0);
  assert.equal(stats.failing, true);
  assert.equal(stats.failedBatches, 150);
  assert.ok(stats.droppedWriteFailed >= 1400, String(stats.droppedWriteFailed));

  writer.db.exec("DROP TRIGGER full");
  writer.enqueue(events(10));
  await writer.flush();
  stats = writer.stats();
  assert.equal(stats.failing, false);
  assert.ok(stats.written > 0);
  const recovered = logger.lines.map((l) => JSON.parse(l)).filter((l) =>
    l.level === "info"
  );
  assert.equal(recovered.length, 1);
  assert.equal(recovered[0].msg, "The query log works again");
  assert.equal(recovered[0].failedBatches, 150);
  assert.equal(recovered[0].droppedEvents, stats.droppedWriteFailed);
});

Deno.test("writer close says once how many events it could not write, and why", async () => {
  await using log = await tempQueryLog();
  const logger = memoryLogger();
  const writer = testWriter(log.path, { logger });
  failEveryBatch(writer.db);
  writer.enqueue(events(10));
  await writer.close();
  const lines = logger.lines.map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.msg), [
    "Closed the query log with events it could not write",
  ]);
  assert.equal(lines[0].events, 10);
  assert.match(lines[0].error, /database or disk is full/);
  const stats = writer.stats();
  assert.equal(stats.dropped, 10);
  assert.equal(stats.droppedWriteFailed, 10);
});
