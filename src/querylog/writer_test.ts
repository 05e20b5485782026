import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import type { QueryEvent } from "../pipeline/query_event.ts";
import {
  packQueryEvents,
  QueryEventPacker,
} from "../pipeline/query_event_pack.ts";
import { QueryEventReceiver } from "../pipeline/query_event_receiver.ts";
import { memoryLogger } from "../log/logger.ts";
import { foldDomainMinutes } from "./domain_hours.ts";
import { topDomains } from "./stats.ts";
import { searchEvents } from "./search.ts";
import { LiveFeed } from "./live_feed.ts";
import {
  queryEvent,
  querylogSettings,
  storedEvents,
  T0,
  tempQueryLog,
  testWriter,
} from "./test_support.ts";

const count = (db: DatabaseSync, table: string) =>
  table === "events"
    ? storedEvents(db).length
    : Number(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()!.n);

function events(
  n: number,
  make: (i: number) => Partial<QueryEvent> = () => ({}),
) {
  return Array.from(
    { length: n },
    (_, i) => queryEvent({ time: T0 + i, ...make(i) }),
  );
}

Deno.test("writer stores each repeated string once and reads events back whole", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path);
  const written = events(90, (i) => {
    const blocked = i % 3 === 0;
    return {
      qname: ["a.example.", "b.example.", "c.example."][i % 3]!,
      clientAddress: i % 2 ? "192.0.2.1" : "2001:db8::1",
      status: blocked ? "blocked_list" : "forwarded",
      stage: blocked ? "blocking" : "upstream",
      dnssecOk: i % 5 === 0,
      authenticData: i % 7 === 0,
      groups: i % 2 ? ["default/kids", "lab/iot"] : [],
      answer: i % 4 === 0 ? "" : "A 192.0.2.1",
    };
  });
  for (const [i, e] of written.entries()) {
    if (i % 3 === 0) {
      delete e.upstream;
      Object.assign(e, { list: "ads", rule: "||a.example^" });
    }
  }
  writer.enqueue(written);
  await writer.flush();
  const db = writer.db;
  assert.equal(count(db, "events"), 90);
  assert.equal(count(db, "names"), 3);
  assert.equal(count(db, "clients"), 2);
  assert.equal(count(db, "answers"), 1);
  const page = searchEvents(db, { limit: 1000 });
  const back = page.events.map(({ id: _id, ...e }) => e).reverse();
  assert.deepEqual(back, written);
});

/** Makes every write of event chunks fail while a client named "fail-me" is in the batch's transaction. */
function failChunksWithFailMe(db: DatabaseSync): void {
  for (const op of ["INSERT", "UPDATE"]) {
    db.exec(`CREATE TRIGGER fail_${op} BEFORE ${op} ON event_chunks
      WHEN EXISTS (SELECT 1 FROM clients WHERE text = 'fail-me')
      BEGIN SELECT RAISE(ABORT, 'boom'); END`);
  }
}

Deno.test("writer writes one transaction per batch, all or nothing", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, { batchSize: 1000 });
  failChunksWithFailMe(writer.db);
  writer.enqueue(
    events(2500, (i) => (i === 1500 ? { clientAddress: "fail-me" } : {})),
  );
  await writer.flush();
  let stats = writer.stats();
  assert.equal(stats.written, 1000);
  assert.equal(stats.batches, 1);
  assert.equal(stats.failedBatches, 1);
  assert.match(stats.lastError ?? "", /boom/);
  assert.equal(stats.queued, 1500);
  // The failed batch left nothing behind: no events, no rollups.
  assert.equal(count(writer.db, "events"), 1000);
  const rolled = writer.db.prepare(
    "SELECT sum(queries) AS q FROM status_minutes",
  ).get()!;
  assert.equal(Number(rolled.q), 1000);

  writer.db.exec("DROP TRIGGER fail_INSERT; DROP TRIGGER fail_UPDATE");
  await writer.flush();
  stats = writer.stats();
  assert.equal(stats.written, 2500);
  assert.equal(stats.batches, 3);
  assert.equal(count(writer.db, "events"), 2500);
});

Deno.test("writer drops a batch that keeps failing, and goes on", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, { batchSize: 10 });
  failChunksWithFailMe(writer.db);
  writer.enqueue(
    events(20, (i) => (i === 3 ? { clientAddress: "fail-me" } : {})),
  );
  for (let attempt = 0; attempt < 3; attempt++) await writer.flush();
  await writer.flush();
  const stats = writer.stats();
  assert.equal(stats.dropped, 10);
  assert.equal(stats.written, 10);
  assert.equal(stats.queued, 0);
});

/**
 * `written` packed as a worker's batch, with a release that counts its
 * calls and detaches the arrays, as handing them back to the worker does.
 */
function releasable(written: QueryEvent[]) {
  const batch = packQueryEvents(written);
  const released = { times: 0 };
  batch.release = () => {
    released.times++;
    structuredClone(null, {
      transfer: [
        batch.times.buffer as ArrayBuffer,
        batch.ints.buffer as ArrayBuffer,
      ],
    });
  };
  return { batch, released };
}

Deno.test("writer releases a packed batch once it is written, not while it waits to be retried", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, { batchSize: 10 });
  failChunksWithFailMe(writer.db);
  const first = events(6, (i) => (i === 3 ? { clientAddress: "fail-me" } : {}));
  const second = events(6, (i) => ({ time: T0 + 6 + i }));
  const a = releasable(first);
  const b = releasable(second);
  writer.enqueuePacked(a.batch);
  writer.enqueuePacked(b.batch);
  await writer.flush();
  assert.equal(writer.stats().failedBatches, 1);
  assert.deepEqual([a.released.times, b.released.times], [0, 0]);

  writer.db.exec("DROP TRIGGER fail_INSERT; DROP TRIGGER fail_UPDATE");
  await writer.flush();
  assert.equal(writer.stats().written, 12);
  assert.deepEqual([a.released.times, b.released.times], [1, 1]);
  // Read before their arrays went: every event whole.
  const back = searchEvents(writer.db, { limit: 100 }).events
    .map(({ id: _id, ...e }) => e).reverse();
  assert.deepEqual(back, [...first, ...second]);
});

Deno.test("writer releases at once a packed batch it does not keep, and at close what it could not write", async () => {
  await using log = await tempQueryLog();
  const writer = testWriter(log.path, { maxQueue: 4 });
  const cut = releasable(events(6));
  writer.enqueuePacked(cut.batch);
  const full = releasable(events(2));
  writer.enqueuePacked(full.batch);
  assert.deepEqual([cut.released.times, full.released.times], [0, 1]);

  writer.updateSettings(querylogSettings({ enabled: false }));
  const disabled = releasable(events(2));
  writer.enqueuePacked(disabled.batch);
  assert.equal(disabled.released.times, 1);
  writer.updateSettings(querylogSettings());

  writer.db.exec(`CREATE TRIGGER full BEFORE INSERT ON event_chunks
    BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
  await writer.close();
  assert.equal(writer.stats().droppedWriteFailed, 4);
  assert.equal(cut.released.times, 1, "dropped unwritten at close");
  const closed = releasable(events(2));
  writer.enqueuePacked(closed.batch);
  assert.equal(closed.released.times, 1);
  assert.deepEqual(
    [cut, full, disabled, closed].map((r) => r.released.times),
    [1, 1, 1, 1],
  );
  assert.equal(writer.stats().written, 0);
});

Deno.test("writer enqueue stays fast and counts drops while writes are locked out", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, {
    maxQueue: 10_000,
    batchSize: 1000,
  });
  const other = new DatabaseSync(log.path);
  try {
    other.exec("BEGIN EXCLUSIVE");
    const chunk = events(1000);
    const started = performance.now();
    for (let i = 0; i < 60; i++) writer.enqueue(chunk);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 250, `60 enqueues took ${elapsed} ms`);
    let stats = writer.stats();
    assert.equal(stats.queued, 10_000);
    assert.equal(stats.dropped, 50_000);

    await writer.flush();
    stats = writer.stats();
    assert.equal(stats.written, 0);
    assert.match(stats.lastError ?? "", /locked|busy/i);
    assert.equal(stats.queued, 10_000, "a locked-out batch stays queued");
    other.exec("COMMIT");
  } finally {
    other.close();
  }
  await writer.flush();
  assert.equal(writer.stats().written, 10_000);
  assert.equal(writer.stats().dropped, 50_000);
});

Deno.test("writer counts invalid events and stores the rest", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path);
  const bad = [
    { ...queryEvent(), time: Number.NaN },
    { ...queryEvent(), qname: 5 },
    null,
    { ...queryEvent(), status: undefined },
  ] as unknown as QueryEvent[];
  writer.enqueue([queryEvent(), ...bad]);
  writer.enqueue("not a list" as unknown as QueryEvent[]);
  await writer.flush();
  const stats = writer.stats();
  assert.equal(stats.written, 1);
  // Four bad events, then every character of the string.
  assert.equal(stats.invalid, 4 + "not a list".length);
  assert.equal(stats.failedBatches, 0);
});

Deno.test("writer flushes on its own once a batch is ready", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, { batchSize: 10 });
  writer.enqueue(events(10));
  const deadline = Date.now() + 5000;
  while (writer.stats().written < 10 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.equal(writer.stats().written, 10);
});

Deno.test("writer close writes what is queued; a new writer continues the ids", async () => {
  await using log = await tempQueryLog();
  const first = testWriter(log.path);
  first.enqueue(events(5));
  await first.close();
  await using second = testWriter(log.path);
  second.enqueue(events(5, () => ({ time: T0 + 100 })));
  await second.flush();
  const ids = storedEvents(second.db).map((e) => e.id);
  assert.deepEqual(ids, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
});

Deno.test("writer with enabled: false stores nothing", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, {
    settings: querylogSettings({ enabled: false }),
  });
  writer.enqueue(events(3));
  await writer.flush();
  assert.equal(writer.stats().excluded, 3);
  assert.equal(count(writer.db, "events"), 0);
});

Deno.test("writer hides clients, names or both by privacy mode, in events and rollups", async (t) => {
  const RULE = "||www.example^";
  const LAPTOP = "default/alice-laptop";
  const cases = [
    ["hideClient", "hidden", "www.example.", "A 192.0.2.1", RULE, []],
    ["hideDomain", "192.0.2.9", "hidden.", "", undefined, [LAPTOP]],
    ["anonymous", "hidden", "hidden.", "", undefined, []],
  ] as const;
  for (const [privacy, client, qname, answer, rule, groups] of cases) {
    await t.step(privacy, async () => {
      await using log = await tempQueryLog();
      await using writer = testWriter(log.path, {
        settings: querylogSettings({ privacy }),
      });
      writer.enqueue(events(2, () => ({
        clientAddress: "192.0.2.9",
        clientPort: 5353,
        qname: "www.example.",
        answer: "A 192.0.2.1",
        list: "ads",
        rule: RULE,
        // A group of one device names its owner as well as the address.
        groups: [LAPTOP],
      })));
      await writer.flush();
      const stored = searchEvents(writer.db, { limit: 10 }).events;
      assert.equal(stored.length, 2);
      for (const e of stored) {
        assert.equal(e.clientAddress, client);
        assert.equal(e.qname, qname);
        assert.equal(e.answer, answer);
        assert.equal(e.rule, rule, "a rule names the blocked domain");
        assert.equal(e.list, "ads");
        assert.equal(e.clientPort, client === "hidden" ? 0 : 5353);
        assert.deepEqual(e.groups, groups);
      }
      const texts = (table: string) =>
        writer.db.prepare(`SELECT text FROM ${table}`).all()
          .map((r) => String(r.text));
      assert.deepEqual(texts("names"), [qname], "nothing else is stored");
      assert.deepEqual(texts("clients"), [client]);
      assert.equal(
        texts("labels").some((text) => text.includes("example")),
        rule !== undefined,
      );
      assert.equal(
        texts("labels").some((text) => text.includes("alice")),
        groups.length > 0,
      );
    });
  }
});

Deno.test("writer leaves out excluded names and clients of a packed batch, each decided once per string", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, {
    settings: querylogSettings({
      exclude: {
        domains: ["ads.example"],
        clients: ["198.51.100.0/24", "kids"],
      },
    }),
  });
  const kept = [
    queryEvent({ qname: "www.example.com." }),
    queryEvent({ qname: "notads.example." }),
    // The same client as an excluded event below, in other groups.
    queryEvent({ clientAddress: "192.0.2.77", groups: ["home/adults"] }),
  ];
  const excluded = [
    queryEvent({ qname: "ads.example." }),
    queryEvent({ qname: "x.ADS.example." }),
    queryEvent({ clientAddress: "198.51.100.9" }),
    queryEvent({ clientAddress: "192.0.2.77", groups: ["home/kids"] }),
  ];
  // Twice over in one batch: the memo of a string must give the same answer.
  writer.enqueuePacked(
    packQueryEvents([...kept, ...excluded, ...excluded, ...kept]),
  );
  await writer.flush();
  const stats = writer.stats();
  assert.equal(stats.excluded, 8);
  assert.equal(stats.written, 6);
  const names = searchEvents(writer.db, { limit: 100 }).events.map((e) =>
    `${e.qname} ${e.clientAddress} ${e.groups.join(",")}`
  ).sort();
  assert.deepEqual(
    names,
    [
      ...kept,
      ...kept,
    ].map((e) => `${e.qname} ${e.clientAddress} ${e.groups.join(",")}`).sort(),
  );
});

Deno.test("writer stores batches that share a worker's string table whole, across flushes and table restarts", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path);
  // A packer whose table starts over every few strings, as a worker's
  // does under a flood of fresh names.
  const packer = new QueryEventPacker(8, 12);
  const receiver = new QueryEventReceiver();
  const written: QueryEvent[] = [];
  const tables = new Set<number>();
  for (let round = 0; round < 6; round++) {
    const batch = events(5, (i) => {
      const blocked = (round + i) % 2 === 0;
      return {
        time: T0 + round * 10 + i,
        qname: `n${(round + i) % 4}.example.`,
        status: blocked ? "blocked_list" : "forwarded",
        stage: blocked ? "blocking" : "upstream",
        ...(blocked ? { list: "ads", rule: "||n.example^" } : {}),
      };
    });
    for (const e of batch) {
      if (e.status === "blocked_list") delete e.upstream;
      packer.add(e);
    }
    written.push(...batch);
    const posted = packer.take();
    tables.add(posted.table);
    writer.enqueuePacked(receiver.receive(posted)!);
    if (round % 2 === 1) await writer.flush();
  }
  await writer.flush();
  assert.ok(tables.size >= 2, "the table started over");
  const back = searchEvents(writer.db, { limit: 1000 }).events
    .map(({ id: _id, ...e }) => e).reverse();
  assert.deepEqual(back, written);
  assert.equal(count(writer.db, "names"), 4, "each name stored once");
  // Blocked counts come from each batch's own reading of its statuses.
  await foldDomainMinutes(writer.db, T0 + 10 * 60_000);
  const blocked = new Map(
    topDomains(writer.db, { since: T0 - 60_000, until: T0 + 60_000 })
      .map((d) => [d.domain, d.blocked]),
  );
  const expected = new Map<string, number>();
  for (const e of written) {
    const add = e.status === "blocked_list" ? 1 : 0;
    expected.set(e.qname, (expected.get(e.qname) ?? 0) + add);
  }
  assert.deepEqual(blocked, expected);
});

Deno.test("writer stores a time far ahead of its clock as its clock", async () => {
  await using log = await tempQueryLog();
  const now = T0 + 3_600_000;
  await using writer = testWriter(log.path, { now: () => now });
  writer.enqueue([
    queryEvent({ time: now + 30_000, qname: "soon.example." }),
    queryEvent({ time: now + 365 * 86_400_000, qname: "next-year.example." }),
  ]);
  await writer.flush();
  const times = Object.fromEntries(
    searchEvents(writer.db).events.map((e) => [e.qname, e.time]),
  );
  assert.deepEqual(times, {
    "soon.example.": now + 30_000, // within MAX_FUTURE_MS: as it came
    "next-year.example.": now,
  });
  assert.equal(
    Number(
      writer.db.prepare("SELECT max(minute) AS m FROM status_minutes").get()!.m,
    ),
    Math.floor((now + 30_000) / 60_000),
    "the rollups follow",
  );
});

Deno.test("writer moves a file that turns out damaged aside and goes on in a new one", async () => {
  await using log = await tempQueryLog();
  {
    await using first = testWriter(log.path);
    first.enqueue(events(3));
    await first.flush();
  }
  // Damage a page that opening the file never reads: status_minutes'.
  const probe = new DatabaseSync(log.path, { readOnly: true });
  const page = Number(
    probe.prepare(
      "SELECT rootpage FROM sqlite_master WHERE name = 'status_minutes'",
    ).get()!.rootpage,
  );
  const pageSize = Number(probe.prepare("PRAGMA page_size").get()!.page_size);
  probe.close();
  const file = Deno.openSync(log.path, { write: true });
  file.seekSync((page - 1) * pageSize, Deno.SeekMode.Start);
  file.writeSync(new Uint8Array(pageSize).fill(0x41));
  file.close();

  const logger = memoryLogger();
  await using writer = testWriter(log.path, { logger });
  writer.enqueue(events(2, (i) => ({ qname: `after${i}.example.` })));
  await writer.flush();
  const stats = writer.stats();
  assert.equal(stats.written, 2);
  assert.equal(stats.dropped, 0);
  assert.equal(stats.damagedFilesReplaced, 1);
  assert.deepEqual(
    searchEvents(writer.db).events.map((e) => e.qname).sort(),
    ["after0.example.", "after1.example."],
    "the new file holds the batch",
  );
  const aside = [...Deno.readDirSync(log.dir)].filter((f) =>
    /^querylog\.db\.damaged-/.test(f.name)
  );
  assert.equal(aside.length, 1, "the damaged file is kept for a look");
  const errors = logger.lines.filter((l) => JSON.parse(l).level === "error");
  assert.equal(errors.length, 1, errors.join("\n"));
  assert.match(errors[0]!, /moved it aside and started a new one/);
  // The next batches go to the new file without more ado.
  writer.enqueue(events(1));
  await writer.flush();
  assert.equal(writer.stats().written, 3);
});

Deno.test("writer publishes queued batches to the live feed, as stored", async () => {
  await using log = await tempQueryLog();
  const feed = new LiveFeed();
  await using writer = testWriter(log.path, {
    liveFeed: feed,
    maxQueue: 3,
    settings: querylogSettings({
      privacy: "hideClient",
      exclude: { domains: ["lan"] },
    }),
  });
  writer.enqueue([queryEvent({ qname: "nobody.listens." })]);
  const sub = feed.subscribe();
  writer.enqueue([
    queryEvent({ qname: "a.example." }),
    queryEvent({ qname: "printer.lan." }),
    queryEvent({ qname: "b.example." }),
    queryEvent({ qname: "over.the.queue.bound." }),
  ]);
  const batch = await sub.next(100);
  assert.deepEqual(batch.events.map((e) => e.event.qname), ["a.example."]);
  assert.equal(batch.events[0]!.event.clientAddress, "hidden");
  await writer.flush();
  sub.close();
});
