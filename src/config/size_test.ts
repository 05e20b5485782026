import assert from "node:assert/strict";
import { formatSize, parseSize } from "./size.ts";

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

Deno.test("formatSize writes bytes in the shortest unit, read back exactly", async (t) => {
  const cases: [number, string][] = [
    [64 * 2 ** 20, "64MiB"],
    [10 * 2 ** 30, "10GiB"],
    [512e6, "512MB"],
    [1536, "1536"],
    [2 ** 10, "1KiB"],
    [0, "0"],
  ];
  for (const [bytes, want] of cases) {
    await t.step(want, () => {
      assert.equal(formatSize(bytes), want);
      assert.equal(parseSize(want), bytes);
    });
  }
});
