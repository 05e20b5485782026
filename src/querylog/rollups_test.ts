import assert from "node:assert/strict";
import type { DatabaseSync } from "node:sqlite";
import type { QueryEvent } from "../pipeline/query_event.ts";
import type { Status } from "../pipeline/status.ts";
import { foldDomainMinutes, readDomainHoursThrough } from "./domain_hours.ts";
import {
  queryEvent,
  querylogSettings,
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

const BLOCKED =
  "(SELECT id FROM labels WHERE kind = 'status' AND text LIKE 'blocked%')";

Deno.test("rollups equal the raw events they summarise, across late events and batches", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, { batchSize: 97 });
  const events = mixedEvents(3000, 3 * 3_600_000);
  writer.enqueue(events);
  await writer.flush();
  const db = writer.db;
  assert.equal(writer.stats().batches, Math.ceil(3000 / 97));

  assert.deepEqual(
    rows(db, "SELECT minute, status, queries, duration_us FROM status_minutes"),
    rows(
      db,
      `SELECT time / 60000, status, count(*), sum(duration_us) FROM events GROUP BY 1, 2`,
    ),
  );
  assert.deepEqual(
    rows(db, "SELECT minute, client, queries, blocked FROM client_minutes"),
    rows(
      db,
      `SELECT time / 60000, client, count(*), sum(status IN ${BLOCKED}) FROM events GROUP BY 1, 2`,
    ),
  );
  assert.deepEqual(
    rows(db, "SELECT minute, name, queries, blocked FROM domain_minutes"),
    rows(
      db,
      `SELECT time / 60000, qname, count(*), sum(status IN ${BLOCKED}) FROM events GROUP BY 1, 2`,
    ),
  );
  assert.deepEqual(
    rows(
      db,
      "SELECT minute, upstream, queries, errors, duration_us FROM upstream_minutes",
    ),
    rows(
      db,
      `SELECT time / 60000, upstream, count(*),
        sum(status = (SELECT id FROM labels WHERE kind = 'status' AND text = 'servfail_upstream')),
        sum(duration_us) FROM events WHERE upstream IS NOT NULL GROUP BY 1, 2`,
    ),
  );
  assert.deepEqual(
    rows(db, "SELECT minute, first_id, last_id FROM event_minutes"),
    rows(db, "SELECT time / 60000, min(id), max(id) FROM events GROUP BY 1"),
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
  const byHour =
    `SELECT time / 3600000, qname, count(*), sum(status IN ${BLOCKED})
    FROM events WHERE time / 60000 < ${through} GROUP BY 1, 2`;
  assert.deepEqual(
    rows(db, "SELECT hour, name, queries, blocked FROM domain_hours"),
    rows(db, byHour),
  );
  // Folding again, later, adds the last minutes once and only once.
  assert.equal(await foldDomainMinutes(db, end + 3 * 60_000), through + 3);
  assert.deepEqual(
    rows(db, "SELECT hour, name, queries, blocked FROM domain_hours"),
    rows(db, byHour.replace(`< ${through}`, `< ${through + 3}`)),
  );
});

Deno.test("privacy none keeps only per-status and per-upstream counters", async () => {
  await using log = await tempQueryLog();
  await using writer = testWriter(log.path, {
    settings: querylogSettings({ privacy: "none" }),
  });
  writer.enqueue(mixedEvents(200, 600_000));
  await writer.flush();
  const count = (t: string) =>
    Number(writer.db.prepare(`SELECT count(*) AS n FROM ${t}`).get()!.n);
  assert.equal(writer.stats().written, 200);
  for (
    const table of [
      "events",
      "names",
      "clients",
      "answers",
      "client_minutes",
      "domain_minutes",
      "domain_hours",
      "event_minutes",
    ]
  ) {
    assert.equal(count(table), 0, table);
  }
  const total = writer.db.prepare(
    "SELECT sum(queries) AS q FROM status_minutes",
  ).get()!;
  assert.equal(Number(total.q), 200);
  assert.ok(count("upstream_minutes") > 0);
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
  const ports = writer.db.prepare("SELECT DISTINCT port FROM events").all();
  assert.deepEqual(ports.map((r) => r.port), [0]);
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
