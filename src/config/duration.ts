/**
 * Go-style durations ("1800ms", "30s", "10m", "1h30m", "72h"), as
 * Kubernetes tools write them, in the configuration and in the kinds.
 */
import { z } from "zod";

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y;

/** Milliseconds in a duration, or undefined when the text is not one. */
export function parseDuration(text: string): number | undefined {
  if (text === "0") return 0;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const start = PART.lastIndex;
    const m = PART.exec(text);
    if (!m || m.index !== start) return undefined;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  return text.length > 0 ? total : undefined;
}

/** The shortest Go-style text for a number of milliseconds ("1h30m", "1800ms"). */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  let rest = ms;
  let out = "";
  for (const unit of ["h", "m", "s"] as const) {
    const size = UNIT_MS[unit]!;
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  if (rest > 0) out += `${rest}ms`;
  return out;
}

/** Longest duration any setting takes: ten years. Beyond it is a typo. */
export const MAX_DURATION_MS = 10 * 365 * 86_400_000;

/**
 * A zod string that must parse as a duration within [min, max] (ms);
 * stays text in the object. For the kinds' specs, which are stored and
 * exported as written; settings use durationMsSchema.
 */
export function durationSchema(opts: { min?: number; max?: number } = {}) {
  const min = opts.min ?? 0;
  const max = opts.max ?? MAX_DURATION_MS;
  const range = opts.min && opts.max !== undefined
    ? `between ${formatDuration(min)} and ${formatDuration(max)}`
    : opts.min
    ? `of at least ${formatDuration(min)}`
    : `of at most ${formatDuration(max)}`;
  return z.string().refine(
    (v) => {
      const ms = parseDuration(v);
      return ms !== undefined && ms >= min && ms <= max;
    },
    {
      message: opts.min || opts.max !== undefined
        ? `must be a duration ${range} such as "30s", "10m" or "24h"`
        : 'must be a duration such as "30s", "10m" or "24h"',
    },
  );
}

/**
 * A duration as durationSchema checks it, parsed to milliseconds: the
 * settings' form, written "30s" in kudurru.yaml and a number in Config.
 */
export function durationMsSchema(opts: { min?: number; max?: number } = {}) {
  return durationSchema(opts).transform((text) => parseDuration(text)!);
}
