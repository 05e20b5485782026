/**
 * `kudurru stats` on a context's server: the report the local path builds
 * from querylog.db, put together from /api/v1/stats, its top clients and
 * one client's summary, with the API's ISO times read back into ms so the
 * same renderer prints it. Top clients name clients, so the API wants get
 * on querylog for them: a token without it (a viewer's) gets the report
 * without them rather than none.
 */
import type { ClientSummary } from "../querylog/summaries.ts";
import { ApiCallError, type ApiObjects } from "./api_objects.ts";
import type { StatsReport } from "./stats.ts";

/** The report, with top clients left out when the token may not read them. */
export type StatsView =
  & Omit<StatsReport, "topClients">
  & { topClients?: StatsReport["topClients"] };

interface Dashboard {
  totals: StatsReport["totals"];
  overTime: {
    bucketMs: number;
    buckets: (Omit<StatsReport["overTime"]["buckets"][number], "time"> & {
      time: string;
    })[];
  };
  topDomains: StatsReport["topDomains"];
  topBlockedDomains: StatsReport["topBlockedDomains"];
  upstreams: StatsReport["upstreams"];
}

type ApiClientSummary =
  & Omit<ClientSummary, "firstSeen" | "lastSeen">
  & { firstSeen: string | null; lastSeen: string | null };

/** The report of the window from the context's server. */
export async function statsOverApi(
  api: ApiObjects,
  window: { since: number; until?: number },
  limit: number,
  client: string | undefined,
): Promise<StatsView> {
  const span = new URLSearchParams({
    since: new Date(window.since).toISOString(),
  });
  if (window.until !== undefined) {
    span.set("until", new Date(window.until).toISOString());
  }
  const top = new URLSearchParams(span);
  top.set("limit", String(limit));
  const dash = await api.call("GET", `/api/v1/stats?${top}`) as Dashboard;
  let topClients: StatsReport["topClients"] | undefined;
  try {
    topClients = (await api.call(
      "GET",
      `/api/v1/stats/top-clients?${top}`,
    ) as { items: StatsReport["topClients"] }).items;
  } catch (err) {
    if (!(err instanceof ApiCallError) || err.failure.status !== 403) {
      throw err;
    }
  }
  let summary: ClientSummary | undefined;
  if (client !== undefined) {
    const answer = await api.call(
      "GET",
      `/api/v1/stats/clients/${encodeURIComponent(client)}?${span}`,
    ) as ApiClientSummary;
    summary = {
      client: answer.client,
      queries: answer.queries,
      blocked: answer.blocked,
      firstSeen: msOf(answer.firstSeen),
      lastSeen: msOf(answer.lastSeen),
      recent: answer.recent,
    };
  }
  return {
    since: window.since,
    until: window.until ?? null,
    totals: dash.totals,
    overTime: {
      bucketMs: dash.overTime.bucketMs,
      buckets: dash.overTime.buckets.map((b) => ({
        ...b,
        time: Date.parse(b.time),
      })),
    },
    topDomains: dash.topDomains,
    topBlockedDomains: dash.topBlockedDomains,
    ...(topClients !== undefined && { topClients }),
    upstreams: dash.upstreams,
    ...(summary !== undefined && { client: summary }),
  };
}

const msOf = (time: string | null) => time === null ? null : Date.parse(time);
