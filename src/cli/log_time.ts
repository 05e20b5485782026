/**
 * Times as `kudurru querylog` and `kudurru stats` read and print them: in
 * the machine's time zone, the one a home-lab user reads clocks in. A time
 * printed carries its UTC offset ("2026-10-25 02:30+02:00") unless the zone
 * is UTC all year, so the hour repeated when summer time ends is printed as
 * two different times, and a copied line says which clock it is on.
 */
import { parseDuration } from "../config/duration.ts";
import { UsageError } from "./command.ts";

/** The latest time a flag may name: the end of year 9999 (ms). */
const MAX_TIME_MS = Date.UTC(10000, 0, 1) - 1;
/** 0000-01-01T00:00Z (Date.UTC(0, …) would be 1900). */
const MIN_TIME_MS = new Date(0).setUTCFullYear(0, 0, 1);

/**
 * A --since/--until value in ms: a duration back from now ("90m", "24h",
 * "7d") or a date ("2030-01-01", "2030-01-01T12:00:00Z"; RFC 3339 also
 * allows a lowercase "t" and "z", and a space between date and time). A
 * date alone is midnight in the machine's time zone, the one times are
 * shown in (as a date and time without a zone is); a day that does not
 * exist (2030-02-30) is refused, not moved on into the next month, and so
 * is a time before year 0 or after 9999.
 */
export function parseTimeFlag(
  command: string,
  flag: string,
  text: string,
  now: number,
): number {
  const back = parseDuration(text);
  if (back !== undefined) return inRange(command, flag, text, now - back);
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
      throw new UsageError(
        `kudurru ${command}: --${flag} "${text}" names a day that does not exist`,
      );
    }
    if (iso.length === 10) {
      // new Date(year, …) reads years 0-99 as 1900-1999: set the year apart.
      const local = new Date(2000, month - 1, day);
      local.setFullYear(year, month - 1, day);
      const midnight = local.getTime();
      return inRange(command, flag, text, midnight);
    }
    const ms = Date.parse(iso);
    if (!Number.isNaN(ms)) return inRange(command, flag, text, ms);
  }
  throw new UsageError(
    `kudurru ${command}: --${flag} takes a duration such as "1h" or "7d", or a date such as "2030-01-01T12:00:00Z", not "${text}"`,
  );
}

/** `ms` when it is a time between year 0 and 9999, else a UsageError. */
function inRange(
  command: string,
  flag: string,
  text: string,
  ms: number,
): number {
  if (Number.isFinite(ms) && ms >= MIN_TIME_MS && ms <= MAX_TIME_MS) {
    return ms;
  }
  throw new UsageError(
    `kudurru ${command}: --${flag} "${text}" is out of range; times run from year 0 to 9999`,
  );
}

/** True when the calendar has this day (month 1-12). */
function isDay(year: number, month: number, day: number): boolean {
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth;
}

/**
 * --since and --until in ms (each only when given); a window that ends
 * before it starts is a usage error, not an empty result.
 */
export function timeWindow(
  command: string,
  since: string | undefined,
  until: string | undefined,
  now: number,
): { since?: number; until?: number } {
  const window: { since?: number; until?: number } = {};
  if (since !== undefined) {
    window.since = parseTimeFlag(command, "since", since, now);
  }
  if (until !== undefined) {
    window.until = parseTimeFlag(command, "until", until, now);
  }
  if (
    window.since !== undefined && window.until !== undefined &&
    window.since >= window.until
  ) {
    throw new UsageError(
      `kudurru ${command}: --since (${since}) is not before --until (${until})`,
    );
  }
  return window;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** "2030-01-01 00:00:00.123", with "+01:00" unless the zone is UTC. */
export function formatLogTime(ms: number): string {
  const d = new Date(ms);
  return formatLogMinute(ms).replace(
    /^(.{16})/,
    `$1:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`,
  );
}

/** "2030-01-01 00:00", with "+01:00" unless the zone is UTC. */
export function formatLogMinute(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${
    pad(d.getDate())
  } ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}${offsetText(d)}`;
}

/** "+05:30", "-04:00"; "" in a zone that is UTC all year. */
function offsetText(d: Date): string {
  const year = d.getFullYear();
  const winter = new Date(year, 0, 1).getTimezoneOffset();
  const summer = new Date(year, 6, 1).getTimezoneOffset();
  const minutes = -d.getTimezoneOffset();
  if (winter === 0 && summer === 0 && minutes === 0) return "";
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
