import assert from "node:assert/strict";
import { nextSerial } from "./serial.ts";
import { serialGreater } from "../dns/serial_number.ts";

const NOW = 1_800_000_000;
const TOP = 2 ** 32 - 1;

Deno.test("nextSerial stamps unix now first", () => {
  assert.equal(nextSerial(undefined, NOW), NOW);
});

Deno.test("nextSerial takes max(prev + 1, now)", async (t) => {
  const rows: [string, number | undefined, number, number][] = [
    ["clock ahead", NOW - 100, NOW, NOW],
    ["same second", NOW, NOW, NOW + 1],
    ["serial ahead of clock", NOW + 5, NOW, NOW + 6],
    ["fractional seconds are floored", NOW - 1, NOW + 0.9, NOW],
    [
      "date-style serial (YYYYMMDDnn) keeps counting",
      2024010101,
      NOW,
      2024010102,
    ],
  ];
  for (const [name, prev, now, want] of rows) {
    await t.step(name, () => assert.equal(nextSerial(prev, now), want));
  }
});

Deno.test("nextSerial wraps around 2^32 in serial arithmetic", async (t) => {
  const rows: [string, number, number, number][] = [
    [
      "prev at the top, clock behind: clock is greater after wrap",
      TOP,
      NOW,
      NOW,
    ],
    ["prev at the top, tiny clock", TOP, 0, 0],
    ["prev just below the top", TOP - 1, 5, 5],
    ["clock past 2^32 is reduced", TOP - 4, 2 ** 32 + 10, 10],
    [
      "serial 2^31 ahead of the clock keeps counting",
      NOW + 2 ** 31 - 10,
      NOW,
      NOW + 2 ** 31 - 9,
    ],
    ["serial more than 2^31 behind counts as ahead", 5, 5 + 2 ** 31 + 1, 6],
  ];
  for (const [name, prev, now, want] of rows) {
    await t.step(name, () => {
      const got = nextSerial(prev, now);
      assert.equal(got, want);
      assert.ok(serialGreater(got, prev), `${got} must follow ${prev}`);
    });
  }
});

Deno.test("serialGreater follows RFC 1982", async (t) => {
  const rows: [number, number, boolean][] = [
    [2, 1, true],
    [1, 2, false],
    [1, 1, false],
    [0, TOP, true],
    [TOP, 0, false],
    [2 ** 31 - 1, 0, true],
    [2 ** 31, 0, false], // exactly half way: undefined, so not greater
  ];
  for (const [a, b, want] of rows) {
    await t.step(
      `${a} > ${b} is ${want}`,
      () => assert.equal(serialGreater(a, b), want),
    );
  }
});
