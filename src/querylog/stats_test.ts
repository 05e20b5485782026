import assert from "node:assert/strict";
import type { QueryEvent } from "../pipeline/query_event.ts";
import type { Status } from "../pipeline/status.ts";
import { foldDomainMinutes } from "./domain_hours.ts";
import { queriesOverTime, topClients, topDomains } from "./stats.ts";
import { clientSummary, totals, upstreamStats } from "./summaries.ts";
import { queryEvent, T0, tempQueryLog, testWriter } from "./test_support.ts";

const MIN = 60_000;
const HOUR = 3_600_000;

/** Three hours of traffic with known, uneven counts per name and client. */
function traffic(start = T0): QueryEvent[] {
  const events: QueryEvent[] = [];
  for (let i = 0; i < 1800; i++) {
    const name = `d${Math.floor(Math.sqrt(i * 7) % 12)}.example.`;
    const status: Status = name === "d3.example."
      ? "blocked_list"
      : i % 4 === 0
      ? "cached"
      : i % 50 === 0
      ? "timeout_upstream"
      : "forwarded";
    const e = queryEvent({
      time: start + i * 6000 + (i % 7),
      qname: name,
      clientAddress: `10.0.0.${i % 5 === 0 ? 1 : (i % 3) + 2}`,
      status,
      durationUs: 1000 + i,
      upstream: i % 2 ? "up-a" : "up-b",
    });
    if (status === "blocked_list" || status === "cached") delete e.upstream;
    events.push(e);
  }
  return events;
}

/** Counts of `key` over events in [since, until) widened to whole minutes. */
function expectedTop(
  events: QueryEvent[],
  key: (e: QueryEvent) => string,
  since: number,
  until: number,
) {
  const from = Math.floor(since / MIN) * MIN;
  const to = Math.ceil(until / MIN) * MIN;
  const counts = new Map<string, { queries: number; blocked: number }>();
  for (const e of events) {
    if (e.time < from || e.time >= to) continue;
    const c = counts.get(key(e)) ?? { queries: 0, blocked: 0 };
    c.queries++;
    if (e.status.startsWith("blocked")) c.blocked++;
    counts.set(key(e), c);
  }
  return counts;
}

async function withStats(
  fn: (
    db: import("node:sqlite").DatabaseSync,
    events: QueryEvent[],
  ) => void | Promise<void>,
  opts: { now?: number; start?: number } = {},
) {
  await using log = await tempQueryLog();
  const now = opts.now ?? T0 + 3 * HOUR + 10 * MIN;
  await using writer = testWriter(log.path, { now: () => now });
  const events = traffic(opts.start);
  writer.enqueue(events);
  await writer.flush();
  await foldDomainMinutes(writer.db, now);
  await fn(writer.db, events);
}

Deno.test("topDomains counts any window, whole hours and ragged ends alike", async (t) => {
  await withStats(async (db, events) => {
    const windows: [string, number, number][] = [
      ["everything", T0, T0 + 3 * HOUR],
      ["one whole hour", T0 + HOUR, T0 + 2 * HOUR],
      ["ragged both ends", T0 + 17 * MIN + 5, T0 + 2 * HOUR + 41 * MIN],
      ["inside one hour", T0 + 70 * MIN, T0 + 95 * MIN],
      ["seconds inside a minute", T0 + 61 * MIN + 1000, T0 + 61 * MIN + 2000],
    ];
    for (const [name, since, until] of windows) {
      await t.step(name, () => {
        const want = expectedTop(events, (e) => e.qname, since, until);
        const got = topDomains(db, { since, until, limit: 100 });
        assert.equal(got.length, want.size);
        for (const row of got) {
          assert.deepEqual(
            { queries: row.queries, blocked: row.blocked },
            want.get(row.domain),
          );
        }
        for (let i = 1; i < got.length; i++) {
          assert.ok(got[i - 1]!.queries >= got[i]!.queries, "ranked");
        }
        const top3 = topDomains(db, { since, until, limit: 3 });
        assert.deepEqual(top3, got.slice(0, 3));
      });
    }
    await t.step("blocked only", () => {
      const got = topDomains(db, {
        since: T0,
        until: T0 + 3 * HOUR,
        blocked: true,
      });
      assert.deepEqual(got.map((r) => r.domain), ["d3.example."]);
      assert.ok(got[0]!.blocked > 0);
    });
  });
});

Deno.test("topDomains counts whole hours for ends older than the minute rows", async () => {
  const now = T0 + 5 * 86_400_000;
  await withStats((db, events) => {
    const got = topDomains(db, {
      since: T0 + 30 * MIN,
      until: T0 + 90 * MIN,
      limit: 100,
    });
    const want = expectedTop(events, (e) => e.qname, T0, T0 + 2 * HOUR);
    assert.equal(got.length, want.size);
    for (const row of got) {
      assert.equal(row.queries, want.get(row.domain)!.queries);
    }
  }, { now });
});

Deno.test("topClients ranks clients by queries or by blocked queries", async () => {
  await withStats((db, events) => {
    const since = T0 + 10 * MIN;
    const until = T0 + 2 * HOUR;
    const want = expectedTop(events, (e) => e.clientAddress, since, until);
    const got = topClients(db, { since, until });
    assert.equal(got.length, want.size);
    for (const row of got) {
      assert.deepEqual(
        { queries: row.queries, blocked: row.blocked },
        want.get(row.client),
      );
    }
    const blocked = topClients(db, { since, until, blocked: true, limit: 2 });
    const byBlocked = [...want].sort((a, b) =>
      b[1].blocked - a[1].blocked || a[0].localeCompare(b[0])
    );
    assert.deepEqual(
      blocked.map((r) => r.client),
      byBlocked.slice(0, 2).map(([c]) => c),
    );
  });
});

Deno.test("queriesOverTime fills every bucket, zeros included", async () => {
  await withStats((db, events) => {
    const since = T0 - 10 * MIN;
    const until = T0 + 50 * MIN;
    const buckets = queriesOverTime(db, { since, until, bucketMs: 5 * MIN });
    assert.equal(buckets.length, 12);
    assert.deepEqual(
      buckets.map((b) => b.time),
      Array.from({ length: 12 }, (_, i) => since + i * 5 * MIN),
    );
    assert.equal(buckets[0]!.total, 0);
    assert.deepEqual(buckets[1]!.byStatus, {});
    for (const b of buckets) {
      const inside = events.filter((e) =>
        e.time >= b.time && e.time < b.time + 5 * MIN
      );
      assert.equal(b.total, inside.length);
      assert.equal(
        b.blocked,
        inside.filter((e) => e.status === "blocked_list").length,
      );
      assert.equal(
        b.byStatus.cached ?? 0,
        inside.filter((e) => e.status === "cached").length,
      );
    }
    // Buckets round up to whole minutes.
    const odd = queriesOverTime(db, {
      since: T0,
      until: T0 + 10 * MIN,
      bucketMs: 90_000,
    });
    assert.equal(odd.length, 5);
    assert.throws(
      () => queriesOverTime(db, { since: 0, until: T0, bucketMs: MIN }),
      RangeError,
    );
  });
});

Deno.test("totals and upstreamStats add up the window", async () => {
  await withStats((db, events) => {
    const got = totals(db, { since: T0, until: T0 + 3 * HOUR });
    const count = (f: (e: QueryEvent) => boolean) => events.filter(f).length;
    assert.equal(got.queries, events.length);
    assert.equal(got.blocked, count((e) => e.status === "blocked_list"));
    assert.equal(got.cached, count((e) => e.status === "cached"));
    assert.equal(got.forwarded, count((e) => e.status === "forwarded"));
    assert.equal(
      got.blockedPercent,
      Math.round((got.blocked / got.queries) * 1000) / 10,
    );
    assert.equal(got.clients, 4);
    const duration = events.reduce((s, e) => s + e.durationUs, 0);
    assert.equal(got.avgDurationUs, Math.round(duration / events.length));
    assert.equal(
      Object.values(got.byStatus).reduce((a, b) => a + b, 0),
      events.length,
    );
    const ups = upstreamStats(db, { since: T0, until: T0 + 3 * HOUR });
    for (const u of ups) {
      const mine = events.filter((e) => e.upstream === u.upstream);
      assert.equal(u.queries, mine.length);
      assert.equal(
        u.errors,
        mine.filter((e) => e.status === "timeout_upstream").length,
      );
    }
    assert.deepEqual(ups.map((u) => u.upstream).sort(), ["up-a", "up-b"]);
    // With no until, the window ends with the newest data.
    assert.equal(totals(db, { since: T0 }).queries, events.length);
  });
});

Deno.test("clientSummary gives counts from rollups and a recent sample", async () => {
  await withStats((db, events) => {
    const mine = events.filter((e) => e.clientAddress === "10.0.0.1");
    const got = clientSummary(db, "10.0.0.1", { since: T0, recent: 50 });
    assert.equal(got.queries, mine.length);
    assert.equal(
      got.blocked,
      mine.filter((e) => e.status === "blocked_list").length,
    );
    assert.equal(got.firstSeen, Math.floor(mine[0]!.time / MIN) * MIN);
    assert.equal(got.lastSeen, Math.floor(mine.at(-1)!.time / MIN) * MIN);
    assert.equal(got.recent.events, 50);
    const recent = mine.slice(-50);
    const statusCount = Object.values(got.recent.byStatus).reduce(
      (a, b) => a + b,
      0,
    );
    assert.equal(statusCount, 50);
    const top = got.recent.topDomains[0]!;
    assert.equal(
      top.queries,
      recent.filter((e) => e.qname === top.domain).length,
    );
    const nobody = clientSummary(db, "203.0.113.9", { since: T0 });
    assert.deepEqual(
      [nobody.queries, nobody.firstSeen, nobody.recent.events],
      [0, null, 0],
    );
  });
});

Deno.test("queriesOverTime in local time sums each local hour", async () => {
  const saved = Deno.env.get("TZ");
  Deno.env.set("TZ", "Asia/Kolkata"); // +05:30: local hours are UTC half hours
  try {
    await withStats((db, events) => {
      const since = T0;
      const until = T0 + 3 * HOUR;
      const buckets = queriesOverTime(db, {
        since,
        until,
        bucketMs: HOUR,
        zone: "local",
      });
      assert.deepEqual(
        buckets.map((b) => b.time - T0),
        [-30 * MIN, 30 * MIN, 90 * MIN, 150 * MIN],
      );
      for (const b of buckets) {
        const inside = events.filter((e) =>
          e.time >= Math.max(b.time, since) && e.time < b.time + HOUR &&
          e.time < until
        );
        assert.equal(b.total, inside.length);
      }
      assert.equal(
        buckets.reduce((s, b) => s + b.total, 0),
        events.filter((e) => e.time < until).length,
      );
    });
  } finally {
    if (saved === undefined) Deno.env.delete("TZ");
    else Deno.env.set("TZ", saved);
  }
});
