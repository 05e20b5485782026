/**
 * The schedule part of the policy editor: on or off, the weekdays, from and
 * until (an until before from runs past midnight; the same is all day)
 * and the time zone (the server's when empty).
 */
import {
  type ScheduleForm,
  type Weekday,
  WEEKDAYS,
} from "../../policy_schedule.ts";
import { strings } from "../../strings.ts";

/** The IANA zones the browser knows, offered as suggestions. */
const ZONES: readonly string[] = (() => {
  try {
    return Intl.supportedValuesOf("timeZone");
  } catch {
    return [];
  }
})();

export function ScheduleEditor(
  { id, value, errors, onValue }: {
    /** Tells this editor's inputs apart from another's on the page. */
    id: string;
    value: ScheduleForm;
    errors: Record<string, string>;
    onValue: (next: ScheduleForm) => void;
  },
) {
  const t = strings.groups;
  const set = (change: Partial<ScheduleForm>) =>
    onValue({ ...value, ...change });
  const toggleDay = (day: Weekday, on: boolean) =>
    set({
      days: WEEKDAYS.filter((d) => d === day ? on : value.days.includes(d)),
    });
  const error = (path: string) =>
    errors[path] && <span class="field-error">{errors[path]}</span>;
  return (
    <fieldset class="lists-choice groups-schedule">
      <legend>{t.schedule}</legend>
      <label class="lists-inline">
        <input
          type="checkbox"
          name="scheduleOn"
          checked={value.on}
          onChange={(e) => set({ on: (e.target as HTMLInputElement).checked })}
        />
        {t.scheduleOn}
      </label>
      {error("spec.schedule")}
      {value.on && (
        <>
          <fieldset class="lists-choice groups-days">
            <legend>{t.weekdays}</legend>
            {WEEKDAYS.map((day) => (
              <label key={day} class="lists-inline">
                <input
                  type="checkbox"
                  name={`day-${day}`}
                  checked={value.days.includes(day)}
                  onChange={(e) =>
                    toggleDay(day, (e.target as HTMLInputElement).checked)}
                />
                {t.days[day]}
              </label>
            ))}
            {error("spec.schedule.weekdays")}
          </fieldset>
          <div class="lists-row">
            <label>
              {t.start}
              <input
                type="time"
                name="start"
                value={value.start}
                aria-invalid={errors["spec.schedule.start"] ? true : undefined}
                onInput={(e) =>
                  set({ start: (e.target as HTMLInputElement).value })}
              />
              {error("spec.schedule.start")}
            </label>
            <div class="groups-field">
              <label>
                {t.end}
                <input
                  type="time"
                  name="end"
                  value={value.end}
                  aria-invalid={errors["spec.schedule.end"] ? true : undefined}
                  aria-describedby={`${id}-end-hint`}
                  onInput={(e) =>
                    set({ end: (e.target as HTMLInputElement).value })}
                />
                {error("spec.schedule.end")}
              </label>
              <span class="muted" id={`${id}-end-hint`}>{t.endHint}</span>
            </div>
            <label>
              {t.tz}
              <input
                name="tz"
                value={value.tz}
                placeholder={t.tzHint}
                list={`${id}-zones`}
                aria-invalid={errors["spec.schedule.tz"] ? true : undefined}
                onInput={(e) =>
                  set({ tz: (e.target as HTMLInputElement).value })}
              />
              <datalist id={`${id}-zones`}>
                {ZONES.map((z) => <option key={z} value={z} />)}
              </datalist>
              {error("spec.schedule.tz")}
            </label>
          </div>
        </>
      )}
    </fieldset>
  );
}
