import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import type { QueryEvent } from "../pipeline/query_event.ts";
import { EventChunks } from "./event_chunks.ts";
import type { LoggedEvent } from "./event_rows.ts";
import {
  latestEventId,
  searchEvents,
  type SearchOptions,
  tail,
} from "./search.ts";
import { FilterError } from "./search_filters.ts";
import { clientSummary } from "./summaries.ts";
import {
  queryEvent,
  storedEvents,
  T0,
  tempQueryLog,
  testWriter,
} from "./test_support.ts";

/** 1200 events over ~20 minutes, many sharing a millisecond, shuffled. */
function traffic(): QueryEvent[] {
  return Array.from({ length: 1200 }, (_, i) => {
    const blocked = i % 5 === 0;
    const e = queryEvent({
      // Groups of three share a time; (i * 7919) % 1200 shuffles the order.
      time: T0 + Math.floor(((i * 7919) % 1200) / 3) * 3000,
      clientAddress: i % 4 === 0 ? "2001:db8::4" : `192.0.2.${i % 4}`,
      qname: i % 100 === 0
        ? "rare.tracker.example."
        : `host${i % 9}.example.com.`,
      status: blocked ? "blocked_list" : i % 7 === 0 ? "cached" : "forwarded",
    });
    if (blocked) delete e.upstream;
    return e;
  });
}

async function withLog(
  fn: (db: DatabaseSync, all: LoggedEvent[]) => void | Promise<void>,
) {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, { batchSize: 50 });
  const events = traffic();
  // Several enqueues, so later batches hold events older than earlier ones.
  for (let i = 0; i < events.length; i += 300) {
    writer.enqueue(events.slice(i, i + 300));
    await writer.flush();
  }
  const all = searchEvents(writer.db, { limit: 1000 }).events;
  const rest = searchEvents(writer.db, {
    limit: 1000,
    before: `${all.at(-1)!.time}_${all.at(-1)!.id}`,
  }).events;
  await fn(writer.db, [...all, ...rest]);
}

/** Every page of a search, following nextCursor. */
function allPages(db: DatabaseSync, opts: SearchOptions): LoggedEvent[][] {
  const pages: LoggedEvent[][] = [];
  let before: string | undefined;
  for (let guard = 0; guard < 10_000; guard++) {
    const page = searchEvents(db, { ...opts, ...(before ? { before } : {}) });
    pages.push(page.events);
    if (page.nextCursor === null) return pages;
    before = page.nextCursor;
  }
  throw new Error("pagination did not end");
}

const byTimeThenId = (a: LoggedEvent, b: LoggedEvent) =>
  b.time - a.time || b.id - a.id;

Deno.test("search pages cover every event once, in (time desc, id desc) order", async () => {
  await withLog((db, all) => {
    assert.equal(all.length, 1200);
    const expected = storedEvents(db)
      .sort((a, b) => b.time - a.time || b.id - a.id)
      .map((e) => e.id);
    assert.deepEqual(all.map((e) => e.id), expected);
    // Ids do not follow time everywhere: the order is really by time.
    const byId = [...expected].sort((a, b) => b - a);
    assert.notDeepEqual(expected, byId);
    const pages = allPages(db, { limit: 37 });
    assert.ok(pages.every((p) => p.length <= 37));
    assert.deepEqual(pages.flat().map((e) => e.id), expected);
  });
});

Deno.test("search filters by client, domain, status and time", async (t) => {
  await withLog(async (db, all) => {
    const cases: [string, SearchOptions, (e: LoggedEvent) => boolean][] = [
      [
        "client exact",
        { client: "192.0.2.1" },
        (e) => e.clientAddress === "192.0.2.1",
      ],
      [
        "client IPv6",
        { client: "2001:db8::4" },
        (e) => e.clientAddress === "2001:db8::4",
      ],
      [
        "client prefix",
        { client: "192.0.2.0/30" },
        (e) => /^192\.0\.2\.[0-3]$/.test(e.clientAddress),
      ],
      ["client unknown", { client: "203.0.113.1" }, () => false],
      [
        "domain substring",
        { domain: "host3" },
        (e) => e.qname.includes("host3"),
      ],
      [
        "domain suffix",
        { domain: "*.tracker.example" },
        (e) => e.qname.endsWith(".tracker.example."),
      ],
      [
        "domain itself and below",
        { domain: ".example.com" },
        (e) => e.qname.endsWith(".example.com."),
      ],
      ["status", { status: "cached" }, (e) => e.status === "cached"],
      [
        "status blocked alias",
        { status: "blocked" },
        (e) => e.status.startsWith("blocked"),
      ],
      [
        "status list",
        { status: "cached,blocked_list" },
        (e) => e.status === "cached" || e.status === "blocked_list",
      ],
      [
        "since/until",
        { since: T0 + 60_000, until: T0 + 300_000 },
        (e) => e.time >= T0 + 60_000 && e.time < T0 + 300_000,
      ],
      [
        "combined",
        { client: "2001:db8::4", domain: "rare", status: "blocked", since: T0 },
        (e) =>
          e.clientAddress === "2001:db8::4" && e.qname.includes("rare") &&
          e.status.startsWith("blocked"),
      ],
    ];
    for (const [name, opts, keep] of cases) {
      await t.step(name, () => {
        const got = allPages(db, { ...opts, limit: 29 }).flat();
        const want = all.filter(keep).sort(byTimeThenId);
        assert.deepEqual(got.map((e) => e.id), want.map((e) => e.id));
      });
    }
  });
});

Deno.test("search refuses an unknown status and a bad cursor", async () => {
  await withLog((db) => {
    assert.throws(() => searchEvents(db, { status: "nope" }), FilterError);
    assert.throws(() => searchEvents(db, { before: "x" }), RangeError);
  });
});

Deno.test("search with a small scan budget returns short pages that still cover everything", async () => {
  await withLog((db, all) => {
    const pages = allPages(db, { domain: "rare", limit: 5, scanBudget: 100 });
    assert.ok(
      pages.some((p) => p.length < 5 && p !== pages.at(-1)),
      "a short page",
    );
    const want = all.filter((e) => e.qname.includes("rare")).sort(byTimeThenId);
    assert.deepEqual(pages.flat().map((e) => e.id), want.map((e) => e.id));
  });
});

Deno.test("search finds a rare name in hours older than the minute rollups", async () => {
  await using log = await tempQueryLog();
  const now = T0 + 5 * 86_400_000;
  await using writer = testWriter(log.path, { now: () => now });
  writer.enqueue([
    queryEvent({ time: T0 + 1000, qname: "old.rare.example." }),
    ...Array.from(
      { length: 50 },
      (_, i) => queryEvent({ time: T0 + i * 60_000 }),
    ),
    queryEvent({ time: now - 1000, qname: "old.rare.example." }),
  ]);
  await writer.flush();
  const page = searchEvents(writer.db, { domain: "old.rare" });
  assert.deepEqual(page.events.map((e) => e.time), [now - 1000, T0 + 1000]);
});

Deno.test("tail returns events in write order after an id, with filters and a limit", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path);
  assert.deepEqual(tail(writer.db, 0), { events: [], lastId: 0 });
  writer.enqueue([
    queryEvent({ time: T0 + 5 }),
    queryEvent({ time: T0 + 6, status: "cached" }),
  ]);
  await writer.flush();
  const first = tail(writer.db, 0);
  assert.deepEqual(first.events.map((e) => e.time), [T0 + 5, T0 + 6]);
  assert.equal(first.lastId, latestEventId(writer.db));
  // A late event (older time) written now still shows up after lastId.
  writer.enqueue([
    queryEvent({ time: T0 + 1, status: "cached" }),
    queryEvent({ time: T0 + 7 }),
  ]);
  await writer.flush();
  const next = tail(writer.db, first.lastId, { status: "cached" });
  assert.deepEqual(next.events.map((e) => e.time), [T0 + 1]);
  assert.equal(next.lastId, latestEventId(writer.db));
  const limited = tail(writer.db, 0, { limit: 3 });
  assert.equal(limited.events.length, 3);
  assert.deepEqual(tail(writer.db, limited.lastId).events.map((e) => e.time), [
    T0 + 7,
  ]);
});

Deno.test("search decodes each chunk at most once per call, though minutes share chunks", async () => {
  await withLog((db, all) => {
    const { decoded, restore } = recordDecodes();
    try {
      const chunkCount = new Set(
        db.prepare("SELECT first_id FROM event_chunks").all().map((r) =>
          Number(r.first_id)
        ),
      ).size;
      assert.ok(chunkCount >= 2, `${chunkCount} chunks`);
      for (
        const opts of [
          { limit: 1000 },
          { domain: "rare", limit: 5 },
          { status: "cached", limit: 1000 },
          { since: T0 + 60_000, until: T0 + 600_000, limit: 1000 },
        ]
      ) {
        decoded.length = 0;
        const page = searchEvents(db, opts);
        assert.ok(page.events.length > 0);
        assert.equal(
          decoded.length,
          new Set(decoded).size,
          `a chunk decoded twice for ${JSON.stringify(opts)}`,
        );
      }
      // The shuffled times make every minute's id range span both chunks,
      // so without the cache the first search would decode them per minute.
      assert.ok(all.length === 1200);
    } finally {
      restore();
    }
  });
});

/** Records the first id of every chunk a search decodes (the real read runs). */
function recordDecodes() {
  const chunk = EventChunks.prototype.chunk;
  const decoded: number[] = [];
  EventChunks.prototype.chunk = function (firstId) {
    decoded.push(firstId);
    return chunk.call(this, firstId);
  };
  return { decoded, restore: () => EventChunks.prototype.chunk = chunk };
}

Deno.test("the newest page of a busy minute decodes only the chunks that can hold it, late events included", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, { batchSize: 1100 });
  // Ten chunks of one minute, times rising with ids, except that the third
  // chunk holds the minute's newest event and the eighth one of its oldest.
  const minute = T0 + 60_000;
  for (let b = 0; b < 10; b++) {
    writer.enqueue(Array.from({ length: 1100 }, (_, i) => {
      let time = minute + b * 5000 + Math.floor(i / 4);
      if (b === 2 && i === 500) time = minute + 59_999;
      if (b === 7 && i === 3) time = minute;
      return queryEvent({ time, qname: `n${b}-${i}.example.` });
    }));
    await writer.flush();
  }
  const db = writer.db;
  const chunks = db.prepare("SELECT count(*) AS n FROM event_chunks").get();
  assert.equal(Number(chunks?.n), 10);
  const expected = storedEvents(db).sort((a, b) =>
    b.time - a.time || b.id - a.id
  );
  const { decoded, restore } = recordDecodes();
  try {
    const page = searchEvents(db, { limit: 10 });
    assert.deepEqual(
      page.events.map((e) => e.id),
      expected.slice(0, 10).map((e) => e.id),
    );
    assert.equal(page.events[0]!.qname, "n2-500.example.");
    assert.equal(decoded.length, 2, "the late event's chunk and the newest");
    // Every page still walks all of them in order.
    const walked = allPages(db, { limit: 700 }).flat();
    assert.deepEqual(walked.map((e) => e.id), expected.map((e) => e.id));
    assert.equal(walked.at(-1)!.time, minute);
    // Chunks written before their spans were recorded are all read.
    db.exec("DELETE FROM event_chunk_times");
    decoded.length = 0;
    const again = searchEvents(db, { limit: 10 });
    assert.deepEqual(again.events, page.events);
    assert.equal(decoded.length, 10);
  } finally {
    restore();
  }
});

Deno.test("search and clientSummary find an IPv4 client in either spelling, as stored now and as older files hold it", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path);
  writer.enqueue([
    // A dual-stack listener reports IPv4 clients IPv4-mapped.
    queryEvent({ time: T0, clientAddress: "::ffff:192.0.2.30" }),
    queryEvent({ time: T0 + 1000, clientAddress: "192.0.2.31" }),
  ]);
  await writer.flush();
  const db = writer.db;
  const clients = () =>
    db.prepare("SELECT text FROM clients ORDER BY text").all().map((r) =>
      r.text
    );
  assert.deepEqual(clients(), ["192.0.2.30", "192.0.2.31"], "one spelling");
  // What a file written before that holds: the mapped spelling.
  db.prepare(
    "UPDATE clients SET text = '::ffff:192.0.2.31' WHERE text = '192.0.2.31'",
  ).run();
  for (const client of ["192.0.2.31", "::ffff:192.0.2.31", "::ffff:c000:21f"]) {
    assert.equal(searchEvents(db, { client }).events.length, 1, client);
    assert.equal(clientSummary(db, client, { since: T0 }).queries, 1, client);
  }
  for (const client of ["192.0.2.0/24", "::ffff:192.0.2.0/120"]) {
    assert.equal(searchEvents(db, { client }).events.length, 2, client);
  }
});

Deno.test("search by domain suffix matches whole labels, not escaped dots", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path);
  const names = [
    "inlabel.example.",
    "www.inlabel.example.",
    "dot\\.inlabel.example.",
    "slash\\\\.inlabel.example.",
    "odd\\\\\\.inlabel.example.",
  ];
  writer.enqueue(names.map((qname, i) => queryEvent({ qname, time: T0 + i })));
  await writer.flush();
  const found = searchEvents(writer.db, { domain: "*.inlabel.example" })
    .events.map((e) => e.qname).sort();
  assert.deepEqual(found, [
    "inlabel.example.",
    "slash\\\\.inlabel.example.",
    "www.inlabel.example.",
  ]);
});

Deno.test("a busy batch's events are found by client and domain once it is written, before any flush()", async () => {
  // The search picks minutes from client_minutes and domain_minutes: counts
  // written later than their events (an optimisation tried once) hid them.
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, { flushIntervalMs: 20 });
  const busy = Array.from({ length: 12_000 }, (_, i) =>
    queryEvent({
      time: T0 + (i % 60) * 1000,
      clientAddress: i % 1000 === 0 ? "198.51.100.7" : `192.0.2.${i % 200}`,
      qname: i % 1000 === 0 ? "needle.example." : `host${i % 3000}.example.`,
    }));
  writer.enqueue(busy);
  const until = Date.now() + 10_000;
  while (writer.stats().written < busy.length && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(writer.stats().written, busy.length);
  assert.equal(
    searchEvents(writer.db, { client: "198.51.100.7" }).events.length,
    12,
  );
  assert.equal(
    searchEvents(writer.db, { domain: "needle.example" }).events.length,
    12,
  );
});
