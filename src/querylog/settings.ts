/**
 * The `querylog` settings section as the writer uses it, the time units of
 * the rollups, and how long each kind of row is kept.
 */
import type { Config } from "../config/schema.ts";

/** `querylog:` of kudurru.yaml after defaults. */
export type QueryLogSettings = Config["querylog"];

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/**
 * Per-minute rollups (status, client, upstream) and per-hour domain
 * rollups are kept this long, past raw events, so the dashboard can show a
 * year (and a bit) of history in a few hundred MB.
 */
export const ROLLUP_RETENTION_MS = 400 * DAY_MS;

/**
 * Per-minute domain rollups cost about one row per distinct name per
 * minute, as much as the events themselves at home-network rates; they are
 * kept two days (minute-precise "top domains" for recent windows, and a fast
 * way to find the minutes a rare name was asked in), then hours take over.
 */
export const DOMAIN_MINUTES_RETENTION_MS = 48 * HOUR_MS;

/**
 * Event times further ahead of the writer's clock than this are stored as
 * the writer's clock, and retention does not trust minutes further ahead
 * of its own: one event stamped in the future (a clock stepped back, a bad
 * event) must not pin retention or stretch the stats windows.
 */
export const MAX_FUTURE_MS = MINUTE_MS;

/** The epoch minute of a time in ms. */
export const minuteOf = (ms: number) => Math.floor(ms / MINUTE_MS);
/** The epoch hour of a time in ms. */
export const hourOf = (ms: number) => Math.floor(ms / HOUR_MS);

/** The retention settings in numbers. */
export interface RetentionLimits {
  /** Raw events older than this (ms) are deleted. */
  rawMs: number;
  /** Above this file size, the oldest raw events go first. */
  maxDbBytes: number;
}

/**
 * The retention limits of `settings` (the schema has parsed `raw` to ms
 * and `maxDBBytes` to bytes).
 */
export function retentionLimits(settings: QueryLogSettings): RetentionLimits {
  return {
    rawMs: settings.retention.raw,
    maxDbBytes: settings.retention.maxDBBytes,
  };
}
