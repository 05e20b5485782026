import assert from "node:assert/strict";
import { parseSize } from "./size.ts";

Deno.test("parseSize reads sizes with binary and decimal units", async (t) => {
  const cases: [string, number | undefined][] = [
    ["4096", 4096],
    ["10GiB", 10 * 2 ** 30],
    ["1.5KiB", 1536],
    ["512MB", 512e6],
    ["2 gib", 2 * 2 ** 30],
    ["", undefined],
    ["10XB", undefined],
    ["-1GiB", undefined],
  ];
  for (const [text, want] of cases) {
    await t.step(
      JSON.stringify(text),
      () => assert.equal(parseSize(text), want),
    );
  }
});
