/**
 * Where the buckets of queries over time start. In UTC a bucket starts at a
 * multiple of its width since the epoch. In the machine's time zone it
 * starts where a clock on the wall shows a multiple of its width (an hour
 * bucket at 14:00 local time, a day bucket at local midnight), which is what
 * a reader of local times expects: in Asia/Kolkata (+05:30) an hour bucket
 * starting on the UTC hour would read 17:30, 18:30, …
 *
 * Across a daylight-saving change an hour bucket is still an hour (the
 * repeated hour gets two buckets, each shown with its offset); a bucket of
 * several hours keeps to the wall clock, so it is an hour shorter or longer;
 * a day is a local day (23 or 25 hours).
 */
import { MINUTE_MS } from "./settings.ts";

const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** Which clock buckets are aligned to. */
export type BucketZone = "utc" | "local";

/** The local offset from UTC at `ms`, in ms (east positive). */
export function localOffsetMs(ms: number): number {
  return -new Date(ms).getTimezoneOffset() * MINUTE_MS;
}

/**
 * Bucket starts from the one holding `from` up to the last before `to`
 * (ms); at most `max + 1` of them, so a caller can tell it asked for too
 * many. `bucketMs` is a whole number of minutes.
 */
export function bucketStarts(
  from: number,
  to: number,
  bucketMs: number,
  zone: BucketZone,
  max: number,
): number[] {
  const starts: number[] = [];
  let t = firstStart(from, bucketMs, zone);
  while (t < to && starts.length <= max) {
    starts.push(t);
    t = nextStart(t, bucketMs, zone);
  }
  return starts;
}

function firstStart(from: number, bucketMs: number, zone: BucketZone): number {
  if (zone === "utc") return Math.floor(from / bucketMs) * bucketMs;
  if (bucketMs % DAY_MS === 0) {
    // Whole days: multiples of the width in local days since 1970-01-01.
    const d = new Date(from);
    const day = Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()) / DAY_MS;
    const first = new Date(
      Math.floor(day / (bucketMs / DAY_MS)) * bucketMs,
    );
    return new Date(
      first.getUTCFullYear(),
      first.getUTCMonth(),
      first.getUTCDate(),
    ).getTime();
  }
  const offset = localOffsetMs(from);
  const start = Math.floor((from + offset) / bucketMs) * bucketMs - offset;
  return start > from ? start - bucketMs : start;
}

function nextStart(t: number, bucketMs: number, zone: BucketZone): number {
  if (zone === "utc") return t + bucketMs;
  if (bucketMs % DAY_MS === 0) {
    const d = new Date(t);
    return new Date(
      d.getFullYear(),
      d.getMonth(),
      d.getDate() + bucketMs / DAY_MS,
    ).getTime();
  }
  const next = t + bucketMs;
  // An hour or less: equal lengths. Longer: back on the wall clock after
  // the offset changed (a 6 h bucket starts at 06:00, not 07:00).
  if (bucketMs <= HOUR_MS) return next;
  return next - (localOffsetMs(next) - localOffsetMs(t));
}

/** Greatest common divisor of two whole numbers. */
export function gcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}
