/**
 * Searching the query log for the search and export routes: what a
 * request asks for (filters, window, `continue` cursor), and one page of
 * the search, newest first, with a bounded amount of work per call and
 * `node` tested on each event after the search.
 */
import type { Context } from "hono";
import type { DatabaseSync } from "node:sqlite";
import {
  FilterError,
  type LoggedEvent,
  parseCursor,
  searchEvents,
  type SearchOptions,
} from "../../querylog/queries.ts";
import {
  badParameter,
  FILTER_PARAMS,
  filterParams,
  type Filters,
  LIST_PARAMS,
  QueryParams,
  windowParams,
} from "./querylog_params.ts";

/** Search pages read to fill one page when `node` is filtered on. */
const MAX_NODE_ROUNDS = 5;
/**
 * Event ids one search call may read before it returns a short page with
 * `continue` (search.ts `scanBudget`, 5,000,000 in the CLI): node:sqlite
 * is synchronous and the API shares the main thread with the query-log
 * writer, so a search for something rare must not hold it for long. At
 * 1,000,000 the pages of the rarest name in a 30 M-event log took 191 ms
 * (282 ms at worst; bench/api/querylog_bench.ts); a page should stay
 * under 200 ms.
 */
export const API_SCAN_BUDGET = 500_000;

interface Page {
  events: LoggedEvent[];
  /** Where the next page starts; null at the end. */
  next: string | null;
}

/**
 * One page of the search, newest first. A page may be short, even empty,
 * with a `next` (a search for something rare stops after a bounded amount
 * of work): only `next` null ends it. `node` is tested on each event after
 * the search (the log holds one node's events; rollups do not know nodes).
 */
export function searchPage(
  db: DatabaseSync,
  opts: SearchOptions,
  node: string | undefined,
  limit: number,
): Page {
  const search = (before: string | undefined) => {
    try {
      return searchEvents(db, {
        scanBudget: API_SCAN_BUDGET,
        ...opts,
        limit,
        ...(before !== undefined && { before }),
      });
    } catch (err) {
      // A known status the log has no label for yet: nothing matches.
      if (err instanceof FilterError) return { events: [], nextCursor: null };
      throw err;
    }
  };
  if (node === undefined) {
    const page = search(opts.before);
    return { events: page.events, next: page.nextCursor };
  }
  const events: LoggedEvent[] = [];
  let before = opts.before;
  for (let round = 0; round < MAX_NODE_ROUNDS; round++) {
    const page = search(before);
    for (const [i, e] of page.events.entries()) {
      if (e.node !== node) continue;
      events.push(e);
      if (events.length === limit) {
        const last = i === page.events.length - 1;
        // The search's cursor format (search.ts): time_id of the last event.
        return {
          events,
          next: last && page.nextCursor === null ? null : `${e.time}_${e.id}`,
        };
      }
    }
    if (page.nextCursor === null) return { events, next: null };
    before = page.nextCursor;
  }
  return { events, next: before ?? null };
}

/** What search and export read from a request: filters, window, cursor. */
export function searchRequest(
  c: Context,
  now: () => number,
  extra: readonly string[],
): { params: QueryParams; filters: Filters; opts: SearchOptions } {
  const params = new QueryParams(
    c,
    [...FILTER_PARAMS, "since", "until", "limit", "continue", ...extra],
    LIST_PARAMS,
  );
  const filters = filterParams(params);
  const window = windowParams(params, now());
  const before = params.get("continue");
  if (before !== undefined) {
    try {
      parseCursor(before);
    } catch {
      throw badParameter(
        "continue",
        `"${before}" is not a continue token of this API`,
        "pass the `continue` of the previous page as it came",
      );
    }
  }
  const { node: _node, ...search } = filters;
  return {
    params,
    filters,
    opts: {
      ...search,
      ...window,
      ...(before !== undefined && { before }),
    },
  };
}
