import assert from "node:assert/strict";
import { BufferPool } from "./buffer_pool.ts";

Deno.test("BufferPool hands out given-back buffers and keeps at most `keep`", () => {
  const pool = new BufferPool(16, 2);
  const [a, b, c] = [pool.take(), pool.take(), pool.take()];
  assert.equal(a.length, 16);
  assert.notEqual(a, b);
  pool.give(a);
  pool.give(b);
  pool.give(c);
  assert.equal(pool.free, 2, "the third is left to the GC");
  assert.equal(pool.take(), b);
  assert.equal(pool.take(), a);
  assert.notEqual(pool.take(), c, "empty again: a new buffer");
  pool.give(new Uint8Array(8));
  assert.equal(pool.free, 0, "a buffer of another size is not kept");
});
