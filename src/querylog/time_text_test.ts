import assert from "node:assert/strict";
import { inZone } from "./test_support.ts";
import { parseTimeText } from "./time_text.ts";

const NOW = Date.UTC(2030, 0, 1);

Deno.test("parseTimeText reads durations back from now and dates", async (t) => {
  const cases: [string, number][] = [
    ["90m", NOW - 90 * 60_000],
    ["1h30m", NOW - 90 * 60_000],
    ["7d", NOW - 7 * 86_400_000],
    ["0", NOW],
    ["2030-01-01T12:00:00Z", Date.UTC(2030, 0, 1, 12)],
    ["2030-01-01t12:00:00z", Date.UTC(2030, 0, 1, 12)],
    ["2030-01-01T12:00:00+05:30", Date.UTC(2030, 0, 1, 6, 30)],
  ];
  for (const [text, ms] of cases) {
    await t.step(
      text,
      () => assert.deepEqual(parseTimeText(text, NOW), { ms }),
    );
  }
  await t.step(
    "a date, or a date and time, without a zone is local",
    () =>
      inZone("Asia/Kolkata", () => {
        const midnight = Date.UTC(2029, 11, 31, 18, 30);
        assert.deepEqual(parseTimeText("2030-01-01", NOW), { ms: midnight });
        assert.deepEqual(parseTimeText("2030-01-01 12:00", NOW), {
          ms: midnight + 12 * 3_600_000,
        });
        // Not 1999 (new Date(99, …)).
        const year99 = new Date(2000, 2, 1);
        year99.setFullYear(99, 2, 1);
        assert.deepEqual(parseTimeText("0099-03-01", NOW), {
          ms: year99.getTime(),
        });
        // Year 0 and year 4 are leap years (1900 and 1904 would not both be).
        for (const leap of ["0000-02-29T00:00:00Z", "0004-02-29T00:00:00Z"]) {
          const parsed = parseTimeText(leap, NOW);
          assert.ok("ms" in parsed, leap);
          assert.equal(
            new Date(parsed.ms).toISOString(),
            `${leap.slice(0, 19)}.000Z`,
          );
        }
        assert.equal(
          "error" in parseTimeText("0100-02-29", NOW),
          true,
          "100 is not a leap year",
        );
      }),
  );
});

Deno.test("parseTimeText says what is wrong, without naming a flag", async (t) => {
  const takes = (text: string) =>
    `takes a duration such as "1h" or "7d", or a date such as "2030-01-01T12:00:00Z", not "${text}"`;
  const cases: [string, string][] = [
    ["2030-02-30", `"2030-02-30" names a day that does not exist`],
    ["2030-13-01", `"2030-13-01" names a day that does not exist`],
    [
      "99999999d",
      `"99999999d" is out of range; times run from year 0 to 9999`,
    ],
    ["10000-01-01", takes("10000-01-01")],
    ["yesterday", takes("yesterday")],
    ["2030-01-01Tnoon", takes("2030-01-01Tnoon")],
    ["", takes("")],
  ];
  for (const [text, error] of cases) {
    await t.step(
      text || "(empty)",
      () => assert.deepEqual(parseTimeText(text, NOW), { error }),
    );
  }
});
