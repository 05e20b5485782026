/**
 * A chunk of events as one blob: column by column, each column stored as
 * the offsets of its values from the column's smallest value, in as few
 * bytes as the largest offset needs (0 when every value is the same). A
 * chunk of consecutive events repeats most columns' values or keeps them
 * in a narrow range (one node, a few clients, times a few ms apart), so an
 * event costs ~25 bytes instead of a ~45-byte SQLite row, and a batch
 * costs one INSERT instead of one per event.
 *
 * Layout: version (1 byte), count (varint), then per column: width (1
 * byte, 0-6), base (zigzag varint), count × width bytes little-endian.
 */

/** The columns of a stored event, in blob order. */
export const C = {
  time: 0,
  node: 1,
  client: 2,
  port: 3,
  transport: 4,
  qname: 5,
  qtype: 6,
  qclass: 7,
  rcode: 8,
  status: 9,
  stage: 10,
  upstream: 11,
  list: 12,
  rule: 13,
  flags: 14,
  answer: 15,
  size: 16,
  durationUs: 17,
  groups: 18,
} as const;

/** Values per event (row-major arrays hold COLUMNS × count values). */
export const COLUMNS = 19;

const VERSION = 1;
/** Offsets wider than 6 bytes do not occur (times are < 2^48 ms). */
const MAX_WIDTH = 6;

/** A blob that is not a chunk this code wrote. */
export class ChunkFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChunkFormatError";
  }
}

/**
 * Encodes `count` events of `rows` (row-major, COLUMNS values each, every
 * value an integer; ids of absent optional strings are 0).
 *
 * @throws {RangeError} for a value that is not a safe integer
 */
export function encodeChunk(rows: Float64Array, count: number): Uint8Array {
  const out = new ByteWriter(64 + count * 32);
  out.byte(VERSION);
  out.varint(count);
  for (let c = 0; c < COLUMNS; c++) {
    let min = Infinity;
    let max = -Infinity;
    for (let i = c; i < count * COLUMNS; i += COLUMNS) {
      const v = rows[i]!;
      if (Math.floor(v) !== v) {
        throw new RangeError(`column ${c} holds ${v}, not an integer`);
      }
      if (v < min) min = v;
      if (v > max) max = v;
    }
    if (count === 0) min = max = 0;
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max)) {
      throw new RangeError(`column ${c} holds a value that is not an integer`);
    }
    const width = widthOf(max - min);
    out.byte(width);
    out.varint(min < 0 ? -2 * min - 1 : 2 * min);
    if (width === 0) continue;
    out.reserve(count * width);
    for (let i = c; i < count * COLUMNS; i += COLUMNS) {
      out.uint(rows[i]! - min, width);
    }
  }
  return out.bytes();
}

/**
 * The events of a blob, row-major.
 *
 * @throws {ChunkFormatError} when `blob` is not a well-formed chunk
 */
export function decodeChunk(
  blob: Uint8Array,
): { count: number; rows: Float64Array } {
  const input = new ByteReader(blob);
  const version = input.byte();
  if (version !== VERSION) {
    throw new ChunkFormatError(`unknown event chunk version ${version}`);
  }
  const count = input.varint();
  if (count > blob.length * 8) {
    throw new ChunkFormatError(`event chunk claims ${count} events`);
  }
  const rows = new Float64Array(count * COLUMNS);
  for (let c = 0; c < COLUMNS; c++) {
    const width = input.byte();
    if (width > MAX_WIDTH) {
      throw new ChunkFormatError(`event chunk column ${c} has width ${width}`);
    }
    const zigzag = input.varint();
    const base = zigzag % 2 === 1 ? -(zigzag + 1) / 2 : zigzag / 2;
    if (width === 0) {
      for (let i = c; i < rows.length; i += COLUMNS) rows[i] = base;
      continue;
    }
    input.need(count * width);
    for (let i = c; i < rows.length; i += COLUMNS) {
      rows[i] = base + input.uint(width);
    }
  }
  if (input.remaining() !== 0) {
    throw new ChunkFormatError("event chunk has trailing bytes");
  }
  return { count, rows };
}

function widthOf(range: number): number {
  let width = 0;
  while (range >= 1) {
    width++;
    range = Math.floor(range / 256);
  }
  return width;
}

class ByteWriter {
  #buf: Uint8Array;
  #pos = 0;

  constructor(capacity: number) {
    this.#buf = new Uint8Array(capacity);
  }

  byte(value: number): void {
    this.reserve(1);
    this.#buf[this.#pos++] = value;
  }

  /** Unsigned LEB128 of a safe integer ≥ 0. */
  varint(value: number): void {
    this.reserve(8);
    while (value >= 0x80) {
      this.#buf[this.#pos++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    this.#buf[this.#pos++] = value;
  }

  /** `value` in `width` bytes, little-endian (room reserved by the caller). */
  uint(value: number, width: number): void {
    const buf = this.#buf;
    let pos = this.#pos;
    if (width <= 4) {
      // Bit operations are exact below 2^32 and much faster than division.
      for (let b = 0; b < width; b++) buf[pos++] = (value >>> (8 * b)) & 0xff;
    } else {
      for (let b = 0; b < width; b++) {
        buf[pos++] = value % 256;
        value = Math.floor(value / 256);
      }
    }
    this.#pos = pos;
  }

  reserve(n: number): void {
    if (this.#pos + n <= this.#buf.length) return;
    const grown = new Uint8Array(Math.max(this.#buf.length * 2, this.#pos + n));
    grown.set(this.#buf.subarray(0, this.#pos));
    this.#buf = grown;
  }

  bytes(): Uint8Array {
    return this.#buf.slice(0, this.#pos);
  }
}

class ByteReader {
  #pos = 0;
  constructor(readonly buf: Uint8Array) {}

  byte(): number {
    this.need(1);
    return this.buf[this.#pos++]!;
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.byte();
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 0x80;
    }
    throw new ChunkFormatError("event chunk has an overlong varint");
  }

  /** Reads `width` bytes little-endian (checked by need() beforehand). */
  uint(width: number): number {
    const buf = this.buf;
    let pos = this.#pos;
    let value = 0;
    if (width <= 3) {
      for (let b = 0; b < width; b++) value |= buf[pos++]! << (8 * b);
    } else {
      let scale = 1;
      for (let b = 0; b < width; b++) {
        value += buf[pos++]! * scale;
        scale *= 256;
      }
    }
    this.#pos = pos;
    return value;
  }

  need(n: number): void {
    if (this.#pos + n > this.buf.length) {
      throw new ChunkFormatError("event chunk is truncated");
    }
  }

  remaining(): number {
    return this.buf.length - this.#pos;
  }
}
