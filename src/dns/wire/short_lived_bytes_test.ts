import assert from "node:assert/strict";
import { shortLivedBytes, shortLivedCopy } from "./short_lived_bytes.ts";

Deno.test("short-lived bytes never overlap, start zeroed, and survive slab turnover", () => {
  const made: Uint8Array[] = [];
  // Enough to fill several 64 KiB slabs, with odd sizes.
  for (let i = 0; i < 3000; i++) {
    const bytes = shortLivedBytes(1 + (i * 37) % 200);
    assert.ok(bytes.every((b) => b === 0), `array ${i} starts zeroed`);
    bytes.fill(i % 251);
    made.push(bytes);
  }
  made.forEach((bytes, i) => {
    assert.ok(bytes.every((b) => b === i % 251), `array ${i} kept its bytes`);
    assert.equal(bytes.byteOffset % 8, 0);
  });
});

Deno.test("short-lived copies are copies; large arrays get buffers of their own", () => {
  const source = Uint8Array.from({ length: 120 }, (_, i) => i);
  const copy = shortLivedCopy(source);
  assert.deepEqual(copy, source);
  copy[0] = 99;
  assert.equal(source[0], 0);
  const big = shortLivedBytes(10_000);
  assert.equal(big.length, 10_000);
  assert.equal(big.buffer.byteLength, 10_000);
  assert.equal(shortLivedBytes(0).length, 0);
});
