import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { QueryEvent } from "../pipeline/query_event.ts";
import { QUERYLOG_DB_FILE } from "../querylog/db.ts";
import { overTimeBucketMs } from "../querylog/stats.ts";
import {
  queryEvent,
  queryLogDataDir,
  T0,
  testWriter,
} from "../querylog/test_support.ts";
import { bufferIO, UsageError } from "./command.ts";
import { makeStatsCommand, statsCommand } from "./stats.ts";

function blocked(
  qname: string,
  time: number,
  clientAddress: string,
): QueryEvent {
  const e = queryEvent({
    time,
    qname,
    clientAddress,
    status: "blocked_list",
    stage: "blocking",
    list: "ads",
  });
  delete e.upstream;
  return e;
}

const EVENTS: QueryEvent[] = [
  ...Array.from(
    { length: 6 },
    (_, i) =>
      queryEvent({
        time: T0 + i * 1000,
        qname: "popular.example.",
        durationUs: 2000,
      }),
  ),
  ...Array.from(
    { length: 3 },
    (_, i) => blocked("ads.example.", T0 + i * 1000, "192.0.2.20"),
  ),
  queryEvent({
    time: T0 + 5000,
    qname: "once.example.",
    upstream: "default/9.9.9.9",
    durationUs: 5000,
  }),
];

const dataDir = () => queryLogDataDir(EVENTS, "kudurru-cli-stats-");

/** An hour after the events, and off the minute boundary: real clocks are. */
const NOW = T0 + 3_600_000 + 30_500;

async function run(args: string[], now = NOW) {
  const b = bufferIO();
  const code = await makeStatsCommand({ now: () => now }).run(args, b.io);
  return { code, stdout: b.stdout() };
}

Deno.test("kudurru stats prints totals, top lists and upstreams", async () => {
  await using data = await dataDir();
  const got = await run(["--data-dir", data.dir]);
  assert.equal(got.code, 0);
  const out = got.stdout;
  assert.match(
    out,
    /total 10\s+blocked 3 \(30 %\)\s+cached 0\s+forwarded 7\s+clients 2/,
  );
  assert.match(out, /by status: forwarded 7, blocked_list 3/);
  assert.match(
    out,
    /Top domains\n\s+QUERIES\s+BLOCKED\s+DOMAIN\n\s+6\s+0\s+popular\.example\.\n\s+3\s+3\s+ads\.example\.\n\s+1\s+0\s+once\.example\./,
  );
  assert.match(
    out,
    /Top blocked domains\n\s+BLOCKED\s+DOMAIN\n\s+3\s+ads\.example\.\n\nTop clients/,
  );
  assert.match(
    out,
    /Top clients\n\s+QUERIES\s+BLOCKED\s+CLIENT\n\s+7\s+0\s+192\.0\.2\.10\n\s+3\s+3\s+192\.0\.2\.20/,
  );
  assert.match(
    out,
    /Upstreams\n\s+QUERIES\s+ERRORS\s+AVERAGE\s+UPSTREAM\n\s+6\s+0\s+2\.0ms\s+default\/1\.1\.1\.1\n\s+1\s+0\s+5\.0ms\s+default\/9\.9\.9\.9/,
  );
});

Deno.test("kudurru stats -o json gives the same report as data", async () => {
  await using data = await dataDir();
  const got = await run(["--data-dir", data.dir, "-o", "json", "--limit", "1"]);
  const report = JSON.parse(got.stdout);
  assert.equal(report.since, NOW - 86_400_000);
  assert.equal(report.until, null);
  assert.equal(report.totals.queries, 10);
  assert.deepEqual(report.topDomains, [{
    domain: "popular.example.",
    queries: 6,
    blocked: 0,
  }]);
  assert.deepEqual(report.topBlockedDomains, [{
    domain: "ads.example.",
    queries: 3,
    blocked: 3,
  }]);
  assert.equal(report.topClients.length, 1);
  assert.equal(report.upstreams.length, 2);
});

Deno.test("kudurru stats windows with --since and --until", async () => {
  await using data = await dataDir();
  const late = JSON.parse(
    (await run([
      "--data-dir",
      data.dir,
      "-o",
      "json",
      "--since",
      "2030-01-01T00:01:00Z",
    ])).stdout,
  );
  assert.equal(late.totals.queries, 0);
  assert.deepEqual(late.topDomains, []);
  const early = JSON.parse(
    (await run([
      "--data-dir",
      data.dir,
      "-o",
      "json",
      "--since",
      "2h",
      "--until",
      "2030-01-01T00:01:00Z",
    ])).stdout,
  );
  assert.equal(early.totals.queries, 10);
  // --until alone: the 24 hours before it.
  const before = JSON.parse(
    (await run(["--data-dir", data.dir, "-o", "json", "--until", "2h"]))
      .stdout,
  );
  assert.equal(before.until - before.since, 86_400_000);
});

Deno.test("kudurru stats refuses bad flags and a missing query log", async () => {
  await using data = await dataDir();
  await assert.rejects(
    () => run(["--data-dir", data.dir, "--since", "soon"]),
    UsageError,
  );
  await assert.rejects(
    () => run(["--data-dir", data.dir, "-o", "yaml"]),
    UsageError,
  );
  await assert.rejects(
    () => run(["--data-dir", data.dir, "--limit", "x"]),
    UsageError,
  );
  await assert.rejects(
    () => run(["--data-dir", data.dir, "--limit", "100000"]),
    (err: unknown) =>
      err instanceof UsageError &&
      err.message === "kudurru stats: --limit is at most 1000, not 100000",
  );
  await assert.rejects(
    () => run(["--data-dir", data.dir, "--since", "99999999999999999d"]),
    /--since "99999999999999999d" is out of range/,
  );
  await assert.rejects(
    () => run(["--data-dir", data.dir, "--since", "1h", "--until", "2h"]),
    /--since \(1h\) is not before --until \(2h\)/,
  );
  await assert.rejects(
    () =>
      statsCommand.run(
        ["--data-dir", join(data.dir, "nowhere")],
        bufferIO().io,
      ),
    /No data directory at ".*nowhere": is --data-dir/,
  );
});

Deno.test("kudurru stats shows queries over time by status", async () => {
  await using data = await dataDir();
  const out = (await run(["--data-dir", data.dir])).stdout;
  assert.match(
    out,
    /Queries over time \(per 1 h\)\n\s+TIME\s+QUERIES\s+BLOCKED\s+CACHED\s+FORWARDED\n/,
  );
  const json = JSON.parse(
    (await run(["--data-dir", data.dir, "-o", "json"])).stdout,
  );
  assert.equal(json.overTime.bucketMs, 3_600_000);
  const buckets = json.overTime.buckets as { total: number; blocked: number }[];
  assert.ok(buckets.length <= 25, `${buckets.length} rows`);
  assert.equal(buckets.reduce((n, b) => n + b.total, 0), 10);
  assert.equal(buckets.reduce((n, b) => n + b.blocked, 0), 3);
});

Deno.test("kudurru stats by default shows the 24 hours up to now, hourly, whatever the clock and the data", async () => {
  await using data = await dataDir();
  const path = join(data.dir, QUERYLOG_DB_FILE);
  {
    // Written while the clock ran a year ahead.
    const ahead = NOW + 365 * 86_400_000;
    await using early = testWriter(path, { now: () => ahead });
    early.enqueue([queryEvent({ time: ahead })]);
  }
  {
    // And a query in the current minute.
    await using writer = testWriter(path, { now: () => NOW });
    writer.enqueue([queryEvent({ time: NOW - 1000 })]);
  }
  const json = JSON.parse(
    (await run(["--data-dir", data.dir, "-o", "json"])).stdout,
  );
  assert.equal(json.overTime.bucketMs, 3_600_000);
  const buckets = json.overTime.buckets as { time: number; total: number }[];
  assert.ok(buckets.length <= 25, `${buckets.length} rows`);
  assert.ok(buckets.at(-1)!.time <= NOW);
  assert.equal(buckets.reduce((n, b) => n + b.total, 0), 11);
  assert.equal(json.totals.queries, 11, "not the query from the future");
});

Deno.test("kudurru stats --client adds that client's summary", async () => {
  await using data = await dataDir();
  const out =
    (await run(["--data-dir", data.dir, "--client", "::ffff:192.0.2.20"]))
      .stdout;
  assert.match(out, /Client 192\.0\.2\.20\n\s+queries 3\s+blocked 3/);
  assert.match(out, /its last 3 queries: blocked_list 3/);
  assert.match(out, /\s+3\s+ads\.example\./);
  for (const bad of ["router", "192.0.2"]) {
    await assert.rejects(
      () => run(["--data-dir", data.dir, "--client", bad]),
      /--client takes an address/,
    );
  }
});

Deno.test("kudurru stats --client finds an IPv4 client stored IPv4-mapped by an older kudurru", async () => {
  await using data = await dataDir();
  const db = new DatabaseSync(join(data.dir, QUERYLOG_DB_FILE));
  db.prepare(
    "UPDATE clients SET text = '::ffff:192.0.2.20' WHERE text = '192.0.2.20'",
  ).run();
  db.close();
  for (const client of ["192.0.2.20", "::ffff:192.0.2.20"]) {
    const out = (await run(["--data-dir", data.dir, "--client", client]))
      .stdout;
    assert.match(out, /Client 192\.0\.2\.20\n\s+queries 3\s+blocked 3/);
    assert.match(out, /its last 3 queries: blocked_list 3/);
  }
});

Deno.test("overTimeBucketMs keeps about 24 rows", () => {
  assert.equal(overTimeBucketMs(10), 60_000);
  assert.equal(overTimeBucketMs(24 * 60), 3_600_000);
  assert.equal(overTimeBucketMs(7 * 24 * 60), 86_400_000);
  assert.equal(overTimeBucketMs(90 * 24 * 60), 4 * 86_400_000);
});

Deno.test("kudurru stats aligns buckets to local time and prints the offset", async (t) => {
  await using data = await dataDir();
  const saved = Deno.env.get("TZ");
  Deno.env.set("TZ", "Asia/Kolkata"); // +05:30
  try {
    const rows = (out: string, title: string) =>
      out.split(title)[1]!.split("\n\n")[0]!.split("\n").slice(2)
        .map((l) => l.trim().split(/\s{2,}/)[0]!);
    await t.step("hours start on the local hour", async () => {
      const out = (await run(["--data-dir", data.dir])).stdout;
      assert.match(
        out,
        /^Queries from 2029-12-31 06:30:30\.500\+05:30 to now\n/,
      );
      const times = rows(out, "Queries over time (per 1 h)");
      assert.equal(times[0], "2029-12-31 06:00+05:30");
      assert.ok(times.every((t) => t.endsWith(":00+05:30")), times.join());
    });
    await t.step("days start at local midnight", async () => {
      const out = (await run(["--data-dir", data.dir, "--since", "30d"]))
        .stdout;
      const times = rows(out, "Queries over time (per 2 d)");
      assert.ok(times.length > 0);
      assert.ok(times.every((t) => t.endsWith(" 00:00+05:30")), times.join());
    });
  } finally {
    if (saved === undefined) Deno.env.delete("TZ");
    else Deno.env.set("TZ", saved);
  }
});
