import assert from "node:assert/strict";
import { inZone } from "./test_support.ts";
import { bucketStarts } from "./time_buckets.ts";

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Local wall-clock "HH:MM" of each start. */
const wall = (starts: number[]) =>
  starts.map((t) => {
    const d = new Date(t);
    return `${d.getHours()}:${String(d.getMinutes()).padStart(2, "0")}`;
  });

Deno.test("bucketStarts in UTC are multiples of the width since the epoch", () => {
  const from = Date.UTC(2030, 0, 1, 5, 17);
  assert.deepEqual(bucketStarts(from, from + 3 * HOUR, HOUR, "utc", 100), [
    Date.UTC(2030, 0, 1, 5),
    Date.UTC(2030, 0, 1, 6),
    Date.UTC(2030, 0, 1, 7),
    Date.UTC(2030, 0, 1, 8),
  ]);
});

Deno.test("bucketStarts in local time follow the wall clock", async (t) => {
  await t.step(
    "hours in Asia/Kolkata start on the local hour",
    () =>
      inZone("Asia/Kolkata", () => {
        const from = Date.UTC(2030, 0, 1, 12, 10); // 17:40 local
        const starts = bucketStarts(from, from + 3 * HOUR, HOUR, "local", 100);
        assert.deepEqual(wall(starts), ["17:00", "18:00", "19:00", "20:00"]);
      }),
  );
  await t.step(
    "days in Asia/Kolkata start at local midnight",
    () =>
      inZone("Asia/Kolkata", () => {
        const from = Date.UTC(2030, 0, 1, 12);
        const starts = bucketStarts(from, from + 2 * DAY, DAY, "local", 100);
        assert.deepEqual(starts, [
          Date.UTC(2029, 11, 31, 18, 30),
          Date.UTC(2030, 0, 1, 18, 30),
          Date.UTC(2030, 0, 2, 18, 30),
        ]);
      }),
  );
  await t.step(
    "hours stay an hour when Berlin leaves summer time",
    () =>
      inZone("Europe/Berlin", () => {
        const from = Date.UTC(2026, 9, 24, 23); // 01:00+02:00
        const starts = bucketStarts(from, from + 4 * HOUR, HOUR, "local", 100);
        assert.deepEqual(wall(starts), ["1:00", "2:00", "2:00", "3:00"]);
        assert.deepEqual(starts.map((s) => s - from), [
          0,
          HOUR,
          2 * HOUR,
          3 * HOUR,
        ]);
      }),
  );
  await t.step(
    "six-hour buckets keep to the wall clock across the change",
    () =>
      inZone("Europe/Berlin", () => {
        const from = Date.UTC(2026, 9, 24, 22); // 00:00+02:00
        const starts = bucketStarts(from, from + DAY, 6 * HOUR, "local", 100);
        assert.deepEqual(wall(starts), ["0:00", "6:00", "12:00", "18:00"]);
        assert.equal(starts[1]! - starts[0]!, 7 * HOUR);
      }),
  );
  await t.step(
    "a day is a local day, 25 hours long at the change",
    () =>
      inZone("Europe/Berlin", () => {
        const from = Date.UTC(2026, 9, 24, 12);
        const starts = bucketStarts(from, from + 2 * DAY, DAY, "local", 100);
        assert.deepEqual(wall(starts), ["0:00", "0:00", "0:00"]);
        assert.equal(starts[2]! - starts[1]!, 25 * HOUR);
      }),
  );
  await t.step("at most max + 1 starts", () => {
    assert.equal(bucketStarts(0, 1000 * MIN, MIN, "local", 10).length, 11);
  });
});
