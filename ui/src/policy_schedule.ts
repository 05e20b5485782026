/**
 * A Policy's schedule (src/api/v1alpha1/policy.ts) as the editor holds it
 * and back, and in words. A schedule is a window "start <= t < end" in its
 * time zone's wall clock on the listed weekdays (every day when none are
 * listed); an end before the start runs past midnight, start == end is
 * the whole day.
 */
import type { Issue, Schedule } from "./lists_objects.ts";
import { fill, strings } from "./strings.ts";

export const WEEKDAYS = [
  "mon",
  "tue",
  "wed",
  "thu",
  "fri",
  "sat",
  "sun",
] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** The editor's state: every field a string or a flag, as inputs hold them. */
export interface ScheduleForm {
  /** Off: the policy applies at all times (no schedule). */
  on: boolean;
  days: Weekday[];
  start: string;
  end: string;
  tz: string;
}

const CLOCK_RE = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/** The form for `schedule` (a new one when there is none). */
export function scheduleForm(schedule: Schedule | undefined): ScheduleForm {
  if (schedule === undefined) {
    return { on: false, days: [...WEEKDAYS], start: "", end: "", tz: "" };
  }
  const days = schedule.weekdays === undefined || schedule.weekdays.length === 0
    ? [...WEEKDAYS]
    : WEEKDAYS.filter((d) => schedule.weekdays!.includes(d));
  return {
    on: true,
    days,
    start: schedule.start,
    end: schedule.end,
    tz: schedule.tz ?? "",
  };
}

/** "08:00:00" (a time input with seconds) → "08:00"; trims. */
function clock(text: string): string {
  const t = text.trim();
  return /^\d\d:\d\d:\d\d$/.test(t) ? t.slice(0, 5) : t;
}

/**
 * The spec's schedule for the form: null when off (a merge patch removes
 * it), or the issues that stop it, under the spec's paths.
 */
export function scheduleSpec(
  form: ScheduleForm,
): { schedule: Schedule | null } | { issues: Issue[] } {
  if (!form.on) return { schedule: null };
  const t = strings.groups;
  const issues: Issue[] = [];
  const start = clock(form.start);
  const end = clock(form.end);
  if (form.days.length === 0) {
    issues.push({ path: "spec.schedule.weekdays", message: t.noDays });
  }
  if (!CLOCK_RE.test(start)) {
    issues.push({ path: "spec.schedule.start", message: t.badClock });
  }
  if (!CLOCK_RE.test(end)) {
    issues.push({ path: "spec.schedule.end", message: t.badClock });
  }
  if (issues.length > 0) return { issues };
  const days = WEEKDAYS.filter((d) => form.days.includes(d));
  const tz = form.tz.trim();
  return {
    schedule: {
      // All seven is the same as none listed; the shorter spec reads better.
      ...(days.length < WEEKDAYS.length && { weekdays: days }),
      start,
      end,
      ...(tz !== "" && { tz }),
    },
  };
}

/** Runs of three or more days as ranges: "Mon–Fri", "Sat, Sun". */
export function describeDays(days: readonly string[] | undefined): string {
  const t = strings.groups;
  const picked = WEEKDAYS.filter((d) => days === undefined || days.includes(d));
  if (days === undefined || picked.length === WEEKDAYS.length) {
    return t.everyDay;
  }
  const parts: string[] = [];
  let i = 0;
  while (i < WEEKDAYS.length) {
    if (!picked.includes(WEEKDAYS[i]!)) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < WEEKDAYS.length && picked.includes(WEEKDAYS[j + 1]!)) j++;
    const first = t.days[WEEKDAYS[i]!];
    const last = t.days[WEEKDAYS[j]!];
    if (j - i >= 2) parts.push(`${first}–${last}`);
    else for (let k = i; k <= j; k++) parts.push(t.days[WEEKDAYS[k]!]);
    i = j + 1;
  }
  return parts.join(", ");
}

/** The schedule in words: "Mon–Fri, 20:00–07:00 (Europe/Berlin)". */
export function describeSchedule(schedule: Schedule | undefined): string {
  const t = strings.groups;
  if (schedule === undefined) return t.always;
  const hours = schedule.start === schedule.end
    ? t.allDay
    : `${schedule.start}–${schedule.end}`;
  const text = `${describeDays(schedule.weekdays)}, ${hours}`;
  return schedule.tz ? fill(t.inZone, { text, tz: schedule.tz }) : text;
}
