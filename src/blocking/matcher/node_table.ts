/**
 * Builds the node hash table of exact and suffix rules (layout.ts) while
 * rules stream in, then lays it out once, exactly sized, in
 * SharedArrayBuffers.
 *
 * While rules arrive the number of nodes is unknown, so staging keeps
 * growable plain arrays: node records by creation order (parent id, label
 * offset, length and rule fields, full hash) and a power-of-two index of
 * node ids. `build()` hands them to node_layout.ts, which places them in
 * a table of nodes / 0.7 slots.
 */

import {
  fieldShift,
  LEN_BITS,
  LEN_MASK,
  MAX_LABEL,
  MAX_NAME,
  ROOT,
} from "./layout.ts";
import {
  labelHashStart,
  labelHashStep,
  mixLabelHash,
  randomSeed,
} from "./hash.ts";
import { bytes, int32s } from "./buffers.ts";
import { type BuiltNodeTable, layOutNodes, REC } from "./node_layout.ts";

export type { BuiltNodeTable };

const DOT = 46;

/**
 * Why `name` cannot be stored, or null when it can: lowercase printable
 * ASCII, labels of 1..63 characters, at most 253 in all (no trailing dot).
 */
export function nameProblem(name: string): string | null {
  if (name.length === 0) return "an empty name";
  if (name.length > MAX_NAME) return "a name longer than 253 characters";
  let labelLength = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === DOT) {
      if (labelLength === 0) return "an empty label";
      labelLength = 0;
      continue;
    }
    if (c <= 0x20 || c >= 0x7f) {
      return "a character that is not printable ASCII";
    }
    if (c >= 0x41 && c <= 0x5a) return "an uppercase letter";
    if (++labelLength > MAX_LABEL) return "a label longer than 63 characters";
  }
  return labelLength === 0 ? "an empty label" : null;
}

export class NodeTableBuilder {
  private readonly seed = randomSeed();
  private records = int32s(1024 * REC);
  private index = int32s(2048).subarray(0, 2048);
  private labels = bytes(8192);
  private labelLength = 0;
  /** Nodes created (rules plus shared parents). */
  nodes = 0;
  /** Distinct (name, kind, role) rules stored. */
  rules = 0;

  /**
   * Stores a rule of `kind` and `role` on `name` (which nameProblem
   * accepted). Returns false when the node already had a rule of that kind
   * and role: a duplicate (or the same rule in another syntax) is stored once.
   */
  add(name: string, kind: number, role: number, syntaxCode: number): boolean {
    let parent = ROOT;
    let labelEnd = name.length;
    for (;;) {
      let h = labelHashStart(this.seed, parent);
      let i = labelEnd - 1;
      for (; i >= 0; i--) {
        const c = name.charCodeAt(i);
        if (c === DOT) break;
        h = labelHashStep(h, c);
      }
      const start = i + 1;
      const id = this.findOrCreate(parent, name, start, labelEnd - start, h);
      if (start === 0) return this.setField(id, kind, role, syntaxCode);
      parent = id;
      labelEnd = start - 1;
    }
  }

  /** Lays the nodes out in shared memory; the builder is spent afterwards. */
  build(): BuiltNodeTable {
    const built = layOutNodes({
      seed: this.seed,
      nodes: this.nodes,
      records: this.records,
      labels: this.labels,
      scratch: this.index,
    });
    // Let the staging arrays go before the caller keeps the result.
    this.records = new Int32Array(0);
    this.index = new Int32Array(0);
    this.labels = new Uint8Array(0);
    return built;
  }

  private findOrCreate(
    parent: number,
    name: string,
    start: number,
    length: number,
    partialHash: number,
  ): number {
    const full = mixLabelHash(partialHash, length);
    const mask = this.index.length - 1;
    const records = this.records;
    const labels = this.labels;
    let pos = full & mask;
    for (;;) {
      const entry = this.index[pos]!;
      if (entry === 0) break;
      const r = (entry - 1) * REC;
      if (
        records[r + 3] === full && records[r] === parent &&
        (records[r + 2]! & LEN_MASK) === length
      ) {
        const offset = records[r + 1]!;
        let k = 0;
        while (
          k < length && labels[offset + k] === name.charCodeAt(start + k)
        ) k++;
        if (k === length) return entry - 1;
      }
      pos = (pos + 1) & mask;
    }
    return this.create(parent, name, start, length, full);
  }

  private create(
    parent: number,
    name: string,
    start: number,
    length: number,
    full: number,
  ): number {
    const id = this.nodes++;
    if ((id + 1) * REC > this.records.length) {
      const grown = int32s(this.records.length * 2);
      grown.set(this.records);
      this.records = grown;
    }
    if (this.labelLength + length > this.labels.length) {
      const grown = bytes(
        Math.max(this.labels.length * 2, this.labelLength + length),
      );
      grown.set(this.labels.subarray(0, this.labelLength));
      this.labels = grown;
    }
    const offset = this.labelLength;
    for (let k = 0; k < length; k++) {
      this.labels[offset + k] = name.charCodeAt(start + k);
    }
    this.labelLength += length;
    const r = id * REC;
    this.records[r] = parent;
    this.records[r + 1] = offset;
    this.records[r + 2] = length;
    this.records[r + 3] = full;
    if (this.nodes * 2 > this.index.length) this.growIndex();
    else this.place(id, full);
    return id;
  }

  /** Puts node `id` into the index at the first free slot from its home. */
  private place(id: number, full: number): void {
    const mask = this.index.length - 1;
    let pos = full & mask;
    while (this.index[pos] !== 0) pos = (pos + 1) & mask;
    this.index[pos] = id + 1;
  }

  /** Doubles the index (load stays ≤ 0.5) and re-places every node by its stored hash. */
  private growIndex(): void {
    const length = this.index.length * 2;
    this.index = int32s(length).subarray(0, length);
    for (let id = 0; id < this.nodes; id++) {
      this.place(id, this.records[id * REC + 3]!);
    }
  }

  private setField(
    id: number,
    kind: number,
    role: number,
    syntaxCode: number,
  ): boolean {
    const r = id * REC + 2;
    const shift = LEN_BITS + fieldShift(kind, role);
    if (((this.records[r]! >>> shift) & 7) !== 0) return false;
    this.records[r] = this.records[r]! | (syntaxCode << shift);
    this.rules++;
    return true;
  }
}
