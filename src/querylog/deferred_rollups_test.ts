import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import type { QueryEvent } from "../pipeline/query_event.ts";
import { eventually } from "../objects/testdata/fixtures.ts";
import { BatchStore, type BatchStoreOptions } from "./batch_store.ts";
import { openQueryLogDb } from "./db.ts";
import { createEventFilter } from "./event_filter.ts";
import { packEvents } from "./event_queue.ts";
import {
  queryEvent,
  querylogSettings,
  storedEvents,
  T0,
  tempQueryLog,
  testWriter,
} from "./test_support.ts";
import type { QueryLogWriter } from "./writer.ts";

const filter = createEventFilter(querylogSettings());

/** `n` events over a few clients and names, all in T0's minute. */
function events(n: number, seed = 0): QueryEvent[] {
  return Array.from({ length: n }, (_, i) =>
    queryEvent({
      time: T0 + ((i + seed) % 50) * 1000,
      clientAddress: `192.0.2.${(i + seed) % 5}`,
      qname: `n${(i * 7 + seed) % 11}.example.`,
    }));
}

function write(store: BatchStore, list: QueryEvent[], now: number): void {
  const { batch } = packEvents(list);
  store.writeEvents([{ batch, from: 0, to: batch.count }], filter, now);
}

/** Summed queries per (minute, key) of a rollup table, as sorted lines. */
function counts(db: DatabaseSync, table: string, key: string): string[] {
  return db.prepare(
    `SELECT minute, ${key} AS k, queries FROM ${table} ORDER BY minute, k`,
  ).all().map((r) => `${r.minute} ${r.k} ${r.queries}`);
}

/** The same, computed from the stored events. */
function expected(db: DatabaseSync, field: "client" | "qname"): string[] {
  const tally = new Map<string, number>();
  for (const e of storedEvents(db)) {
    const key = `${Math.floor(e.time / 60_000)} ${e[field]}`;
    tally.set(key, (tally.get(key) ?? 0) + 1);
  }
  return [...tally].map(([k, n]) => `${k} ${n}`).sort((a, b) =>
    a.localeCompare(b, "en", { numeric: true })
  );
}

function sorted(lines: string[]): string[] {
  return [...lines].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
}

/** client_minutes and domain_minutes hold exactly the stored events' counts. */
function assertCountsMatchEvents(db: DatabaseSync): void {
  assert.deepEqual(
    sorted(counts(db, "client_minutes", "client")),
    expected(db, "client"),
  );
  assert.deepEqual(
    sorted(counts(db, "domain_minutes", "name")),
    expected(db, "qname"),
  );
}

/** Runs `body` on a new querylog.db, closed (and removed) after. */
async function withDb(body: (db: DatabaseSync) => void): Promise<void> {
  await using log = await tempQueryLog();
  const db = openQueryLogDb(log.path);
  try {
    body(db);
  } finally {
    db.close();
  }
}

/** Counts wait 10 s, whatever the batch's size. */
const WAIT_10S: BatchStoreOptions = {
  deferRollups: { ms: 10_000, fromEvents: 1 },
};

Deno.test("client and domain counts wait for the deferral, then equal the stored events", () =>
  withDb((db) => {
    const store = new BatchStore(db, WAIT_10S);
    const now = T0 + 60_000;
    write(store, events(40), now);
    write(store, events(30, 3), now + 5_000);
    // The events and the per-status counts are in; clients and domains wait.
    assert.equal(storedEvents(db).length, 70);
    const statusTotal = db.prepare(
      "SELECT sum(queries) AS n FROM status_minutes",
    ).get()!;
    assert.equal(Number(statusTotal.n), 70);
    assert.deepEqual(counts(db, "client_minutes", "client"), []);
    assert.deepEqual(counts(db, "domain_minutes", "name"), []);
    assert.ok(store.deferredRollups > 0);
    assert.equal(store.deferredRollupsDue(now + 9_999), false);
    assert.equal(store.deferredRollupsDue(now + 10_000), true);

    // The first batch after the wait writes its own counts and the waiting ones.
    write(store, events(20, 7), now + 10_000);
    assert.equal(store.deferredRollups, 0);
    assertCountsMatchEvents(db);
  }));

Deno.test("waiting counts survive a write that rolls back, and are added once", () =>
  withDb((db) => {
    const store = new BatchStore(db, WAIT_10S);
    const now = T0 + 60_000;
    write(store, events(25), now);
    db.exec(`CREATE TEMP TRIGGER refuse BEFORE INSERT ON client_minutes
             BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END`);
    assert.throws(() => store.writeDeferredRollups(now), /disk full/);
    // Nor does a batch due to write them get through: it rolls back whole.
    assert.throws(() => write(store, events(5, 1), now + 10_000), /disk full/);
    assert.equal(storedEvents(db).length, 25);
    assert.ok(store.deferredRollups > 0);

    db.exec("DROP TRIGGER refuse");
    store.writeDeferredRollups(now);
    assert.equal(store.deferredRollups, 0);
    assertCountsMatchEvents(db);
  }));

Deno.test("counts of small batches, or of a store without deferral, are written at once", () =>
  withDb((db) => {
    const options: BatchStoreOptions[] = [
      {},
      { deferRollups: { ms: 10_000, fromEvents: 13 } },
    ];
    for (const opts of options) {
      // Made after the one before wrote: a store reads the next id at start.
      const store = new BatchStore(db, opts);
      write(store, events(12), T0 + 60_000);
      assert.equal(store.deferredRollups, 0);
      assertCountsMatchEvents(db);
    }
  }));

Deno.test("the writer's default lets only a busy node's counts wait", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, { flushIntervalMs: 20 });
  writer.enqueue(events(5));
  // A query asked by hand shows in the statistics without a flush().
  await eventually(() =>
    counts(writer.db, "client_minutes", "client").length > 0
  );
  assert.deepEqual(
    sorted(counts(writer.db, "client_minutes", "client")),
    expected(writer.db, "client"),
  );
});

Deno.test("the writer adds waiting counts once their wait is over, with no new events", async () => {
  await using log = await tempQueryLog();
  let now = T0 + 60_000;
  await using writer = testWriter(log.path, {
    now: () => now,
    flushIntervalMs: 20,
    deferRollups: { ms: 10_000, fromEvents: 1 },
  });
  writer.enqueue(events(30));
  await eventually(() => writer.stats().written === 30);
  const clientRows = () => counts(writer.db, "client_minutes", "client");
  assert.deepEqual(clientRows(), []);
  now += 10_000;
  await eventually(() => clientRows().length > 0);
  assert.deepEqual(sorted(clientRows()), expected(writer.db, "client"));
});

for (
  const [name, add] of [
    ["flush()", (w: QueryLogWriter) => w.flush()],
    ["the retention run", (w: QueryLogWriter) => w.runRetention()],
  ] as const
) {
  Deno.test(`${name} adds waiting counts at once`, async () => {
    await using log = await tempQueryLog();
    await using writer = testWriter(log.path, {
      now: () => T0 + 60_000,
      flushIntervalMs: 20,
      deferRollups: { ms: 3_600_000, fromEvents: 1 },
    });
    writer.enqueue(events(20));
    // Written by the periodic flush: the counts wait (an hour, here).
    await eventually(() => writer.stats().written === 20);
    const domainRows = () => counts(writer.db, "domain_minutes", "name");
    assert.deepEqual(domainRows(), []);
    await add(writer);
    assert.deepEqual(sorted(domainRows()), expected(writer.db, "qname"));
  });
}
