/**
 * Dashboard statistics, read from the rollups (never from raw events, except
 * clientSummary's bounded "recent" sample). Rollups count whole minutes: a
 * window is widened to the minutes it touches. Top domains use hourly rows
 * for the whole hours of a window and minute rows for its ragged ends and
 * for the hours not yet folded (domain_hours.ts) while minute rows are kept
 * (DOMAIN_MINUTES_RETENTION_MS); older ragged ends count whole hours.
 */
import type { DatabaseSync } from "node:sqlite";
import { readDomainHoursThrough } from "./domain_hours.ts";
import { BLOCKED_STATUSES } from "./encode.ts";
import { MINUTE_MS } from "./settings.ts";
import { bucketStarts, type BucketZone, gcd } from "./time_buckets.ts";

export interface StatsWindow {
  /** Start (ms, inclusive). */
  since: number;
  /** End (ms, exclusive). @default the newest minute with data */
  until?: number;
}

export interface TopOptions extends StatsWindow {
  /** @default 10 */
  limit?: number;
  /** Rank by blocked queries, and list only what was blocked. */
  blocked?: boolean;
}

export interface DomainCount {
  domain: string;
  queries: number;
  blocked: number;
}

export interface ClientCount {
  client: string;
  queries: number;
  blocked: number;
}

/** [from, to) in epoch minutes. */
export function windowMinutes(
  db: DatabaseSync,
  w: StatsWindow,
): [number, number] {
  const from = Math.floor(w.since / MINUTE_MS);
  if (w.until !== undefined) return [from, Math.ceil(w.until / MINUTE_MS)];
  const row = db.prepare("SELECT max(minute) AS m FROM status_minutes").get();
  return [
    from,
    row?.m === null || row?.m === undefined ? from : Number(row.m) + 1,
  ];
}

/** The most rows a top list returns (a larger limit is capped). */
export const MAX_TOP_LIMIT = 1000;

const limitOf = (limit: number | undefined) =>
  Math.min(MAX_TOP_LIMIT, Math.max(1, Math.trunc(limit ?? 10)));

const ranking = (blocked: boolean | undefined) =>
  blocked
    ? "HAVING sum(blocked) > 0 ORDER BY sum(blocked) DESC, key"
    : "ORDER BY sum(queries) DESC, key";

/** The most asked (or most blocked) names in the window. */
export function topDomains(db: DatabaseSync, opts: TopOptions): DomainCount[] {
  const [from, to] = windowMinutes(db, opts);
  if (to <= from) return [];
  const parts: string[] = [];
  const params: number[] = [];
  const hours = (a: number, b: number) => {
    if (b <= a) return;
    parts.push(
      "SELECT name, queries, blocked FROM domain_hours WHERE hour >= ? AND hour < ?",
    );
    params.push(a, b);
  };
  const mins = (a: number, b: number) => {
    if (b <= a) return;
    parts.push(
      "SELECT name, queries, blocked FROM domain_minutes WHERE minute >= ? AND minute < ?",
    );
    params.push(a, b);
  };
  // Minute rows from the first hour not folded into domain_hours on.
  const folded = Math.floor(readDomainHoursThrough(db) / 60) * 60;
  mins(Math.max(from, folded), to);
  const low = Math.min(to, folded);
  if (low > from) {
    const row = db.prepare("SELECT min(minute) AS m FROM domain_minutes").get();
    const cover = row?.m === null || row?.m === undefined
      ? Infinity
      : Number(row.m);
    let h1 = Math.ceil(from / 60);
    let h2 = Math.floor(low / 60);
    if (h1 >= h2) {
      if (from >= cover) mins(from, low);
      else hours(Math.floor(from / 60), Math.ceil(low / 60));
    } else {
      // Ragged ends: minute rows while kept, else the whole hour.
      if (from < h1 * 60) {
        if (from >= cover) mins(from, h1 * 60);
        else h1--;
      }
      if (low > h2 * 60) {
        if (h2 * 60 >= cover) mins(h2 * 60, low);
        else h2++;
      }
      hours(h1, h2);
    }
  }
  if (parts.length === 0) return [];
  const rows = db.prepare(
    `SELECT n.text AS domain, t.q AS queries, t.b AS blocked FROM (
       SELECT name AS key, sum(queries) AS q, sum(blocked) AS b
       FROM (${parts.join(" UNION ALL ")})
       GROUP BY name ${ranking(opts.blocked)} LIMIT ?
     ) t JOIN names n ON n.id = t.key`,
  ).all(...params, limitOf(opts.limit));
  return rows.map((r) => ({
    domain: String(r.domain),
    queries: Number(r.queries),
    blocked: Number(r.blocked),
  })).sort(byRank(opts.blocked, (r) => r.domain));
}

/** The clients that asked (or were blocked) most in the window. */
export function topClients(db: DatabaseSync, opts: TopOptions): ClientCount[] {
  const [from, to] = windowMinutes(db, opts);
  const rows = db.prepare(
    `SELECT c.text AS client, t.q AS queries, t.b AS blocked FROM (
       SELECT client AS key, sum(queries) AS q, sum(blocked) AS b
       FROM client_minutes WHERE minute >= ? AND minute < ?
       GROUP BY client ${ranking(opts.blocked)} LIMIT ?
     ) t JOIN clients c ON c.id = t.key`,
  ).all(from, to, limitOf(opts.limit));
  return rows.map((r) => ({
    client: String(r.client),
    queries: Number(r.queries),
    blocked: Number(r.blocked),
  })).sort(byRank(opts.blocked, (r) => r.client));
}

function byRank<T extends { queries: number; blocked: number }>(
  blocked: boolean | undefined,
  key: (row: T) => string,
) {
  return (a: T, b: T) =>
    (blocked ? b.blocked - a.blocked : b.queries - a.queries) ||
    key(a).localeCompare(key(b));
}

export interface TimeBucket {
  /** Start of the bucket (ms). */
  time: number;
  total: number;
  blocked: number;
  byStatus: Record<string, number>;
}

/** At most this many buckets per call. */
export const MAX_BUCKETS = 10_000;

/** Bucket widths for queries over time, in minutes: 1 m to 1 d. */
const BUCKET_MINUTES = [1, 5, 15, 60, 360, 1440];
/** About this many buckets of queries over time, at most. */
const OVER_TIME_ROWS = 24;

/**
 * The bucket of queries over time when none is asked for: the narrowest
 * that covers `spanMinutes` in OVER_TIME_ROWS buckets (whole days past a
 * day each). `kudurru stats` and the HTTP API's stats both pick it.
 */
export function overTimeBucketMs(spanMinutes: number): number {
  const minutes =
    BUCKET_MINUTES.find((b) => spanMinutes / b <= OVER_TIME_ROWS) ??
      Math.ceil(spanMinutes / OVER_TIME_ROWS / 1440) * 1440;
  return minutes * MINUTE_MS;
}

/**
 * Queries per bucket and status, every bucket in the window present (zeros
 * included). `bucketMs` is rounded up to whole minutes; with `zone` "utc"
 * (the default) buckets start at multiples of it since the epoch, with
 * "local" on the machine's wall clock (time_buckets.ts).
 */
export function queriesOverTime(
  db: DatabaseSync,
  opts: StatsWindow & { bucketMs: number; zone?: BucketZone },
): TimeBucket[] {
  const plan = bucketPlan(db, opts);
  const buckets: TimeBucket[] = plan.starts.map((time) => ({
    time,
    total: 0,
    blocked: 0,
    byStatus: {},
  }));
  // node:sqlite binds numbers as REAL: CAST keeps the division integral.
  const rows = db.prepare(
    `SELECT minute / CAST(? AS INTEGER) AS u, st.text AS status,
       sum(queries) AS q
     FROM status_minutes s JOIN labels st ON st.id = s.status
     WHERE minute >= ? AND minute < ? GROUP BY u, s.status`,
  ).all(plan.unit, plan.from, plan.to);
  for (const r of rows) {
    const target = buckets[plan.index(Number(r.u))];
    if (target === undefined) continue;
    const status = String(r.status);
    const q = Number(r.q);
    target.byStatus[status] = (target.byStatus[status] ?? 0) + q;
    target.total += q;
    if (BLOCKED_STATUSES.has(status)) target.blocked += q;
  }
  return buckets;
}

/** One bucket of a client's queries over time. */
export interface ClientBucket {
  /** Start of the bucket (ms). */
  time: number;
  queries: number;
  blocked: number;
}

/**
 * One client's queries and blocked queries over time (its page on the
 * dashboard), from the per-minute client rollup: `spellings` are the
 * texts the log may hold for the address (clientSpellings).
 */
export function clientOverTime(
  db: DatabaseSync,
  spellings: readonly string[],
  opts: StatsWindow & { bucketMs: number; zone?: BucketZone },
): ClientBucket[] {
  const plan = bucketPlan(db, opts);
  const buckets: ClientBucket[] = plan.starts.map((time) => ({
    time,
    queries: 0,
    blocked: 0,
  }));
  const rows = db.prepare(
    `SELECT minute / CAST(? AS INTEGER) AS u, sum(queries) AS q,
       sum(blocked) AS b
     FROM client_minutes WHERE client IN (SELECT id FROM clients
       WHERE text IN (SELECT value FROM json_each(?)))
       AND minute >= ? AND minute < ? GROUP BY u`,
  ).all(plan.unit, JSON.stringify(spellings), plan.from, plan.to);
  for (const r of rows) {
    const target = buckets[plan.index(Number(r.u))];
    if (target === undefined) continue;
    target.queries += Number(r.q);
    target.blocked += Number(r.b);
  }
  return buckets;
}

/**
 * The buckets of a window: their starts, and the unit minutes are summed
 * in (a unit every bucket start is a multiple of: the bucket itself in
 * UTC, 30 min in +05:30), each unit inside one bucket.
 * @throws {RangeError} past MAX_BUCKETS
 */
function bucketPlan(
  db: DatabaseSync,
  opts: StatsWindow & { bucketMs: number; zone?: BucketZone },
) {
  const bucket = Math.max(1, Math.ceil(opts.bucketMs / MINUTE_MS)) * MINUTE_MS;
  const [from, to] = windowMinutes(db, opts);
  const starts = bucketStarts(
    from * MINUTE_MS,
    to * MINUTE_MS,
    bucket,
    opts.zone ?? "utc",
    MAX_BUCKETS,
  );
  if (starts.length > MAX_BUCKETS) {
    throw new RangeError(
      `Too many buckets (over ${MAX_BUCKETS}); use a wider bucket or a shorter window`,
    );
  }
  const unit = starts.reduce(
    (g, t) => gcd(g, t / MINUTE_MS),
    bucket / MINUTE_MS,
  );
  return {
    starts,
    unit,
    from,
    to,
    /** The bucket of summed unit `u`. */
    index: (u: number) => bucketIndex(starts, u * unit * MINUTE_MS),
  };
}

/** The index of the last start at or before `ms` (-1 before the first). */
function bucketIndex(starts: readonly number[], ms: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  if (hi < 0 || ms < starts[0]!) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= ms) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
