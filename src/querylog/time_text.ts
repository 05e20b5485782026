/**
 * Times as a person writes them to pick a window of the query log: a
 * duration back from now or a date. One reading for every reader of the
 * log: `kudurru querylog`/`kudurru stats` --since and --until
 * (src/cli/log_time.ts parseTimeFlag) and the HTTP API's `since` and
 * `until` (src/apiserver/routes/querylog_params.ts timeParam). It lives
 * here, below both, because the apiserver may not import src/cli (cli
 * imports server, which imports apiserver).
 */
import { parseDuration } from "../config/duration.ts";

/** The latest time a text may name: the end of year 9999 (ms). */
const MAX_TIME_MS = Date.UTC(10000, 0, 1) - 1;
/** 0000-01-01T00:00Z (Date.UTC(0, …) would be 1900). */
const MIN_TIME_MS = new Date(0).setUTCFullYear(0, 0, 1);

/**
 * A time in ms: a duration back from now ("90m", "24h", "7d") or a date
 * ("2030-01-01", "2030-01-01T12:00:00Z"; RFC 3339 also allows a lowercase
 * "t" and "z", and a space between date and time). A date alone is
 * midnight in the machine's time zone, the one times are shown in (as a
 * date and time without a zone is); a day that does not exist
 * (2030-02-30) is refused, not moved on into the next month, and so is a
 * time before year 0 or after 9999. Refused, a message saying what is
 * wrong, to follow the name of the flag or parameter ("--since …").
 */
export function parseTimeText(
  text: string,
  now: number,
): { ms: number } | { error: string } {
  const back = parseDuration(text);
  if (back !== undefined) return inRange(text, now - back);
  const iso = text.replace(/^(\d{4}-\d{2}-\d{2})[Tt ]/, "$1T")
    .replace(/z$/, "Z");
  const date = /^(\d{4})-(\d{2})-(\d{2})(?=$|T)/.exec(iso);
  if (date) {
    const [year, month, day] = date.slice(1).map(Number) as [
      number,
      number,
      number,
    ];
    if (!isDay(year, month, day)) {
      return { error: `"${text}" names a day that does not exist` };
    }
    if (iso.length === 10) {
      // new Date(year, …) reads years 0-99 as 1900-1999: set the year apart.
      const local = new Date(2000, month - 1, day);
      local.setFullYear(year, month - 1, day);
      return inRange(text, local.getTime());
    }
    const ms = Date.parse(iso);
    if (!Number.isNaN(ms)) return inRange(text, ms);
  }
  return {
    error:
      `takes a duration such as "1h" or "7d", or a date such as "2030-01-01T12:00:00Z", not "${text}"`,
  };
}

/** `ms` when it is a time between year 0 and 9999, else why not. */
function inRange(text: string, ms: number): { ms: number } | { error: string } {
  return Number.isFinite(ms) && ms >= MIN_TIME_MS && ms <= MAX_TIME_MS
    ? { ms }
    : { error: `"${text}" is out of range; times run from year 0 to 9999` };
}

/** True when the calendar has this day (month 1-12). */
function isDay(year: number, month: number, day: number): boolean {
  // Day 0 of the next month is this month's last; setUTCFullYear, since
  // Date.UTC reads years 0-99 as 1900-1999 (1900 has no 29 February).
  const lastDay = new Date(0);
  lastDay.setUTCFullYear(year, month, 0);
  const daysInMonth = lastDay.getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth;
}
