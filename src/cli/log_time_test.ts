import assert from "node:assert/strict";
import { UsageError } from "./command.ts";
import { formatLogMinute, formatLogTime, parseTimeFlag } from "./log_time.ts";
import { inZone } from "../querylog/test_support.ts";

const at = (text: string) => parseTimeFlag("querylog", "since", text, 0);

Deno.test("parseTimeFlag reads a date alone as local midnight and refuses days that do not exist", async (t) => {
  await inZone("America/New_York", async () => {
    await t.step("a date alone", () => {
      assert.equal(at("2026-11-30"), Date.UTC(2026, 10, 30, 5));
      assert.equal(
        formatLogTime(at("2026-11-30")),
        "2026-11-30 00:00:00.000-05:00",
      );
    });
    await t.step("the same as a local date and time", () => {
      assert.equal(at("2026-11-30"), at("2026-11-30T00:00"));
      assert.equal(at("2026-07-01"), Date.UTC(2026, 6, 1, 4), "summer time");
    });
    await t.step("a zone given is kept", () => {
      assert.equal(at("2026-11-30T00:00:00Z"), Date.UTC(2026, 10, 30));
    });
    for (
      const day of ["2026-11-31", "2026-02-29", "2026-13-01", "2026-00-10"]
    ) {
      await t.step(`${day} is refused`, () => {
        assert.throws(
          () => at(day),
          (err: unknown) =>
            err instanceof UsageError &&
            err.message ===
              `kudurru querylog: --since "${day}" names a day that does not exist`,
        );
        assert.throws(() => at(`${day}T12:00:00Z`), UsageError);
      });
    }
    await t.step("years before 1900 are themselves", () => {
      // Not 1950 (new Date(50, …)), and not refused as out of range.
      assert.equal(
        at("0050-06-01T00:00:00Z"),
        new Date(0).setUTCFullYear(50, 5, 1),
      );
      assert.equal(
        new Date(at("0050-06-01")).getFullYear(),
        50,
        "a date alone",
      );
      assert.equal(at("1899-12-31T00:00:00Z"), Date.UTC(1899, 11, 31));
    });
    await t.step("a leap day exists", () => {
      assert.equal(at("2028-02-29"), Date.UTC(2028, 1, 29, 5));
    });
  });
});

Deno.test("parseTimeFlag accepts the RFC 3339 spellings with t, z and a space", async (t) => {
  const want = Date.UTC(2030, 0, 1, 12);
  for (
    const text of [
      "2030-01-01t12:00:00z",
      "2030-01-01 12:00:00Z",
      "2030-01-01 12:00:00+00:00",
      "2030-01-01T12:00:00z",
    ]
  ) {
    await t.step(text, () => assert.equal(at(text), want));
  }
});

Deno.test("parseTimeFlag refuses times out of range", async (t) => {
  for (const text of ["99999999999999999d", "2000000000h"]) {
    await t.step(text, () => {
      assert.throws(
        () => parseTimeFlag("stats", "since", text, Date.UTC(2030, 0, 1)),
        (err: unknown) =>
          err instanceof UsageError &&
          err.message ===
            `kudurru stats: --since "${text}" is out of range; times run from year 0 to 9999`,
      );
    });
  }
});

Deno.test("formatLogTime shows the offset unless the zone is UTC", async (t) => {
  const end = Date.UTC(2026, 9, 25, 1); // Berlin leaves summer time
  await t.step("UTC", () =>
    inZone("UTC", () => {
      assert.equal(formatLogTime(end), "2026-10-25 01:00:00.000");
    }));
  await t.step("Asia/Kolkata", () =>
    inZone("Asia/Kolkata", () => {
      assert.equal(formatLogMinute(end), "2026-10-25 06:30+05:30");
    }));
  await t.step(
    "the repeated hour in Europe/Berlin",
    () =>
      inZone("Europe/Berlin", () => {
        assert.equal(
          formatLogTime(end - 30 * 60_000),
          "2026-10-25 02:30:00.000+02:00",
        );
        assert.equal(
          formatLogTime(end + 30 * 60_000),
          "2026-10-25 02:30:00.000+01:00",
        );
      }),
  );
  await t.step(
    "London in winter still shows +00:00",
    () =>
      inZone("Europe/London", () => {
        assert.equal(
          formatLogMinute(end + 3_600_000),
          "2026-10-25 02:00+00:00",
        );
      }),
  );
});
