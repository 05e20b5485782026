/**
 * The live tail of the query log, as Server-Sent Events: it follows the
 * events as the writer queues them (src/querylog/live_feed.ts), not the
 * file, with the filters of a search. A slow client loses its oldest
 * events (`event: dropped` says how many), a quiet stream gets a `: ping`
 * comment now and then, and a tail ends after a while with `event: end`
 * so that EventSource connects again and is authenticated anew.
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import {
  type LiveFeed,
  liveFilter,
  TooManySubscribersError,
} from "../../querylog/live_feed.ts";
import { FilterError } from "../../querylog/queries.ts";
import { ApiError } from "../errors.ts";
import { queryLogEntry } from "./querylog_entry.ts";
import {
  badParameter,
  FILTER_PARAMS,
  filterParams,
  LIST_PARAMS,
  QueryParams,
} from "./querylog_params.ts";

/** How a tail runs (QueryLogRoutesDeps' tail settings, defaults applied). */
export interface TailOptions {
  /** Time between `: ping` comments. */
  pingMs: number;
  /** A tail ends after this long with `event: end`. */
  maxMs: number;
  /** Events a tail buffers for a slow client. */
  bufferSize: number;
}

/**
 * The tail of `feed` for the request's filters; without a feed (the log is
 * not written on this node) a 404, with too many tails open a 429.
 */
export function tailResponse(
  c: Context,
  feed: LiveFeed | undefined,
  opts: TailOptions,
): Response {
  const params = new QueryParams(c, FILTER_PARAMS, LIST_PARAMS);
  const filters = filterParams(params);
  if (feed === undefined) {
    throw new ApiError("not_found", "The query log is not written here", {
      hint: "querylog.enabled is false on this node",
    });
  }
  let filter;
  try {
    filter = liveFilter(filters);
  } catch (err) {
    if (err instanceof FilterError) {
      throw badParameter("client", err.message);
    }
    throw err;
  }
  let subscription;
  try {
    subscription = feed.subscribe({
      ...(filter !== undefined && { filter }),
      bufferSize: opts.bufferSize,
    });
  } catch (err) {
    if (err instanceof TooManySubscribersError) {
      throw new ApiError("rate_limited", err.message, {
        hint: "close another tail, or try again later",
        headers: { "Retry-After": "10" },
      });
    }
    throw err;
  }
  const sub = subscription;
  const { pingMs, maxMs } = opts;
  const stop = new AbortController();
  return streamSSE(c, async (stream) => {
    // The client went away: Deno.serve cancels the body, and hono
    // aborts the stream (request.signal is not it: Deno's legacy
    // behaviour aborts that when a response was delivered).
    stream.onAbort(() => stop.abort());
    const endAt = performance.now() + maxMs;
    try {
      await stream.write("retry: 3000\n\n");
      while (!stop.signal.aborted) {
        const left = endAt - performance.now();
        if (left <= 0) {
          await stream.writeSSE({
            event: "end",
            data: JSON.stringify({ reason: "connect again to go on" }),
          });
          break;
        }
        const batch = await sub.next(Math.min(pingMs, left), stop.signal);
        if (stop.signal.aborted) break;
        if (batch.dropped > 0) {
          await stream.writeSSE({
            event: "dropped",
            data: JSON.stringify({ dropped: batch.dropped }),
          });
        }
        for (const live of batch.events) {
          await stream.writeSSE({
            event: "query",
            id: String(live.seq),
            data: JSON.stringify(queryLogEntry(live.event)),
          });
        }
        if (batch.events.length === 0 && batch.dropped === 0) {
          if (performance.now() < endAt) await stream.write(": ping\n\n");
        }
      }
    } finally {
      sub.close();
    }
  });
}
