import assert from "node:assert/strict";
import {
  C,
  ChunkFormatError,
  COLUMNS,
  decodeChunk,
  encodeChunk,
} from "./chunk_codec.ts";

/** `count` rows where column c of row i is `value(i, c)`. */
function rowsOf(count: number, value: (i: number, c: number) => number) {
  const rows = new Float64Array(count * COLUMNS);
  for (let i = 0; i < count; i++) {
    for (let c = 0; c < COLUMNS; c++) rows[i * COLUMNS + c] = value(i, c);
  }
  return rows;
}

Deno.test("chunk codec: every width, negatives and constants round-trip", () => {
  const spans = [
    0,
    1,
    255,
    256,
    65_535,
    65_536,
    2 ** 24,
    2 ** 32,
    2 ** 40,
    2 ** 47,
  ];
  const rows = rowsOf(spans.length * 3, (i, c) => {
    const span = spans[c % spans.length]!;
    if (c === C.rcode) return i % 2 === 0 ? -1 : 3; // rcode -1: nothing sent
    if (c === C.time) return 1_790_000_000_000 + (i * 7919) % 1000;
    return c === C.qclass ? 1 : (i * 104_729) % (span + 1);
  });
  const count = spans.length * 3;
  const decoded = decodeChunk(encodeChunk(rows, count));
  assert.equal(decoded.count, count);
  assert.deepEqual(decoded.rows, rows);
});

Deno.test("chunk codec: an empty chunk and a one-event chunk", () => {
  assert.deepEqual(decodeChunk(encodeChunk(new Float64Array(0), 0)), {
    count: 0,
    rows: new Float64Array(0),
  });
  const one = rowsOf(1, (_, c) => c * 1000 - 5);
  assert.deepEqual(decodeChunk(encodeChunk(one, 1)).rows, one);
});

Deno.test("chunk codec: a typical busy chunk costs well under 30 bytes an event", () => {
  const count = 5000;
  const rows = rowsOf(count, (i, c) => {
    switch (c) {
      case C.time:
        return 1_790_000_000_000 + Math.floor(i / 20);
      case C.client:
        return 1 + (i % 50);
      case C.port:
        return 1024 + ((i * 7) % 60_000);
      case C.qname:
        return 1 + ((i * 31) % 50_000);
      case C.answer:
        return (i * 17) % 30_000;
      case C.size:
        return 60 + (i % 400);
      case C.durationUs:
        return 20 + ((i * 13) % 5000);
      case C.status:
        return 1 + (i % 6);
      default:
        return 1;
    }
  });
  const blob = encodeChunk(rows, count);
  assert.ok(blob.length / count < 20, `${blob.length / count} bytes/event`);
  assert.deepEqual(decodeChunk(blob).rows, rows);
});

Deno.test("chunk codec: values that are not safe integers are refused", () => {
  const rows = rowsOf(2, () => 1);
  rows[C.size] = 1.5;
  assert.throws(() => encodeChunk(rows, 2), RangeError);
  rows[C.size] = Number.NaN;
  assert.throws(() => encodeChunk(rows, 2), RangeError);
});

Deno.test("chunk codec: damaged blobs throw ChunkFormatError, never anything else", () => {
  const blob = encodeChunk(rowsOf(50, (i, c) => i * c), 50);
  const cases: Uint8Array[] = [
    new Uint8Array(0),
    Uint8Array.of(9, 0),
    blob.subarray(0, blob.length - 1),
    Uint8Array.of(...blob, 0),
    Uint8Array.of(1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
  ];
  const wide = blob.slice();
  wide[2] = 7; // the first column's width
  cases.push(wide);
  for (const bad of cases) {
    assert.throws(
      () => decodeChunk(bad),
      ChunkFormatError,
      `${bad.length} bytes`,
    );
  }
  // Random bytes: an error or a decoding, never a crash of another kind.
  for (let n = 0; n < 200; n++) {
    const noise = blob.slice();
    const at = 1 + (n * 37) % (noise.length - 1);
    noise[at] = noise[at]! ^ (1 + (n % 255));
    try {
      decodeChunk(noise);
    } catch (err) {
      assert.ok(err instanceof ChunkFormatError, String(err));
    }
  }
});
