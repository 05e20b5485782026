import assert from "node:assert/strict";
import { formatDuration, parseDuration } from "./duration.ts";

Deno.test("parseDuration reads Go-style durations", async (t) => {
  const cases: [string, number | undefined][] = [
    ["0", 0],
    ["1800ms", 1800],
    ["30s", 30_000],
    ["10m", 600_000],
    ["1h30m", 5_400_000],
    ["72h", 259_200_000],
    ["1.5s", 1500],
    ["", undefined],
    ["10", undefined],
    ["5 m", undefined],
    ["1x", undefined],
  ];
  for (const [text, want] of cases) {
    await t.step(
      JSON.stringify(text),
      () => assert.equal(parseDuration(text), want),
    );
  }
});

Deno.test("formatDuration writes the shortest form", () => {
  assert.equal(formatDuration(5_400_000), "1h30m");
  assert.equal(formatDuration(1800), "1s800ms");
  assert.equal(formatDuration(0), "0s");
});
