/**
 * The query-log benchmark (issue "Query log, statistics …", deliverable 7):
 *
 * 1. sustained insert rate through the writer (target ≥ 100k events/s) and
 *    the database bytes per million events it leaves (target ≤ 60 MB);
 * 2. topDomains and queriesOverTime over the last 24 h of a 30-day,
 *    30-million-event database (target ≤ 200 ms each), plus the other
 *    dashboard and search queries for reference.
 *
 * The 30M database is generated once by bulk inserts through BatchStore (the
 * writer's own transaction code, minus QueryEvent encoding) and cached; its
 * generation time is reported apart. See README.md for the command.
 */
import { join } from "node:path";
import process from "node:process";
import { parseArgs } from "node:util";
import { DatabaseSync } from "node:sqlite";
import { querylogSchema } from "../../src/config/schema_resolver.ts";
import { createLogger } from "../../src/log/logger.ts";
import {
  EVENT_INTS,
  packQueryEvents,
} from "../../src/pipeline/query_event_pack.ts";
import { createQueryLogWriter } from "../../src/querylog/writer.ts";
import { openQueryLogDb } from "../../src/querylog/db.ts";
import { generateBigDb } from "./generate.ts";
import { runQueries } from "./queries.ts";
import { syntheticEvent, syntheticTraffic } from "./synthetic_traffic.ts";
import { print } from "./print.ts";

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "1000000" },
    big: { type: "string", default: "30000000" },
    db: { type: "string", default: "/tmp/kudurru-querylog-bench-30m.db" },
    "skip-big": { type: "boolean", default: false },
    "skip-insert": { type: "boolean", default: false },
    "dense-only": { type: "boolean", default: false },
  },
});

const DAY = 86_400_000;
/** Events per worker batch (a worker posts every 250 ms: 25k q/s). */
const BATCH_EVENTS = 6_000;
const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

/**
 * Writes `n` events through the writer, `gapMs` apart in event time, as
 * fast as it takes them; reports wall-clock and CPU-time rates (the machine
 * is shared: CPU time says what one dedicated core would do).
 */
async function insertRate(n: number, gapMs: number, label: string) {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-querylog-bench-" });
  try {
    const path = join(dir, "querylog.db");
    const start = Date.now() - n * gapMs;
    // Packed up front, as the workers hand them over: the producer's own
    // cost (the workers', in kudurru) stays out of the measurement.
    // Each batch is cloned the way a worker's message is, so its strings
    // arrive as new strings the writer has to hash. Each batch carries all
    // its strings, as a worker's first batch of a table does: kudurru's
    // later batches carry only the table's new strings, so this is the
    // writer's worst case.
    const traffic = syntheticTraffic(7);
    const pool = Array.from(
      { length: Math.ceil(n / BATCH_EVENTS) },
      () => {
        const batch = packQueryEvents(
          Array.from(
            { length: BATCH_EVENTS },
            () => syntheticEvent(traffic, 0),
          ),
        );
        return structuredClone(batch, {
          transfer: [
            batch.times.buffer as ArrayBuffer,
            batch.ints.buffer as ArrayBuffer,
          ],
        });
      },
    );
    const writer = createQueryLogWriter({
      path,
      node: "bench",
      settings: querylogSchema.parse({}),
      logger: createLogger({ level: "warn" }),
      now: () => start + n * gapMs,
      retentionIntervalMs: 0,
    });
    const began = performance.now();
    const cpuBefore = process.cpuUsage();
    let produced = 0;
    let b = 0;
    while (produced < n) {
      // Above the writer's batch size (100,000: it writes at once from
      // there, else on its 1 s tick) and below its queue bound (200,000).
      if (writer.stats().queued > 150_000) {
        await new Promise((r) => setTimeout(r, 0));
        continue;
      }
      const batch = pool[b++ % pool.length]!;
      const count = Math.min(batch.count, n - produced);
      const times = new Float64Array(count);
      for (let i = 0; i < count; i++) times[i] = start + (produced + i) * gapMs;
      produced += count;
      writer.enqueuePacked({
        ...batch,
        count,
        times,
        ints: batch.ints.subarray(0, count * EVENT_INTS),
      });
    }
    await writer.flush();
    const seconds = (performance.now() - began) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    const stats = writer.stats();
    await writer.close();
    const bytes = Deno.statSync(path).size;
    print(
      `insert (${label}): ${stats.written} events in ${
        seconds.toFixed(2)
      } s = ` +
        `${Math.round(stats.written / seconds)} events/s wall clock, ` +
        `${Math.round(stats.written / cpuSeconds)} events per CPU-second ` +
        `(batches ${stats.batches}, dropped ${stats.dropped}, excluded ${stats.excluded})`,
    );
    print(
      `size after insert: ${mb(bytes)} MB = ${
        mb((bytes / stats.written) * 1e6)
      } MB per million events`,
    );
    tableSizes(path, stats.written);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Bytes per table and index (dbstat is not compiled in; pages by btree walk). */
function tableSizes(path: string, events: number): void {
  const db = new DatabaseSync(path);
  try {
    const pageSize = Number(db.prepare("PRAGMA page_size").get()!.page_size);
    const pages = Number(db.prepare("PRAGMA page_count").get()!.page_count);
    const free = Number(
      db.prepare("PRAGMA freelist_count").get()!.freelist_count,
    );
    const rows = (t: string) =>
      Number(db.prepare(`SELECT count(*) AS n FROM ${t}`).get()!.n);
    print(
      `  pages ${pages} × ${pageSize} B (${free} free); events ${events}, ` +
        [
          "event_chunks",
          "names",
          "answers",
          "clients",
          "labels",
          "event_minutes",
          "status_minutes",
          "client_minutes",
          "domain_minutes",
          "domain_hours",
          "upstream_minutes",
        ]
          .map((t) => `${t} ${rows(t)}`).join(", "),
    );
  } finally {
    db.close();
  }
}

if (!values["skip-insert"]) {
  const n = Number(values.events);
  // A busy node: 100k queries per second of event time.
  await insertRate(n, 0.01, "100k q/s of traffic");
  // The density of the 30-day database (~11.6 q/s): most rollup rows per event.
  if (!values["dense-only"]) {
    await insertRate(n, (30 * DAY) / 30_000_000, "11.6 q/s of traffic");
  }
}
if (!values["skip-big"]) {
  const info = await generateBigDb(values.db, Number(values.big));
  const bytes = Deno.statSync(values.db).size;
  print(
    `30-day database: ${info.events} events, ${mb(bytes)} MB = ${
      mb((bytes / info.events) * 1e6)
    } MB per million events; generated in ${
      info.generatedSeconds.toFixed(0)
    } s${info.cached ? " (cached from an earlier run)" : ""}`,
  );
  tableSizes(values.db, info.events);
  const db = openQueryLogDb(values.db, { readOnly: true });
  try {
    runQueries(db);
  } finally {
    db.close();
  }
}
