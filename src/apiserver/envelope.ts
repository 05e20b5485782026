/**
 * The body every API answer has: `{data, took_ms}` on success,
 * `{error: {key, message, hint?, …}, took_ms}` on failure. `took_ms` is the
 * server's own time for the request, so a slow client or network is told
 * apart from a slow server.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiError } from "./errors.ts";

/** When the request started (performance.now()), set by the first middleware. */
export const STARTED = "kudurruStarted";

/** Milliseconds since the request started, rounded to 0.01. */
export function tookMs(c: Context): number {
  const started = c.get(STARTED as never) as number | undefined;
  if (started === undefined) return 0;
  return Math.round((performance.now() - started) * 100) / 100;
}

/** A success answer. */
export function ok(
  c: Context,
  data: unknown,
  status: ContentfulStatusCode = 200,
): Response {
  return c.json({ data, took_ms: tookMs(c) }, status);
}

/** An error answer, with the error's own headers. */
export function failed(c: Context, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) {
    c.header(name, value);
  }
  return c.json({ error: error.body(), took_ms: tookMs(c) }, error.status);
}
