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
  type LiveBatch,
  type LiveFeed,
  liveFilter,
  TooManySubscribersError,
} from "../../querylog/live_feed.ts";
import { FilterError } from "../../querylog/queries.ts";
import type { BusyBudget } from "../busy_budget.ts";
import { ApiError } from "../errors.ts";
import { queryLogEntry } from "./querylog_entry.ts";
import {
  badParameter,
  FILTER_PARAMS,
  filterParams,
  LIST_PARAMS,
  QueryParams,
} from "./querylog_params.ts";

/** Time a busy tail gathers events before its next write. */
const BATCH_MS = 100;

/** How a tail runs (QueryLogRoutesDeps' tail settings, defaults applied). */
export interface TailOptions {
  /** Time between `: ping` comments. */
  pingMs: number;
  /** A tail ends after this long with `event: end`. */
  maxMs: number;
  /** Events a tail buffers for a slow client. */
  bufferSize: number;
  /** The API's CPU share, which formatting events counts against. */
  budget?: BusyBudget;
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
  const { pingMs, maxMs, budget } = opts;
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
          await stream.write(
            sseEvent(
              "end",
              JSON.stringify({ reason: "connect again to go on" }),
            ),
          );
          break;
        }
        // Past the API's CPU share the tail waits; meanwhile its buffer
        // keeps the newest events and the next batch says what dropped.
        await budget?.wait();
        if (stop.signal.aborted) break;
        const batch = await sub.next(Math.min(pingMs, left), stop.signal);
        if (stop.signal.aborted) break;
        if (batch.events.length === 0 && batch.dropped === 0) {
          if (performance.now() < endAt) await stream.write(": ping\n\n");
          continue;
        }
        // One write per batch: a busy log gives thousands of events a
        // second, and a write each cost more than formatting them.
        const text = budget
          ? await budget.run(() => batchText(batch))
          : batchText(batch);
        await stream.write(text);
        // Events keep coming: gather them for a while rather than send
        // each worker's handful on its own.
        await pause(BATCH_MS, stop.signal);
      }
    } finally {
      sub.close();
    }
  });
}

/** A batch as Server-Sent Events: `dropped` first when events were lost. */
function batchText(batch: LiveBatch): string {
  let text = "";
  if (batch.dropped > 0) {
    text += sseEvent("dropped", JSON.stringify({ dropped: batch.dropped }));
  }
  for (const live of batch.events) {
    text += sseEvent(
      "query",
      JSON.stringify(queryLogEntry(live.event)),
      String(live.seq),
    );
  }
  return text;
}

/** One event; `data` is JSON, so it holds no line break. */
function sseEvent(event: string, data: string, id?: string): string {
  return `event: ${event}\n${
    id === undefined ? "" : `id: ${id}\n`
  }data: ${data}\n\n`;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
