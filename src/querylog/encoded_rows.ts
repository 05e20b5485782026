/** The encoder's output: rows in chunk_codec's columns, and their kinds. */
import { C, COLUMNS } from "./chunk_codec.ts";

/** Rows encoded so far (row-major, chunk_codec columns) and their kinds. */
export class EncodedRows {
  rows: Float64Array;
  /** KIND_* bits per row, for the rollups. */
  kinds: Uint8Array;
  count = 0;

  constructor(capacity = 1024) {
    this.rows = new Float64Array(Math.max(1, capacity) * COLUMNS);
    this.kinds = new Uint8Array(Math.max(1, capacity));
  }

  /** Drops the row pushed last. */
  pop(): void {
    this.count--;
  }

  /** Room for one more row; returns its offset in `rows`. */
  push(kinds: number): number {
    if (this.count === this.kinds.length) {
      const rows = new Float64Array(this.rows.length * 2);
      rows.set(this.rows);
      const k = new Uint8Array(this.kinds.length * 2);
      k.set(this.kinds);
      this.rows = rows;
      this.kinds = k;
    }
    this.kinds[this.count] = kinds;
    return this.count++ * COLUMNS;
  }

  /** Reorders the rows by time (stable); a no-op when they already are. */
  sortByTime(): void {
    const { rows, count } = this;
    let sorted = true;
    for (let i = 1; i < count && sorted; i++) {
      sorted = rows[(i - 1) * COLUMNS + C.time]! <= rows[i * COLUMNS + C.time]!;
    }
    if (sorted) return;
    const order = Array.from({ length: count }, (_, i) => i);
    order.sort((a, b) =>
      rows[a * COLUMNS + C.time]! - rows[b * COLUMNS + C.time]! || a - b
    );
    const unsortedRows = rows.slice(0, count * COLUMNS);
    const unsortedKinds = this.kinds.slice(0, count);
    order.forEach((from, to) => {
      rows.set(
        unsortedRows.subarray(from * COLUMNS, (from + 1) * COLUMNS),
        to * COLUMNS,
      );
      this.kinds[to] = unsortedKinds[from]!;
    });
  }
}
