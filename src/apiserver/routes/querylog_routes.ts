/**
 * The query log over HTTP: search (keyset pages, newest first), export
 * (CSV or NDJSON, streamed page by page) and a live tail (Server-Sent
 * Events), with the filters of `kudurru querylog` as query parameters and
 * the same meaning (src/cli/querylog.ts, src/querylog/search_filters.ts).
 *
 * The log is `<dataDir>/querylog.db`, opened read-only per request (WAL
 * lets it be read while the server writes it); a log not written yet reads
 * as an empty one. The tail follows the events as the writer queues them
 * (src/querylog/live_feed.ts), not the file.
 *
 * This file holds the routes and their OpenAPI descriptions; the parts are
 * beside it: querylog_params.ts (query parameters, shared with
 * stats_routes.ts), querylog_open.ts (opening the log), querylog_search.ts,
 * querylog_entry.ts (an event as the API shows it), querylog_export.ts and
 * querylog_tail.ts.
 */
import { z } from "@hono/zod-openapi";
import type { Logger } from "../../log/logger.ts";
import type { BusyBudget } from "../busy_budget.ts";
import type { LiveFeed } from "../../querylog/live_feed.ts";
import { MAX_SEARCH_LIMIT } from "../../querylog/queries.ts";
import { ok } from "../envelope.ts";
import type { RoutesTable } from "../routes_table.ts";
import { errorResponses } from "./openapi_parts.ts";
import { queryLogEntry, queryLogEntrySchema } from "./querylog_entry.ts";
import { exportStream, fileTime, MAX_EXPORT_ROWS } from "./querylog_export.ts";
import { openOrEmpty, withQueryLog } from "./querylog_open.ts";
import {
  badParameter,
  countParam,
  filterQuery,
  windowQuery,
} from "./querylog_params.ts";
import { searchPage, searchRequest } from "./querylog_search.ts";
import { tailResponse } from "./querylog_tail.ts";

export interface QueryLogRoutesDeps {
  /** `<dataDir>/querylog.db`. */
  queryLogPath: string;
  now: () => number;
  /** What the writer publishes; without it the tail answers 404. */
  liveFeed?: LiveFeed;
  /** Where export failures half-way through a download are logged. */
  logger?: Logger;
  /** Time between `: ping` comments on a tail. @default 15_000 */
  tailPingMs?: number;
  /**
   * A tail ends after this long with `event: end`; EventSource connects
   * again, and that request is authenticated anew (a revoked token or an
   * ended session stops following within this time). @default 600_000
   */
  tailMaxMs?: number;
  /** Events a tail buffers for a slow client. @default 1000 */
  tailBufferSize?: number;
  /** The API's CPU share: a tail's events and an export's pages count against it. */
  budget?: BusyBudget;
}

const searchResponse = z.object({
  data: z.object({
    items: z.array(queryLogEntrySchema),
    continue: z.string().optional().openapi({
      description:
        "Pass as `continue` for the next (older) page; absent at the end",
    }),
  }),
  took_ms: z.number(),
});

/** The query-log routes: search, export and tail. */
export function queryLogRoutes(deps: QueryLogRoutesDeps) {
  return (routes: RoutesTable): void => {
    routes.define({
      method: "get",
      path: "/api/v1/querylog",
      guard: { resource: "querylog", verb: "list" },
      openapi: {
        tags: ["Query log"],
        summary: "Search the query log, newest first",
        description:
          "The filters of `kudurru querylog`. Keyset pages: pass `continue` from one page to get the next. " +
          "A page may be shorter than `limit`, even empty, while `continue` is present (a search for something " +
          "rare stops after a bounded amount of work): only a page without `continue` is the last.",
        request: {
          query: z.object({
            ...filterQuery,
            ...windowQuery,
            limit: z.string().optional().openapi({
              description:
                `Events per page, 1 to ${MAX_SEARCH_LIMIT}; default 100`,
            }),
            continue: z.string().optional().openapi({
              description: "The `continue` of the previous page",
            }),
          }),
        },
        responses: {
          200: {
            description: "One page of events, and `continue` when more follow",
            content: { "application/json": { schema: searchResponse } },
          },
          ...errorResponses,
        },
      },
    }, (c) => {
      const { params, filters, opts } = searchRequest(c, deps.now, []);
      const limit = countParam(params, "limit", MAX_SEARCH_LIMIT, 100);
      const page = withQueryLog(
        deps.queryLogPath,
        (db) => searchPage(db, opts, filters.node, limit),
      );
      return ok(c, {
        items: page.events.map(queryLogEntry),
        ...(page.next !== null && { continue: page.next }),
      });
    });

    routes.define({
      method: "get",
      path: "/api/v1/querylog/export",
      guard: { resource: "querylog", verb: "export" },
      openapi: {
        tags: ["Query log"],
        summary: "Download the matching events, as CSV or NDJSON",
        description:
          `Every event the search with the same filters finds, newest first, streamed; at most \`limit\` ` +
          `(default and largest ${
            MAX_EXPORT_ROWS.toLocaleString("en-US")
          }) rows: for more, export again with ` +
          "`until` set to the oldest row's time. CSV (RFC 4180): a header line, CRLF line ends, fields " +
          'quoted when they hold a quote, comma or line break; groups joined with ","; an absent value is empty. ' +
          "NDJSON: one JSON object per line, as the search's items.",
        request: {
          query: z.object({
            format: z.enum(["csv", "ndjson"]).optional().openapi({
              description: "csv (default) or ndjson",
            }),
            ...filterQuery,
            ...windowQuery,
            limit: z.string().optional().openapi({
              description: `Rows at most, 1 to ${MAX_EXPORT_ROWS}`,
            }),
            continue: z.string().optional().openapi({
              description:
                "Start below this search page's `continue` (export the rest of a search)",
            }),
          }),
        },
        responses: {
          200: {
            description:
              "The events, as an attachment named querylog-<time>.csv or .ndjson",
            content: {
              "text/csv": { schema: z.string() },
              "application/x-ndjson": { schema: z.string() },
            },
          },
          ...errorResponses,
        },
      },
    }, (c) => {
      const { params, filters, opts } = searchRequest(c, deps.now, ["format"]);
      const format = params.get("format") ?? "csv";
      if (format !== "csv" && format !== "ndjson") {
        throw badParameter("format", `must be csv or ndjson, not "${format}"`);
      }
      const max = countParam(params, "limit", MAX_EXPORT_ROWS, MAX_EXPORT_ROWS);
      const db = openOrEmpty(deps.queryLogPath);
      const name = `querylog-${fileTime(deps.now())}.${format}`;
      c.header(
        "Content-Type",
        format === "csv"
          ? "text/csv; charset=utf-8; header=present"
          : "application/x-ndjson; charset=utf-8",
      );
      c.header("Content-Disposition", `attachment; filename="${name}"`);
      return c.body(
        exportStream(db, opts, filters.node, format, {
          max,
          logger: deps.logger,
          budget: deps.budget,
        }),
      );
    });

    routes.define({
      method: "get",
      path: "/api/v1/querylog/tail",
      guard: { resource: "querylog", verb: "tail" },
      openapi: {
        tags: ["Query log"],
        summary: "Follow new queries as they are logged (Server-Sent Events)",
        description:
          "`text/event-stream`: one `event: query` per new matching event (data: a QueryLogEntry; `id:` its " +
          'place in this server\'s feed, rising), `event: dropped` (data: `{"dropped": n}`) when the client ' +
          `read too slowly and lost its n oldest events, a \`: ping\` comment every ${
            (deps.tailPingMs ?? 15_000) / 1000
          } s, and \`event: end\` ` +
          "after a while, when an EventSource connects again (and is authenticated again). Events are " +
          'those the log keeps (exclusions and privacy mode applied; none under privacy "none"), from ' +
          "the moment of connecting: use the search for what came before.",
        request: { query: z.object(filterQuery) },
        responses: {
          200: {
            description: "The event stream",
            content: { "text/event-stream": { schema: z.string() } },
          },
          ...errorResponses,
          429: {
            description:
              "Too many tails are open; Retry-After says when to try again",
            content: errorResponses[400].content,
          },
        },
      },
    }, (c) =>
      tailResponse(c, deps.liveFeed, {
        pingMs: deps.tailPingMs ?? 15_000,
        maxMs: deps.tailMaxMs ?? 600_000,
        bufferSize: deps.tailBufferSize ?? 1000,
        ...(deps.budget && { budget: deps.budget }),
      }));
  };
}
