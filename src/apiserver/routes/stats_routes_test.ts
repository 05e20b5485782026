import assert from "node:assert/strict";
import { statsReport } from "../../cli/stats.ts";
import type { QueryEvent } from "../../pipeline/query_event.ts";
import {
  clientSummary,
  queriesOverTime,
  topClients,
  topDomains,
  totals,
  upstreamStats,
} from "../../querylog/queries.ts";
import {
  queryEvent,
  T0,
  tempQueryLog,
  testWriter,
} from "../../querylog/test_support.ts";
import { ADMIN_PASSWORD, apiFixture } from "../testdata/api_fixture.ts";
import { isoTime } from "./querylog_entry.ts";
import { statsRoutes } from "./stats_routes.ts";

const NOW = T0 + 3_600_000;
const HOUR = 3_600_000;

/** 300 events over 50 minutes: four clients, five names, two upstreams. */
function traffic(): QueryEvent[] {
  const clients = ["192.0.2.1", "192.0.2.2", "2001:db8::9", "198.51.100.4"];
  const qnames = [
    "www.example.com.",
    "ads.tracker.test.",
    "mail.example.com.",
    "cdn.example.net.",
    "pixel.tracker.test.",
  ];
  return Array.from({ length: 300 }, (_, i) => {
    const blocked = qnames[i % 5]!.includes("tracker") && i % 3 !== 0;
    const e = queryEvent({
      time: T0 + i * 10_000,
      clientAddress: clients[(i * 7) % 4]!,
      qname: qnames[i % 5]!,
      status: blocked
        ? "blocked_list"
        : i % 4 === 0
        ? "cached"
        : i % 17 === 0
        ? "servfail_upstream"
        : "forwarded",
      upstream: i % 2 ? "default/1.1.1.1" : "default/9.9.9.9",
      durationUs: 1000 + i * 10,
    });
    if (blocked) delete e.upstream;
    return e;
  });
}

async function fixture(events: QueryEvent[] = traffic()) {
  const log = await tempQueryLog();
  const writer = testWriter(log.path);
  writer.enqueue(events);
  await writer.flush();
  const f = await apiFixture({
    extraRoutes: () => [
      statsRoutes({
        queryLogPath: log.path,
        now: () => NOW,
        nodeName: "node-a",
      }),
    ],
  });
  const admin = f.client();
  await admin.login("admin", ADMIN_PASSWORD);
  const get = async (path: string) => {
    const res = await admin.request("GET", path);
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  return {
    f,
    admin,
    get,
    writer,
    async [Symbol.asyncDispose]() {
      await writer.close();
      await f[Symbol.asyncDispose]();
      await log[Symbol.asyncDispose]();
    },
  };
}

/** Buckets with ISO times, as the API gives them. */
const isoBuckets = (buckets: { time: number }[]) =>
  buckets.map((b) => ({ ...b, time: isoTime(b.time) }));

Deno.test("stats: the dashboard has the numbers `kudurru stats` prints", async () => {
  await using t = await fixture();
  const db = t.writer.db;
  for (
    const [query, window] of [
      ["", { since: NOW - 24 * HOUR }],
      [
        `?since=${new Date(T0 + 600_000).toISOString()}&until=${
          new Date(T0 + 1_800_000).toISOString()
        }&limit=3`,
        { since: T0 + 600_000, until: T0 + 1_800_000 },
      ],
    ] as const
  ) {
    const limit = query.includes("limit=3") ? 3 : 10;
    const cli = statsReport(db, window, limit, undefined, NOW);
    const api = await t.get(`/api/v1/stats${query}`);
    assert.equal(Date.parse(api.since), cli.since);
    assert.equal(Date.parse(api.until), cli.until ?? NOW);
    assert.deepEqual(api.totals, cli.totals);
    assert.ok(api.totals.queries > 0);
    assert.deepEqual(api.topDomains, cli.topDomains);
    assert.deepEqual(api.topBlockedDomains, cli.topBlockedDomains);
    assert.deepEqual(api.upstreams, cli.upstreams);
    assert.equal(api.overTime.bucketMs, cli.overTime.bucketMs);
    assert.equal(api.overTime.zone, "local");
    assert.deepEqual(api.overTime.buckets, isoBuckets(cli.overTime.buckets));
    assert.equal(api.topClients, undefined, "clients are not stats");
  }
});

Deno.test("stats: summary, over time, top domains, top blocked, upstreams", async () => {
  await using t = await fixture();
  const db = t.writer.db;
  const span = { since: T0, until: T0 + HOUR };
  const q = `since=${new Date(span.since).toISOString()}&until=${
    new Date(span.until).toISOString()
  }`;
  const summary = await t.get(`/api/v1/stats/summary?${q}`);
  assert.deepEqual(summary.totals, totals(db, span));
  assert.equal(summary.totals.queries, 300);
  const over = await t.get(`/api/v1/stats/over-time?${q}&bucket=5m&zone=utc`);
  assert.equal(over.bucketMs, 300_000);
  assert.equal(over.buckets.length, 12);
  assert.deepEqual(
    over.buckets,
    isoBuckets(
      queriesOverTime(db, { ...span, bucketMs: 300_000, zone: "utc" }),
    ),
  );
  const domains = await t.get(`/api/v1/stats/top-domains?${q}&limit=2`);
  assert.deepEqual(domains.items, topDomains(db, { ...span, limit: 2 }));
  const blocked = await t.get(`/api/v1/stats/top-blocked?${q}`);
  assert.deepEqual(blocked.items, topDomains(db, { ...span, blocked: true }));
  assert.deepEqual(
    (await t.get(`/api/v1/stats/top-domains?${q}&blocked=true`)).items,
    blocked.items,
  );
  assert.ok(
    blocked.items.every((d: { domain: string }) =>
      d.domain.includes("tracker")
    ),
  );
  const upstreams = await t.get(`/api/v1/stats/upstreams?${q}`);
  assert.deepEqual(upstreams.items, upstreamStats(db, span));
  assert.equal(upstreams.items.length, 2);
});

Deno.test("stats: top clients and one client's summary (get on querylog)", async () => {
  await using t = await fixture();
  const db = t.writer.db;
  const span = { since: NOW - 24 * HOUR, until: NOW };
  const top = await t.get("/api/v1/stats/top-clients?limit=3");
  assert.deepEqual(top.items, topClients(db, { ...span, limit: 3 }));
  assert.equal(top.items.length, 3);
  const blocked = await t.get("/api/v1/stats/top-clients?blocked=1");
  assert.deepEqual(blocked.items, topClients(db, { ...span, blocked: true }));
  for (
    const [path, client] of [
      ["192.0.2.2", "192.0.2.2"],
      ["::ffff:192.0.2.2", "192.0.2.2"],
      ["2001:db8::9", "2001:db8::9"],
      ["2001:0db8::0009", "2001:db8::9"],
    ]
  ) {
    const api = await t.get(
      `/api/v1/stats/clients/${encodeURIComponent(path!)}?recent=50`,
    );
    const cli = clientSummary(db, client!, { ...span, recent: 50 });
    assert.equal(api.client, client);
    assert.equal(api.queries, cli.queries);
    assert.ok(api.queries > 0);
    assert.equal(api.blocked, cli.blocked);
    assert.equal(Date.parse(api.firstSeen), cli.firstSeen);
    assert.equal(Date.parse(api.lastSeen), cli.lastSeen);
    assert.deepEqual(api.recent, cli.recent);
    assert.equal(api.recent.events, 50);
    // Over time, from the per-minute rollup: the buckets add up to the
    // client's totals, each from the events of its own window.
    const buckets = api.overTime.buckets as {
      time: string;
      queries: number;
      blocked: number;
    }[];
    assert.equal(api.overTime.zone, "local");
    assert.equal(buckets.reduce((n, b) => n + b.queries, 0), api.queries);
    assert.equal(buckets.reduce((n, b) => n + b.blocked, 0), api.blocked);
    const mine = traffic().filter((e) => e.clientAddress === client);
    for (const b of buckets) {
      const start = Date.parse(b.time);
      const inside = mine.filter((e) =>
        e.time >= start && e.time < start + api.overTime.bucketMs
      );
      assert.equal(b.queries, inside.length, b.time);
      assert.equal(
        b.blocked,
        inside.filter((e) => e.status.startsWith("blocked")).length,
        b.time,
      );
    }
  }
  const hourly = await t.get(
    "/api/v1/stats/clients/192.0.2.1?bucket=1h&zone=utc",
  );
  assert.equal(hourly.overTime.bucketMs, HOUR);
  assert.equal(hourly.overTime.buckets.length, 24);
  const never = await t.get("/api/v1/stats/clients/203.0.113.1");
  assert.equal(never.queries, 0);
  assert.equal(never.firstSeen, null);
});

Deno.test("stats: node names this node (or one its log holds), else nothing", async () => {
  await using t = await fixture();
  const all = await t.get("/api/v1/stats/summary");
  assert.deepEqual(
    (await t.get("/api/v1/stats/summary?node=node-a")).totals,
    all.totals,
  );
  const other = await t.get("/api/v1/stats?node=node-z");
  assert.equal(other.totals.queries, 0);
  assert.deepEqual(other.topDomains, []);
  assert.ok(other.overTime.buckets.length > 0, "every bucket, all zero");
  assert.ok(
    other.overTime.buckets.every((b: { total: number }) => b.total === 0),
  );
  const clients = await t.get("/api/v1/stats/top-clients?node=node-z");
  assert.deepEqual(clients.items, []);
});

Deno.test("stats: bad parameters are 400 naming them", async () => {
  await using t = await fixture();
  const cases: [string, string][] = [
    ["/api/v1/stats/over-time?bucket=30s", "bucket"],
    ["/api/v1/stats/over-time?bucket=often", "bucket"],
    ["/api/v1/stats/over-time?bucket=1m&since=30d", "bucket"],
    ["/api/v1/stats/over-time?zone=mars", "zone"],
    ["/api/v1/stats/top-domains?limit=0", "limit"],
    ["/api/v1/stats/top-domains?limit=1001", "limit"],
    ["/api/v1/stats/top-clients?blocked=maybe", "blocked"],
    ["/api/v1/stats/summary?since=soon", "since"],
    ["/api/v1/stats/summary?limit=3", "limit"],
    ["/api/v1/stats/top-blocked?blocked=true", "blocked"],
    ["/api/v1/stats/clients/someone", "address"],
    ["/api/v1/stats/clients/192.0.2.1?recent=0", "recent"],
  ];
  for (const [path, parameter] of cases) {
    const res = await t.admin.request("GET", path);
    assert.equal(res.status, 400, path);
    assert.equal(res.body.error.key, "bad_request", path);
    assert.equal(res.body.error.parameter, parameter, path);
  }
});

Deno.test("stats: a log not written yet reads as empty", async () => {
  await using log = await tempQueryLog();
  await using f = await apiFixture({
    extraRoutes: () => [
      statsRoutes({ queryLogPath: log.path, now: () => NOW, nodeName: "n" }),
    ],
  });
  const admin = f.client();
  await admin.login("admin", ADMIN_PASSWORD);
  const res = await admin.request("GET", "/api/v1/stats");
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.data.totals.queries, 0);
  assert.ok(res.body.data.overTime.buckets.length >= 24);
  assert.ok(
    res.body.data.overTime.buckets.every((b: { total: number }) =>
      b.total === 0
    ),
  );
  const client = await admin.request("GET", "/api/v1/stats/clients/192.0.2.1");
  assert.equal(client.body.data.queries, 0);
});
