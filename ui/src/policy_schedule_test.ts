import assert from "node:assert/strict";
import {
  describeDays,
  describeSchedule,
  scheduleForm,
  scheduleSpec,
} from "./policy_schedule.ts";

Deno.test("scheduleForm: no schedule is off, every day picked for when it is switched on", () => {
  assert.deepEqual(scheduleForm(undefined), {
    on: false,
    days: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"],
    start: "",
    end: "",
    tz: "",
  });
});

Deno.test("a schedule goes to the form and back unchanged", () => {
  for (
    const schedule of [
      { weekdays: ["mon", "tue", "fri"], start: "20:00", end: "07:00" },
      { start: "08:00", end: "08:00", tz: "Europe/Berlin" },
      { weekdays: ["sat", "sun"], start: "00:00", end: "23:59", tz: "UTC" },
    ]
  ) {
    assert.deepEqual(scheduleSpec(scheduleForm(schedule)), { schedule });
  }
});

Deno.test("scheduleSpec: off removes the schedule (null in a merge patch)", () => {
  const form = scheduleForm({ start: "08:00", end: "17:00" });
  assert.deepEqual(scheduleSpec({ ...form, on: false }), { schedule: null });
});

Deno.test("scheduleSpec: seven days is every day, days in week order, seconds and blanks dropped", () => {
  assert.deepEqual(
    scheduleSpec({
      on: true,
      days: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
      start: "08:00:00",
      end: " 17:30 ",
      tz: "  ",
    }),
    { schedule: { start: "08:00", end: "17:30" } },
  );
  assert.deepEqual(
    scheduleSpec({
      on: true,
      days: ["sun", "mon"],
      start: "22:00",
      end: "06:00",
      tz: " Europe/Berlin ",
    }),
    {
      schedule: {
        weekdays: ["mon", "sun"],
        start: "22:00",
        end: "06:00",
        tz: "Europe/Berlin",
      },
    },
  );
});

Deno.test("scheduleSpec: no day and a time that is not one are issues under the spec's paths", () => {
  assert.deepEqual(
    scheduleSpec({ on: true, days: [], start: "24:00", end: "", tz: "" }),
    {
      issues: [
        {
          path: "spec.schedule.weekdays",
          message: "Choose at least one day.",
        },
        {
          path: "spec.schedule.start",
          message: "A time of day such as 08:00.",
        },
        { path: "spec.schedule.end", message: "A time of day such as 08:00." },
      ],
    },
  );
});

Deno.test("describeDays: runs of three or more as ranges", () => {
  assert.equal(describeDays(undefined), "Every day");
  assert.equal(describeDays(["mon", "tue", "wed", "thu", "fri"]), "Mon–Fri");
  assert.equal(describeDays(["sat", "sun"]), "Sat, Sun");
  assert.equal(describeDays(["mon", "wed", "thu", "fri"]), "Mon, Wed–Fri");
  assert.equal(
    describeDays(["sun", "sat", "fri", "thu", "wed", "tue", "mon"]),
    "Every day",
  );
});

Deno.test("describeSchedule: always, a window past midnight in a zone, all day", () => {
  assert.equal(describeSchedule(undefined), "At all times");
  assert.equal(
    describeSchedule({
      weekdays: ["mon", "tue", "wed", "thu", "fri"],
      start: "20:00",
      end: "07:00",
      tz: "Europe/Berlin",
    }),
    "Mon–Fri, 20:00–07:00 (Europe/Berlin)",
  );
  assert.equal(
    describeSchedule({ weekdays: ["sat"], start: "09:00", end: "09:00" }),
    "Sat, all day",
  );
});
