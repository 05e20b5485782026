/**
 * Summaries for the dashboard's cards: totals of a window, one client's
 * picture, and the upstreams' share and latency. From the rollups, like
 * stats.ts (see there for how windows round).
 */
import type { DatabaseSync } from "node:sqlite";
import { BLOCKED_STATUSES } from "./encode.ts";
import { searchEvents } from "./search.ts";
import { clientSpellings } from "./search_filters.ts";
import { MINUTE_MS } from "./settings.ts";
import { type StatsWindow, windowMinutes } from "./stats.ts";

export interface Totals {
  queries: number;
  /** blocked_list + blocked_service. */
  blocked: number;
  /** blocked / queries × 100, one decimal; 0 without queries. */
  blockedPercent: number;
  /** cached + cached_stale. */
  cached: number;
  forwarded: number;
  byStatus: Record<string, number>;
  /** Mean time to answer, µs. */
  avgDurationUs: number;
  /** Distinct clients (0 under privacy "none"). */
  clients: number;
}

export function totals(db: DatabaseSync, w: StatsWindow): Totals {
  const [from, to] = windowMinutes(db, w);
  const rows = db.prepare(
    `SELECT st.text AS status, sum(queries) AS q, sum(duration_us) AS d
     FROM status_minutes s JOIN labels st ON st.id = s.status
     WHERE minute >= ? AND minute < ? GROUP BY s.status`,
  ).all(from, to);
  const result: Totals = {
    queries: 0,
    blocked: 0,
    blockedPercent: 0,
    cached: 0,
    forwarded: 0,
    byStatus: {},
    avgDurationUs: 0,
    clients: 0,
  };
  let duration = 0;
  for (const r of rows) {
    const status = String(r.status);
    const q = Number(r.q);
    result.byStatus[status] = q;
    result.queries += q;
    duration += Number(r.d);
    if (BLOCKED_STATUSES.has(status)) result.blocked += q;
    if (status === "cached" || status === "cached_stale") result.cached += q;
    if (status === "forwarded") result.forwarded += q;
  }
  if (result.queries > 0) {
    result.blockedPercent =
      Math.round((result.blocked / result.queries) * 1000) / 10;
    result.avgDurationUs = Math.round(duration / result.queries);
  }
  result.clients = Number(
    db.prepare(
      `SELECT count(DISTINCT client) AS n FROM client_minutes
       WHERE minute >= ? AND minute < ?`,
    ).get(from, to)?.n ?? 0,
  );
  return result;
}

export interface ClientSummary {
  client: string;
  queries: number;
  blocked: number;
  /** Start of the first and last minute the client asked in (ms); null if never. */
  firstSeen: number | null;
  lastSeen: number | null;
  /** From the client's newest raw events in the window (at most `recent`). */
  recent: {
    events: number;
    byStatus: Record<string, number>;
    topDomains: { domain: string; queries: number }[];
    /** The names most often blocked among them. */
    topBlocked: { domain: string; queries: number }[];
  };
}

/** One client (an address in any spelling, see clientSpellings) over the window. */
export function clientSummary(
  db: DatabaseSync,
  client: string,
  opts: StatsWindow & { recent?: number },
): ClientSummary {
  const [from, to] = windowMinutes(db, opts);
  const row = db.prepare(
    `SELECT sum(queries) AS q, sum(blocked) AS b, min(minute) AS first,
       max(minute) AS last
     FROM client_minutes WHERE client IN (SELECT id FROM clients
       WHERE text IN (SELECT value FROM json_each(?)))
       AND minute >= ? AND minute < ?`,
  ).get(JSON.stringify(clientSpellings(client)), from, to);
  const minuteMs = (v: unknown) =>
    v === null || v === undefined ? null : Number(v) * MINUTE_MS;
  const byStatus: Record<string, number> = {};
  const domains = new Map<string, number>();
  const blocked = new Map<string, number>();
  let events = 0;
  let cursor: string | null | undefined;
  let wanted = Math.max(0, Math.trunc(opts.recent ?? 1000));
  while (wanted > 0 && cursor !== null) {
    const page = searchEvents(db, {
      client,
      since: opts.since,
      ...(opts.until === undefined ? {} : { until: opts.until }),
      limit: Math.min(1000, wanted),
      ...(cursor === undefined ? {} : { before: cursor }),
    });
    for (const e of page.events) {
      byStatus[e.status] = (byStatus[e.status] ?? 0) + 1;
      domains.set(e.qname, (domains.get(e.qname) ?? 0) + 1);
      if (BLOCKED_STATUSES.has(e.status)) {
        blocked.set(e.qname, (blocked.get(e.qname) ?? 0) + 1);
      }
    }
    events += page.events.length;
    wanted -= page.events.length;
    cursor = page.events.length === 0 ? null : page.nextCursor;
  }
  const top = (counts: Map<string, number>) =>
    [...counts].map(([domain, queries]) => ({ domain, queries }))
      .sort((a, b) => b.queries - a.queries || a.domain.localeCompare(b.domain))
      .slice(0, 10);
  return {
    client,
    queries: Number(row?.q ?? 0),
    blocked: Number(row?.b ?? 0),
    firstSeen: minuteMs(row?.first),
    lastSeen: minuteMs(row?.last),
    recent: {
      events,
      byStatus,
      topDomains: top(domains),
      topBlocked: top(blocked),
    },
  };
}

export interface UpstreamStats {
  upstream: string;
  queries: number;
  /** servfail_upstream + timeout_upstream answers. */
  errors: number;
  avgDurationUs: number;
}

/** Every upstream that answered in the window, busiest first. */
export function upstreamStats(
  db: DatabaseSync,
  w: StatsWindow,
): UpstreamStats[] {
  const [from, to] = windowMinutes(db, w);
  return db.prepare(
    `SELECT u.text AS upstream, sum(queries) AS q, sum(errors) AS e,
       sum(duration_us) AS d
     FROM upstream_minutes m JOIN labels u ON u.id = m.upstream
     WHERE minute >= ? AND minute < ? GROUP BY m.upstream
     ORDER BY q DESC, u.text`,
  ).all(from, to).map((r) => ({
    upstream: String(r.upstream),
    queries: Number(r.q),
    errors: Number(r.e),
    avgDurationUs: Math.round(Number(r.d) / Math.max(1, Number(r.q))),
  }));
}
