/**
 * Policy schedules: when a Policy applies. A schedule is a
 * window "start <= t < end" in wall-clock time of its zone (`tz`, else the
 * process's zone), on the listed weekdays (all when absent). An end before
 * the start wraps past midnight, and the weekday is the day the window
 * starts: fri 22:00-06:00 is active on Saturday at 03:00. start == end
 * means the whole day. Granularity is one minute, which is why a memoised
 * decision never outlives the next minute boundary.
 */
import { type Schedule, WEEKDAYS } from "../../api/v1alpha1/policy.ts";

const MINUTE_MS = 60_000;

/** The first instant after `atMs` at which a schedule can change state. */
export function nextMinuteBoundary(atMs: number): number {
  return Math.floor(atMs / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
}

/** Local wall clock in one zone: weekday 0 = mon … 6 = sun, minutes since midnight. */
interface WallClock {
  weekday: number;
  minutes: number;
}

const DAY_INDEX = new Map<string, number>(
  WEEKDAYS.map((day, index) => [day, index]),
);

// Formatters are expensive to build; one per zone, for the process's life.
const formatters = new Map<string, Intl.DateTimeFormat>();
let localZone: string | undefined;

function formatterFor(tz: string): Intl.DateTimeFormat {
  let formatter = formatters.get(tz);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      weekday: "short",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    formatters.set(tz, formatter);
  }
  return formatter;
}

/** The wall clock at `atMs` in `tz`; undefined for an unknown zone. */
function wallClock(atMs: number, tz: string): WallClock | undefined {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = formatterFor(tz).formatToParts(atMs);
  } catch {
    return undefined;
  }
  let weekday = -1;
  let hour = 0;
  let minute = 0;
  for (const part of parts) {
    if (part.type === "weekday") {
      weekday = DAY_INDEX.get(part.value.toLowerCase().slice(0, 3)) ?? -1;
    } else if (part.type === "hour") hour = Number(part.value) % 24;
    else if (part.type === "minute") minute = Number(part.value);
  }
  return weekday < 0 ? undefined : { weekday, minutes: hour * 60 + minute };
}

function clockMinutes(hhmm: string): number {
  const [hours, minutes] = hhmm.split(":");
  return Number(hours) * 60 + Number(minutes);
}

/**
 * True when `schedule` is active at `atMs`. A zone the runtime does not know
 * (the schema rejects those, so only hand-built data has one) or a
 * malformed time makes the schedule inactive rather than throwing.
 */
export function scheduleActive(schedule: Schedule, atMs: number): boolean {
  localZone ??= Intl.DateTimeFormat().resolvedOptions().timeZone;
  const clock = wallClock(atMs, schedule.tz ?? localZone);
  const start = clockMinutes(schedule.start);
  const end = clockMinutes(schedule.end);
  if (clock === undefined || Number.isNaN(start) || Number.isNaN(end)) {
    return false;
  }
  const onDay = (weekday: number) =>
    schedule.weekdays === undefined ||
    schedule.weekdays.includes(WEEKDAYS[weekday]!);
  if (start === end) return onDay(clock.weekday);
  if (start < end) {
    return start <= clock.minutes && clock.minutes < end &&
      onDay(clock.weekday);
  }
  // Wraps past midnight: the evening part belongs to today's window, the
  // early-morning part to the window that started yesterday.
  if (clock.minutes >= start) return onDay(clock.weekday);
  return clock.minutes < end && onDay((clock.weekday + 6) % 7);
}
