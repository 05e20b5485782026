/**
 * Times as `kudurru querylog` and `kudurru stats` read and print them: in
 * the machine's time zone, the one a home-lab user reads clocks in. A time
 * printed carries its UTC offset ("2026-10-25 02:30+02:00") unless the zone
 * is UTC all year, so the hour repeated when summer time ends is printed as
 * two different times, and a copied line says which clock it is on.
 */
import { parseTimeText } from "../querylog/time_text.ts";
import { UsageError } from "./command.ts";

/**
 * A --since/--until value in ms, read as src/querylog/time_text.ts
 * parseTimeText reads it (the HTTP API's `since` and `until` read the
 * same): a duration back from now ("90m", "24h", "7d") or a date
 * ("2030-01-01", "2030-01-01T12:00:00Z"); a date alone is local midnight,
 * and a day that does not exist or a time before year 0 or after 9999 is
 * a UsageError naming the command and the flag.
 */
export function parseTimeFlag(
  command: string,
  flag: string,
  text: string,
  now: number,
): number {
  const time = parseTimeText(text, now);
  if ("error" in time) {
    throw new UsageError(`kudurru ${command}: --${flag} ${time.error}`);
  }
  return time.ms;
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
