import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import type { QueryEvent } from "../pipeline/query_event.ts";
import type { Status } from "../pipeline/status.ts";
import { foldDomainMinutes, readDomainHoursThrough } from "./domain_hours.ts";
import {
  labelIds,
  queryEvent,
  querylogSettings,
  type StoredEvent,
  storedEvents,
  T0,
  tempQueryLog,
  testWriter,
} from "./test_support.ts";

const STATUSES: Status[] = [
  "forwarded",
  "cached",
  "blocked_list",
  "blocked_service",
  "servfail_upstream",
];

/** Deterministic, varied events over `spanMs`, in shuffled order. */
function mixedEvents(n: number, spanMs: number): QueryEvent[] {
  return Array.from({ length: n }, (_, i) => {
    const status = STATUSES[(i * 7) % STATUSES.length]!;
    const e = queryEvent({
      time: T0 + ((i * 7919) % spanMs),
      clientAddress: `192.0.2.${i % 13}`,
      qname: `n${(i * 31) % 17}.example.`,
      status,
      durationUs: 100 + (i % 50),
      upstream: `up-${i % 3}`,
    });
    if (status.startsWith("blocked")) delete e.upstream;
    return e;
  });
}

/** Rows of a query as sorted JSON lines, for order-free comparison. */
function rows(db: DatabaseSync, sql: string): string[] {
  return db.prepare(sql).all().map((r) => JSON.stringify(Object.values(r)))
    .sort();
}

/**
 * The stored events grouped by `key`, one `[...key, ...sums]` row per
 * group as sorted JSON lines (what GROUP BY over the v1 events table gave).
 */
function grouped(
  events: StoredEvent[],
  key: (e: StoredEvent) => number[],
  sums: (group: StoredEvent[]) => number[],
): string[] {
  const groups = new Map<string, { key: number[]; events: StoredEvent[] }>();
  for (const e of events) {
    const k = key(e);
    const id = JSON.stringify(k);
    const group = groups.get(id) ?? { key: k, events: [] };
    group.events.push(e);
    groups.set(id, group);
  }
  return [...groups.values()].map((g) =>
    JSON.stringify([...g.key, ...sums(g.events)])
  ).sort();
}

const minuteOf = (e: StoredEvent) => Math.floor(e.time / 60_000);
const hourOf = (e: StoredEvent) => Math.floor(e.time / 3_600_000);
const count = (events: StoredEvent[], keep: (e: StoredEvent) => boolean) =>
  events.filter(keep).length;
const sum = (events: StoredEvent[], value: (e: StoredEvent) => number) =>
  events.reduce((total, e) => total + value(e), 0);

const blockedIds = (db: DatabaseSync) =>
  labelIds(db, "status", (text) => text.startsWith("blocked"));

Deno.test("rollups equal the raw events they summarise, across late events and batches", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, { batchSize: 97 });
  const events = mixedEvents(3000, 3 * 3_600_000);
  writer.enqueue(events);
  await writer.flush();
  const db = writer.db;
  assert.equal(writer.stats().batches, Math.ceil(3000 / 97));
  const stored = storedEvents(db);
  assert.equal(stored.length, 3000);
  const blocked = blockedIds(db);
  const isBlocked = (e: StoredEvent) => blocked.has(e.status);
  const [servfail] = labelIds(db, "status", (t) => t === "servfail_upstream");

  assert.deepEqual(
    rows(db, "SELECT minute, status, queries, duration_us FROM status_minutes"),
    grouped(stored, (e) => [minuteOf(e), e.status], (g) => [
      g.length,
      sum(g, (e) => e.duration_us),
    ]),
  );
  assert.deepEqual(
    rows(db, "SELECT minute, client, queries, blocked FROM client_minutes"),
    grouped(
      stored,
      (e) => [minuteOf(e), e.client],
      (g) => [g.length, count(g, isBlocked)],
    ),
  );
  assert.deepEqual(
    rows(db, "SELECT minute, name, queries, blocked FROM domain_minutes"),
    grouped(
      stored,
      (e) => [minuteOf(e), e.qname],
      (g) => [g.length, count(g, isBlocked)],
    ),
  );
  assert.deepEqual(
    rows(
      db,
      "SELECT minute, upstream, queries, errors, duration_us FROM upstream_minutes",
    ),
    grouped(
      stored.filter((e) => e.upstream !== null),
      (e) => [minuteOf(e), e.upstream!],
      (g) => [
        g.length,
        count(g, (e) => e.status === servfail),
        sum(g, (e) => e.duration_us),
      ],
    ),
  );
  assert.deepEqual(
    rows(db, "SELECT minute, first_id, last_id FROM event_minutes"),
    grouped(stored, (e) => [minuteOf(e)], (g) => [
      Math.min(...g.map((e) => e.id)),
      Math.max(...g.map((e) => e.id)),
    ]),
  );
});

Deno.test("folded domain hours equal the raw events, late events included", async () => {
  await using log = await tempQueryLog();
  const end = T0 + 3 * 3_600_000;
  await using writer = testWriter(log.path, { now: () => end });
  writer.enqueue(mixedEvents(2000, 3 * 3_600_000));
  await writer.flush();
  const db = writer.db;
  const through = await foldDomainMinutes(db, end);
  assert.equal(through, Math.floor(end / 60_000) - 2);
  assert.equal(readDomainHoursThrough(db), through);
  // Late events for minutes already folded go to domain_hours as well.
  writer.enqueue(
    mixedEvents(500, 3_600_000).map((e) => ({ ...e, qname: "late.example." })),
  );
  await writer.flush();
  // Minutes from `through` on are not folded yet: they are read from domain_minutes.
  const blocked = blockedIds(db);
  const byHour = (before: number) =>
    grouped(
      storedEvents(db).filter((e) => minuteOf(e) < before),
      (e) => [hourOf(e), e.qname],
      (g) => [g.length, count(g, (e) => blocked.has(e.status))],
    );
  assert.equal(storedEvents(db).length, 2500);
  assert.deepEqual(
    rows(db, "SELECT hour, name, queries, blocked FROM domain_hours"),
    byHour(through),
  );
  // Folding again, later, adds the last minutes once and only once.
  assert.equal(await foldDomainMinutes(db, end + 3 * 60_000), through + 3);
  assert.deepEqual(
    rows(db, "SELECT hour, name, queries, blocked FROM domain_hours"),
    byHour(through + 3),
  );
});

Deno.test("privacy none keeps only per-status and per-upstream counters", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, {
    settings: querylogSettings({ privacy: "none" }),
  });
  writer.enqueue(mixedEvents(200, 600_000));
  await writer.flush();
  const rowCount = (t: string) =>
    Number(writer.db.prepare(`SELECT count(*) AS n FROM ${t}`).get()!.n);
  assert.equal(writer.stats().written, 200);
  assert.equal(storedEvents(writer.db).length, 0);
  for (
    const table of [
      "event_chunks",
      "names",
      "clients",
      "answers",
      "client_minutes",
      "domain_minutes",
      "domain_hours",
      "event_minutes",
    ]
  ) {
    assert.equal(rowCount(table), 0, table);
  }
  const total = writer.db.prepare(
    "SELECT sum(queries) AS q FROM status_minutes",
  ).get()!;
  assert.equal(Number(total.q), 200);
  assert.ok(rowCount("upstream_minutes") > 0);
});

Deno.test("anonymized privacy stores truncated clients and no ports", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, {
    settings: querylogSettings({ privacy: "anonymized" }),
  });
  writer.enqueue([
    queryEvent({ clientAddress: "192.0.2.77", clientPort: 5353 }),
    queryEvent({ clientAddress: "192.0.2.78" }),
    queryEvent({ clientAddress: "2001:db8:1:2::5" }),
  ]);
  await writer.flush();
  const clients = writer.db.prepare("SELECT text FROM clients ORDER BY text")
    .all()
    .map((r) => r.text);
  assert.deepEqual(clients, ["192.0.2.0", "2001:db8:1::"]);
  const stored = storedEvents(writer.db);
  assert.equal(stored.length, 3);
  assert.deepEqual([...new Set(stored.map((e) => e.port))], [0]);
});

Deno.test("excluded events are neither stored nor counted", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, {
    settings: querylogSettings({
      exclude: { domains: ["ignored.example"], clients: ["198.51.100.0/24"] },
    }),
  });
  writer.enqueue([
    queryEvent(),
    queryEvent({ qname: "a.ignored.example." }),
    queryEvent({ clientAddress: "198.51.100.9" }),
    queryEvent({ qname: "localhost." }),
  ]);
  await writer.flush();
  assert.equal(writer.stats().written, 1);
  assert.equal(writer.stats().excluded, 3);
  const total = writer.db.prepare(
    "SELECT sum(queries) AS q FROM status_minutes",
  ).get()!;
  assert.equal(Number(total.q), 1);
  const names = writer.db.prepare("SELECT text FROM names").all().map((r) =>
    r.text
  );
  assert.deepEqual(names, ["www.example.com."]);
});
