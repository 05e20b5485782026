/**
 * Query statistics over HTTP, the numbers `kudurru stats` prints (the same
 * functions, the same windows: 24 h up to `until`, or now, unless `since`
 * says): totals, queries over time, top domains, top blocked domains and
 * the upstreams under `stats` `get`; top clients and one client's summary
 * name clients, so they need `querylog` `get` (the permissions table: stats
 * are "aggregate counts that name no client"; querylog covers "any
 * statistic that names clients"), though their paths are under /stats.
 *
 * Statistics come from the rollups, which know no node: the log holds this
 * node's events, so `node` naming another node gives empty statistics.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import ipaddr from "ipaddr.js";
import type { DatabaseSync } from "node:sqlite";
import { parseDuration } from "../../config/duration.ts";
import { isIpAddress } from "../../dns/ip_text.ts";
import { HIDDEN_CLIENT } from "../../querylog/event_filter.ts";
import {
  clientSummary,
  MAX_BUCKETS,
  queriesOverTime,
  topClients,
  topDomains,
  totals,
  upstreamStats,
} from "../../querylog/queries.ts";
import { MINUTE_MS } from "../../querylog/settings.ts";
import {
  clientOverTime,
  MAX_TOP_LIMIT,
  overTimeBucketMs,
} from "../../querylog/stats.ts";
import { clientSpellings } from "../../querylog/search_filters.ts";
import { ok } from "../envelope.ts";
import { ApiError } from "../errors.ts";
import type { RoutesTable } from "../routes_table.ts";
import type { RouteGuard } from "../routes_table.ts";
import { answers } from "./openapi_parts.ts";
import { isoTime } from "./querylog_entry.ts";
import { emptyQueryLog, openOrEmpty } from "./querylog_open.ts";
import {
  badParameter,
  countParam,
  QueryParams,
  windowParams,
  windowQuery,
} from "./querylog_params.ts";

export interface StatsRoutesDeps {
  /** `<dataDir>/querylog.db`. */
  queryLogPath: string;
  now: () => number;
  /** This node's name (node.name): the node whose events the log holds. */
  nodeName: string;
}

/** The default window: a day. */
const DAY_MS = 24 * 3_600_000;

/** A window as the CLI makes it: 24 h up to `until` (or now) unless `since` says. */
interface Span {
  since: number;
  until: number;
}

function spanOf(params: QueryParams, now: number): Span {
  const window = windowParams(params, now);
  const until = window.until ?? now;
  return { since: window.since ?? until - DAY_MS, until };
}

/** The window in answers. */
const spanOut = (span: Span) => ({
  since: isoTime(span.since),
  until: isoTime(span.until),
});

/**
 * Reads the statistics of `node` (or of the log, without it): the log's
 * own, when `node` is this node or one its events name; else none.
 */
function withStats<T>(
  deps: StatsRoutesDeps,
  node: string | undefined,
  read: (db: DatabaseSync) => T,
): T {
  let db = openOrEmpty(deps.queryLogPath);
  try {
    if (node !== undefined && node !== deps.nodeName && !logHasNode(db, node)) {
      db.close();
      db = emptyQueryLog();
    }
    return read(db);
  } finally {
    db.close();
  }
}

function logHasNode(db: DatabaseSync, node: string): boolean {
  return db.prepare(
    "SELECT 1 FROM labels WHERE kind = 'node' AND text = ?",
  ).get(node) !== undefined;
}

function limitParam(params: QueryParams): number {
  return countParam(params, "limit", MAX_TOP_LIMIT, 10);
}

function booleanParam(params: QueryParams, name: string): boolean {
  const text = params.get(name);
  if (text === undefined) return false;
  if (text === "true" || text === "1") return true;
  if (text === "false" || text === "0") return false;
  throw badParameter(name, `must be true or false, not "${text}"`);
}

/** Queries over time: `bucket` (default as the CLI picks it) and `zone`. */
function overTime(db: DatabaseSync, params: QueryParams, span: Span) {
  return inBuckets(
    params,
    span,
    (bucket) =>
      queriesOverTime(db, { ...span, ...bucket }).map((b) => ({
        ...b,
        time: isoTime(b.time),
      })),
  );
}

/** One client's queries over time, with the buckets `bucket` and `zone` ask for. */
function clientOverTimeOf(
  db: DatabaseSync,
  client: string,
  params: QueryParams,
  span: Span,
) {
  return inBuckets(
    params,
    span,
    (bucket) =>
      clientOverTime(db, clientSpellings(client), { ...span, ...bucket }).map(
        (b) => ({ ...b, time: isoTime(b.time) }),
      ),
  );
}

/** The `bucket` and `zone` parameters, and `count` of the buckets they make. */
function inBuckets<T>(
  params: QueryParams,
  span: Span,
  count: (bucket: { bucketMs: number; zone: "local" | "utc" }) => T[],
) {
  const text = params.get("bucket");
  let bucketMs = overTimeBucketMs((span.until - span.since) / MINUTE_MS);
  if (text !== undefined) {
    const ms = parseDuration(text);
    if (ms === undefined || ms < MINUTE_MS || ms % MINUTE_MS !== 0) {
      throw badParameter(
        "bucket",
        `takes whole minutes such as "5m", "1h" or "1d", not "${text}"`,
      );
    }
    bucketMs = ms;
  }
  const zone = params.get("zone") ?? "local";
  if (zone !== "local" && zone !== "utc") {
    throw badParameter("zone", `must be local or utc, not "${zone}"`);
  }
  try {
    return { bucketMs, zone, buckets: count({ bucketMs, zone }) };
  } catch (err) {
    if (err instanceof RangeError) {
      throw badParameter(
        "bucket",
        `gives more than ${MAX_BUCKETS} buckets over this window`,
        "use a wider bucket or a shorter window",
      );
    }
    throw err;
  }
}

const windowOut = {
  since: z.string().openapi({ description: "Start of the window (ISO 8601)" }),
  until: z.string().openapi({ description: "End of the window (ISO 8601)" }),
};

const totalsSchema = z.object({
  queries: z.number().int(),
  blocked: z.number().int().openapi({
    description: "blocked_list + blocked_service",
  }),
  blockedPercent: z.number().openapi({
    description: "blocked / queries × 100, one decimal",
  }),
  cached: z.number().int().openapi({ description: "cached + cached_stale" }),
  forwarded: z.number().int(),
  byStatus: z.record(z.string(), z.number().int()),
  avgDurationUs: z.number().int(),
  clients: z.number().int().openapi({
    description: 'Distinct clients (0 under privacy "none")',
  }),
});

const overTimeSchema = z.object({
  bucketMs: z.number().int(),
  zone: z.enum(["local", "utc"]),
  buckets: z.array(z.object({
    time: z.string().openapi({ description: "Start of the bucket" }),
    total: z.number().int(),
    blocked: z.number().int(),
    byStatus: z.record(z.string(), z.number().int()),
  })),
});

const domainsSchema = z.array(z.object({
  domain: z.string(),
  queries: z.number().int(),
  blocked: z.number().int(),
}));

const upstreamsSchema = z.array(z.object({
  upstream: z.string(),
  queries: z.number().int(),
  errors: z.number().int().openapi({
    description: "servfail_upstream + timeout_upstream answers",
  }),
  avgDurationUs: z.number().int(),
}));

const nodeQuery = {
  node: z.string().optional().openapi({
    description:
      "Only this node's queries (the log holds one node's: another node's name gives empty statistics)",
  }),
};
const limitQuery = {
  limit: z.string().optional().openapi({
    description: `Rows, 1 to ${MAX_TOP_LIMIT}; default 10`,
  }),
};
const overTimeQuery = {
  bucket: z.string().optional().openapi({
    description:
      'Bucket width in whole minutes ("5m", "1h", "1d"); default: the narrowest of 1m, 5m, 15m, 1h, 6h, 1d that makes at most 24 buckets',
  }),
  zone: z.enum(["local", "utc"]).optional().openapi({
    description:
      "Buckets start on the server's wall clock (local, default) or on UTC",
  }),
};

/** The statistics routes. */
export function statsRoutes(deps: StatsRoutesDeps) {
  return (routes: RoutesTable): void => {
    const stats: RouteGuard = { resource: "stats", verb: "get" };
    // Per-client statistics name clients (see the file comment).
    const perClient: RouteGuard = { resource: "querylog", verb: "get" };
    const read = <T>(
      c: Context,
      known: readonly string[],
      fn: (db: DatabaseSync, params: QueryParams, span: Span) => T,
    ) => {
      const params = new QueryParams(c, ["since", "until", "node", ...known]);
      const span = spanOf(params, deps.now());
      const node = params.get("node");
      return withStats(deps, node, (db) => fn(db, params, span));
    };

    routes.define({
      method: "get",
      path: "/api/v1/stats",
      guard: stats,
      openapi: {
        tags: ["Statistics"],
        summary:
          "The dashboard: totals, queries over time, top domains, top blocked domains, upstreams",
        description:
          "`kudurru stats -o json` without its top clients (those need get on querylog: GET /api/v1/stats/top-clients).",
        request: {
          query: z.object({
            ...windowQuery,
            ...limitQuery,
            ...overTimeQuery,
            ...nodeQuery,
          }),
        },
        responses: answers(
          "The statistics of the window",
          z.object({
            ...windowOut,
            totals: totalsSchema,
            overTime: overTimeSchema,
            topDomains: domainsSchema,
            topBlockedDomains: domainsSchema,
            upstreams: upstreamsSchema,
          }),
        ),
      },
    }, (c) =>
      ok(
        c,
        read(c, ["limit", "bucket", "zone"], (db, params, span) => {
          const limit = limitParam(params);
          return {
            ...spanOut(span),
            totals: totals(db, span),
            overTime: overTime(db, params, span),
            topDomains: topDomains(db, { ...span, limit }),
            topBlockedDomains: topDomains(db, {
              ...span,
              limit,
              blocked: true,
            }),
            upstreams: upstreamStats(db, span),
          };
        }),
      ));

    routes.define({
      method: "get",
      path: "/api/v1/stats/summary",
      guard: stats,
      openapi: {
        tags: ["Statistics"],
        summary:
          "Totals of a window: queries, blocked, cached, forwarded, clients",
        request: { query: z.object({ ...windowQuery, ...nodeQuery }) },
        responses: answers(
          "The totals",
          z.object({ ...windowOut, totals: totalsSchema }),
        ),
      },
    }, (c) =>
      ok(
        c,
        read(c, [], (db, _params, span) => ({
          ...spanOut(span),
          totals: totals(db, span),
        })),
      ));

    routes.define({
      method: "get",
      path: "/api/v1/stats/over-time",
      guard: stats,
      openapi: {
        tags: ["Statistics"],
        summary: "Queries per time bucket and status",
        description:
          `Every bucket of the window, empty ones included; at most ${MAX_BUCKETS}.`,
        request: {
          query: z.object({ ...windowQuery, ...overTimeQuery, ...nodeQuery }),
        },
        responses: answers(
          "The buckets",
          z.object({ ...windowOut, ...overTimeSchema.shape }),
        ),
      },
    }, (c) =>
      ok(
        c,
        read(c, ["bucket", "zone"], (db, params, span) => ({
          ...spanOut(span),
          ...overTime(db, params, span),
        })),
      ));

    const topDomainsRoute = (path: string, blockedOnly: boolean) =>
      routes.define({
        method: "get",
        path,
        guard: stats,
        openapi: {
          tags: ["Statistics"],
          summary: blockedOnly
            ? "The most blocked domains"
            : "The most asked domains (with blocked=true: the most blocked)",
          request: {
            query: z.object({
              ...windowQuery,
              ...limitQuery,
              ...(!blockedOnly && {
                blocked: z.enum(["true", "false"]).optional().openapi({
                  description: "Rank by blocked queries, and list only those",
                }),
              }),
              ...nodeQuery,
            }),
          },
          responses: answers(
            "The domains, busiest first",
            z.object({ ...windowOut, items: domainsSchema }),
          ),
        },
      }, (c) =>
        ok(
          c,
          read(
            c,
            blockedOnly ? ["limit"] : ["limit", "blocked"],
            (db, params, span) => ({
              ...spanOut(span),
              items: topDomains(db, {
                ...span,
                limit: limitParam(params),
                blocked: blockedOnly || booleanParam(params, "blocked"),
              }),
            }),
          ),
        ));
    topDomainsRoute("/api/v1/stats/top-domains", false);
    topDomainsRoute("/api/v1/stats/top-blocked", true);

    routes.define({
      method: "get",
      path: "/api/v1/stats/upstreams",
      guard: stats,
      openapi: {
        tags: ["Statistics"],
        summary: "Every upstream that answered: queries, errors, latency",
        request: { query: z.object({ ...windowQuery, ...nodeQuery }) },
        responses: answers(
          "The upstreams, busiest first",
          z.object({ ...windowOut, items: upstreamsSchema }),
        ),
      },
    }, (c) =>
      ok(
        c,
        read(c, [], (db, _params, span) => ({
          ...spanOut(span),
          items: upstreamStats(db, span),
        })),
      ));

    routes.define({
      method: "get",
      path: "/api/v1/stats/top-clients",
      guard: perClient,
      openapi: {
        tags: ["Statistics"],
        summary:
          "The clients that asked most (with blocked=true: were blocked most)",
        description:
          "It names clients, so it needs get on querylog, not stats (the permissions table).",
        request: {
          query: z.object({
            ...windowQuery,
            ...limitQuery,
            blocked: z.enum(["true", "false"]).optional().openapi({
              description: "Rank by blocked queries, and list only those",
            }),
            ...nodeQuery,
          }),
        },
        responses: answers(
          "The clients, busiest first",
          z.object({
            ...windowOut,
            items: z.array(z.object({
              client: z.string(),
              queries: z.number().int(),
              blocked: z.number().int(),
            })),
          }),
        ),
      },
    }, (c) =>
      ok(
        c,
        read(c, ["limit", "blocked"], (db, params, span) => ({
          ...spanOut(span),
          items: topClients(db, {
            ...span,
            limit: limitParam(params),
            blocked: booleanParam(params, "blocked"),
          }),
        })),
      ));

    routes.define({
      method: "get",
      path: "/api/v1/stats/clients/{address}",
      guard: perClient,
      openapi: {
        tags: ["Statistics"],
        summary:
          "One client: queries, blocked, first and last seen, and its recent queries by status and domain",
        description:
          "`kudurru stats --client`. It names a client, so it needs get on querylog, not stats.",
        request: {
          params: z.object({
            address: z.string().openapi({
              description:
                'An IP address (either spelling of an IPv4-mapped one), or "hidden"',
            }),
          }),
          query: z.object({
            ...windowQuery,
            ...overTimeQuery,
            recent: z.string().optional().openapi({
              description:
                "How many of its newest queries `recent` sums up, 1 to 10000; default 1000",
            }),
            ...nodeQuery,
          }),
        },
        responses: answers(
          "The client's summary",
          z.object({
            ...windowOut,
            client: z.string(),
            queries: z.number().int(),
            blocked: z.number().int(),
            firstSeen: z.string().nullable().openapi({
              description:
                "Start of the first minute it asked in; null if never",
            }),
            lastSeen: z.string().nullable(),
            recent: z.object({
              events: z.number().int(),
              byStatus: z.record(z.string(), z.number().int()),
              topDomains: z.array(
                z.object({ domain: z.string(), queries: z.number().int() }),
              ),
              topBlocked: z.array(
                z.object({ domain: z.string(), queries: z.number().int() }),
              ),
            }),
            overTime: z.object({
              bucketMs: z.number().int(),
              zone: z.enum(["local", "utc"]),
              buckets: z.array(z.object({
                time: z.string(),
                queries: z.number().int(),
                blocked: z.number().int(),
              })),
            }),
          }),
        ),
      },
    }, (c) => {
      const client = addressParam(c.req.param("address") ?? "");
      return ok(
        c,
        read(c, ["recent", "bucket", "zone"], (db, params, span) => {
          const recent = countParam(params, "recent", 10_000, 1000);
          const summary = clientSummary(db, client, { ...span, recent });
          const seen = (ms: number | null) => ms === null ? null : isoTime(ms);
          return {
            ...spanOut(span),
            ...summary,
            firstSeen: seen(summary.firstSeen),
            lastSeen: seen(summary.lastSeen),
            overTime: clientOverTimeOf(db, client, params, span),
          };
        }),
      );
    });
  };
}

/** The path's address, as `kudurru stats --client` takes it (normalised). */
function addressParam(address: string): string {
  if (address === HIDDEN_CLIENT) return address;
  if (!isIpAddress(address)) {
    throw new ApiError(
      "bad_request",
      `Path parameter "address": takes an address such as 192.0.2.7 (or "${HIDDEN_CLIENT}"), not "${address}"`,
      { details: { parameter: "address" } },
    );
  }
  return ipaddr.process(address).toString();
}
