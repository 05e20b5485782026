/**
 * Times the dashboard and search queries over the last 24 h of the big
 * database: the first (colder) run and the median of five.
 */
import type { DatabaseSync } from "node:sqlite";
import {
  clientSummary,
  queriesOverTime,
  searchEvents,
  topClients,
  topDomains,
  totals,
  upstreamStats,
} from "../../src/querylog/queries.ts";
import { print } from "./print.ts";

const HOUR = 3_600_000;

function time(label: string, target: number | undefined, fn: () => unknown) {
  const runs: number[] = [];
  let size = 0;
  for (let i = 0; i < 6; i++) {
    const t = performance.now();
    const result = fn();
    runs.push(performance.now() - t);
    size = Array.isArray(result)
      ? result.length
      : (result as { events?: unknown[] })?.events?.length ?? 1;
  }
  const [first, ...rest] = runs as [number, ...number[]];
  rest.sort((a, b) => a - b);
  const median = rest[Math.floor(rest.length / 2)]!;
  const verdict = target === undefined
    ? ""
    : median <= target
    ? `  (target ≤ ${target} ms: met)`
    : `  (target ≤ ${target} ms: MISSED)`;
  print(
    `  ${label.padEnd(44)} first ${first.toFixed(1).padStart(7)} ms, median ${
      median.toFixed(1).padStart(7)
    } ms, ${size} rows${verdict}`,
  );
}

export function runQueries(db: DatabaseSync): void {
  const newest = Number(
    db.prepare("SELECT max(minute) AS m FROM status_minutes").get()!.m,
  );
  const until = (newest + 1) * 60_000;
  const since = until - 24 * HOUR;
  const day = { since, until };
  print("queries over the last 24 h:");
  time("topDomains limit 10", 200, () => topDomains(db, { ...day, limit: 10 }));
  time(
    "queriesOverTime 5-minute buckets",
    200,
    () => queriesOverTime(db, { ...day, bucketMs: 300_000 }),
  );
  time(
    "queriesOverTime 1-minute buckets",
    200,
    () => queriesOverTime(db, { ...day, bucketMs: 60_000 }),
  );
  time(
    "topDomains blocked limit 10",
    undefined,
    () => topDomains(db, { ...day, limit: 10, blocked: true }),
  );
  time(
    "topDomains, window not hour-aligned",
    undefined,
    () =>
      topDomains(db, {
        since: since + 17 * 60_000,
        until: until - 23 * 60_000,
      }),
  );
  time("topClients limit 10", undefined, () => topClients(db, day));
  time("totals", undefined, () => totals(db, day));
  time("upstreamStats", undefined, () => upstreamStats(db, day));
  time(
    "clientSummary (recent 1000)",
    undefined,
    () => clientSummary(db, "192.168.1.2", day),
  );
  print("raw-event search (100 per page):");
  time("newest page, no filter", undefined, () => searchEvents(db, {}));
  time(
    "client 192.168.1.30",
    undefined,
    () => searchEvents(db, { client: "192.168.1.30" }),
  );
  // The generator adds names in popularity order: the last is the rarest.
  const rare = String(
    db.prepare("SELECT text FROM names ORDER BY id DESC LIMIT 1").get()!.text,
  );
  time(
    `domain, rarest name (${rare})`,
    undefined,
    () => searchEvents(db, { domain: rare }),
  );
  time(
    "domain suffix *.example0.com",
    undefined,
    () => searchEvents(db, { domain: "*.example0.com" }),
  );
  time(
    "status timeout_upstream",
    undefined,
    () => searchEvents(db, { status: "timeout_upstream" }),
  );
  time("page 50 deep (cursor), no filter", undefined, () => {
    let page = searchEvents(db, {});
    for (let i = 0; i < 49 && page.nextCursor; i++) {
      page = searchEvents(db, { before: page.nextCursor });
    }
    return page;
  });
}
