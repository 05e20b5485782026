import assert from "node:assert/strict";
import type { Schedule } from "../../api/v1alpha1/policy.ts";
import { nextMinuteBoundary, scheduleActive } from "./schedule.ts";

const at = (iso: string) => Date.parse(iso);

// 2025-01-03 is a Friday, 2025-01-06 a Monday; New York is UTC-5 in
// January and UTC-4 in July.
Deno.test("scheduleActive", async (t) => {
  const nightFri: Schedule = {
    weekdays: ["fri"],
    start: "22:00",
    end: "06:00",
    tz: "UTC",
  };
  const office = (tz: string): Schedule => ({
    weekdays: ["mon", "tue", "wed", "thu", "fri"],
    start: "09:00",
    end: "17:00",
    tz,
  });
  const cases: [
    name: string,
    schedule: Schedule,
    iso: string,
    want: boolean,
  ][] = [
    [
      "wrap: Friday night, start inclusive",
      nightFri,
      "2025-01-03T22:00:00Z",
      true,
    ],
    [
      "wrap: a minute before the start",
      nightFri,
      "2025-01-03T21:59:59Z",
      false,
    ],
    [
      "wrap: Saturday 03:00 belongs to Friday's window",
      nightFri,
      "2025-01-04T03:00:00Z",
      true,
    ],
    ["wrap: end exclusive", nightFri, "2025-01-04T06:00:00Z", false],
    [
      "wrap: Friday 03:00 belongs to Thursday's window",
      nightFri,
      "2025-01-03T03:00:00Z",
      false,
    ],
    [
      "wrap: Saturday night is not listed",
      nightFri,
      "2025-01-04T23:00:00Z",
      false,
    ],
    [
      "New York 08:30 on Monday",
      office("America/New_York"),
      "2025-01-06T13:30:00Z",
      false,
    ],
    [
      "the same instant in UTC is 13:30",
      office("UTC"),
      "2025-01-06T13:30:00Z",
      true,
    ],
    [
      "New York 09:30",
      office("America/New_York"),
      "2025-01-06T14:30:00Z",
      true,
    ],
    [
      "New York 17:30",
      office("America/New_York"),
      "2025-01-06T22:30:00Z",
      false,
    ],
    [
      "New York in summer time, 09:30",
      office("America/New_York"),
      "2025-07-07T13:30:00Z",
      true,
    ],
    [
      "the weekday is the zone's: Friday evening in New York",
      {
        weekdays: ["fri"],
        start: "20:00",
        end: "23:00",
        tz: "America/New_York",
      },
      "2025-01-11T02:00:00Z",
      true,
    ],
    [
      "the same instant is Saturday in UTC",
      { weekdays: ["fri"], start: "20:00", end: "23:00", tz: "UTC" },
      "2025-01-11T02:00:00Z",
      false,
    ],
    [
      "start == end: all day on a listed day",
      { weekdays: ["sat"], start: "07:00", end: "07:00", tz: "UTC" },
      "2025-01-04T00:00:00Z",
      true,
    ],
    [
      "start == end: not on other days",
      { weekdays: ["sat"], start: "07:00", end: "07:00", tz: "UTC" },
      "2025-01-03T12:00:00Z",
      false,
    ],
    [
      "no weekdays: every day",
      { start: "00:00", end: "01:00", tz: "UTC" },
      "2025-01-05T00:30:00Z",
      true,
    ],
    [
      "unknown zone: inactive",
      { start: "00:00", end: "00:00", tz: "Mars/Olympus" },
      "2025-01-05T00:30:00Z",
      false,
    ],
    [
      "malformed time: inactive",
      { start: "8", end: "09:00", tz: "UTC" },
      "2025-01-05T08:30:00Z",
      false,
    ],
  ];
  for (const [name, schedule, iso, want] of cases) {
    await t.step(name, () => {
      assert.equal(scheduleActive(schedule, at(iso)), want);
    });
  }
});

Deno.test("scheduleActive without tz uses the process's zone", () => {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const base = { start: "09:00", end: "17:00" };
  for (let hour = 0; hour < 24; hour++) {
    const instant = Date.UTC(2025, 0, 6, hour, 30);
    assert.equal(
      scheduleActive(base, instant),
      scheduleActive({ ...base, tz: zone }, instant),
      `hour ${hour}`,
    );
  }
});

Deno.test("nextMinuteBoundary", () => {
  assert.equal(
    nextMinuteBoundary(at("2025-01-06T10:15:42.5Z")),
    at("2025-01-06T10:16:00Z"),
  );
  assert.equal(
    nextMinuteBoundary(at("2025-01-06T10:16:00Z")),
    at("2025-01-06T10:17:00Z"),
  );
  assert.equal(nextMinuteBoundary(0), 60_000);
});
