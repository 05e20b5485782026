import assert from "node:assert/strict";
import { frameMessage, FrameReader } from "./tcp_framing.ts";

const bytes = (...n: number[]) => new Uint8Array(n);

Deno.test("frameMessage prefixes the length in network order", () => {
  const msg = new Uint8Array(300).fill(7);
  const framed = frameMessage(msg)!;
  assert.deepEqual([...framed.subarray(0, 2)], [1, 44]);
  assert.deepEqual(framed.subarray(2), msg);
});

Deno.test("frameMessage refuses a message longer than 65535 bytes", () => {
  assert.equal(frameMessage(new Uint8Array(65536)), null);
});

Deno.test("FrameReader cuts two messages from one chunk", () => {
  const r = new FrameReader();
  assert.deepEqual(r.push(bytes(0, 1, 9, 0, 2, 8, 7)), [bytes(9), bytes(8, 7)]);
  assert.equal(r.buffered, 0);
});

Deno.test("FrameReader joins a message split across chunks", async (t) => {
  const whole = bytes(0, 3, 1, 2, 3);
  for (let cut = 1; cut < whole.length; cut++) {
    await t.step(`cut at ${cut}`, () => {
      const r = new FrameReader();
      assert.deepEqual(r.push(whole.subarray(0, cut)), []);
      assert.deepEqual(r.push(whole.subarray(cut)), [bytes(1, 2, 3)]);
    });
  }
});

Deno.test("FrameReader reports a zero length as malformed", () => {
  const r = new FrameReader();
  assert.deepEqual(r.push(bytes(0, 0, 1)), []);
  assert.ok(r.malformed);
  assert.deepEqual(r.push(bytes(0, 1, 7)), [], "nothing cut after it");
});

Deno.test("FrameReader keeps the messages before a zero length in the same read", () => {
  const r = new FrameReader();
  assert.deepEqual(r.push(bytes(0, 1, 7, 0, 2, 8, 9, 0, 0)), [
    bytes(7),
    bytes(8, 9),
  ]);
  assert.ok(r.malformed);
});

Deno.test("FrameReader handles a maximum-size message in small chunks", () => {
  const msg = new Uint8Array(65535).map((_, i) => i & 0xff);
  const framed = frameMessage(msg)!;
  const r = new FrameReader();
  const got: Uint8Array[] = [];
  for (let off = 0; off < framed.length; off += 1000) {
    got.push(...r.push(framed.subarray(off, off + 1000)));
    assert.ok(!r.malformed);
  }
  assert.deepEqual(got, [msg]);
});

Deno.test("FrameReader.push hands out at most max messages and keeps the rest", () => {
  const reader = new FrameReader();
  const one = new Uint8Array([0, 2, 1, 1]);
  const two = new Uint8Array([0, 1, 2]);
  const three = new Uint8Array([0, 1, 3]);
  const all = new Uint8Array([...one, ...two, ...three]);
  assert.deepEqual(reader.push(all, 2).map((m) => [...m]), [[1, 1], [2]]);
  assert.deepEqual(
    reader.push(new Uint8Array(0), 2).map((m) => [...m]),
    [[3]],
  );
  assert.deepEqual(reader.push(new Uint8Array(0)), []);
  assert.equal(reader.buffered, 0);
});
