/**
 * Lays the staged nodes (node_table.ts) out in their final shared table
 * (layout.ts), in a cache-friendly order.
 *
 * A node's slot depends on its parent's slot (it is part of the hash), so
 * nodes are placed depth by depth: top-level labels, then their children,
 * and so on. Within a depth they are bucket-sorted by home slot (with the
 * slot words they will get) before insertion, so the writes sweep the table
 * front to back instead of landing at random: on a table of tens of
 * megabytes that turns a cache and TLB miss per node into a stream.
 */

import { bytes, int32s } from "./buffers.ts";
import { hashLabelBytes, homeSlot } from "./hash.ts";
import {
  FINAL_LOAD,
  INLINE_LABEL,
  LEN_MASK,
  MAX_CAPACITY,
  ROOT,
  SLOT_WORDS,
} from "./layout.ts";

/** Staging record words: parent id, label offset, length | fields, hash. */
export const REC = 4;
/**
 * Nodes are sorted in chunks of this many, into this many home-slot
 * buckets: each bucket spans a small stretch of the table (which then stays
 * in cache while its nodes are placed) and the bucket sort's 2,048 write
 * streams fit in L2. 256 Ki nodes keep the sort buffer at 6 MiB.
 */
const CHUNK = 1 << 18;
const BUCKETS = 2048;
/** Words per sorted entry: id, home, then the slot's four words. */
const SORTED = 6;

/** What the builder hands over; `records` and `scratch` are overwritten. */
export interface StagedNodes {
  seed: number;
  nodes: number;
  /** REC words per node, in creation order (parents before children). */
  records: Int32Array;
  labels: Uint8Array;
  /** At least 2 × nodes ints the layout may use (the staging index). */
  scratch: Int32Array;
}

/** The built table, ready to go into MatcherData. */
export interface BuiltNodeTable {
  seed: number;
  capacity: number;
  nodes: number;
  slots: SharedArrayBuffer;
  labels: SharedArrayBuffer;
  /** Bytes of `labels` in use (the buffer may be larger: buffers.ts). */
  labelBytes: number;
}

/** Packs up to 4 bytes little-endian, like layout.ts packChars. */
function packBytes(source: Uint8Array, offset: number, count: number): number {
  let word = 0;
  for (let k = 0; k < count; k++) word |= source[offset + k]! << (k * 8);
  return word;
}

export function layOutNodes(staged: StagedNodes): BuiltNodeTable {
  const { seed, nodes, records, scratch } = staged;
  const capacity = nodes === 0
    ? 1
    : Math.max(nodes + 1, Math.ceil(nodes / FINAL_LOAD));
  if (capacity > MAX_CAPACITY) {
    throw new RangeError(`${nodes} name nodes are more than one list can hold`);
  }
  const slots = int32s(capacity * SLOT_WORDS, true);
  const slotOf = int32s(nodes);

  // Depth of each node into its (no longer needed) hash word; and the
  // bytes long labels keep outside the slots (their characters past the 4th).
  let maxDepth = 0, outside = 0;
  for (let id = 0; id < nodes; id++) {
    const r = id * REC;
    const parent = records[r]!;
    const depth = parent === ROOT ? 0 : records[parent * REC + 3]! + 1;
    records[r + 3] = depth;
    if (depth > maxDepth) maxDepth = depth;
    const length = records[r + 2]! & LEN_MASK;
    if (length > INLINE_LABEL) outside += length - 4;
  }
  const labels = bytes(outside, true);
  let labelsUsed = 0;

  // Node ids grouped by depth (a counting sort; parents come before
  // children within a depth's ids too, which does not matter any more).
  const byDepth = scratch.subarray(0, nodes);
  const homes = scratch.subarray(nodes, 2 * nodes);
  const groupStart = new Int32Array(maxDepth + 2);
  for (let id = 0; id < nodes; id++) groupStart[records[id * REC + 3]! + 1]!++;
  for (let d = 1; d <= maxDepth + 1; d++) groupStart[d]! += groupStart[d - 1]!;
  const fill = groupStart.slice();
  for (let id = 0; id < nodes; id++) {
    byDepth[fill[records[id * REC + 3]!]!++] = id;
  }

  const sorted = int32s(Math.min(nodes, CHUNK) * SORTED);
  const bucketStart = new Int32Array(BUCKETS + 1);
  const bucketOf = (home: number) => (home * BUCKETS / capacity) | 0;
  const parentSlot = (r: number) => {
    const parentId = records[r]!;
    return parentId === ROOT ? ROOT : slotOf[parentId]!;
  };
  for (let d = 0; d <= maxDepth; d++) {
    for (let from = groupStart[d]!; from < groupStart[d + 1]!; from += CHUNK) {
      const to = Math.min(groupStart[d + 1]!, from + CHUNK);
      // Pass 1, in id order: home slots and bucket sizes.
      bucketStart.fill(0);
      for (let k = from; k < to; k++) {
        const r = byDepth[k]! * REC;
        const length = records[r + 2]! & LEN_MASK;
        const h = hashLabelBytes(
          seed,
          parentSlot(r),
          staged.labels,
          records[r + 1]!,
          length,
        );
        homes[k] = homeSlot(h, length, capacity);
        bucketStart[bucketOf(homes[k]!) + 1]!++;
      }
      for (let b = 1; b <= BUCKETS; b++) bucketStart[b]! += bucketStart[b - 1]!;
      // Pass 2, in id order: each node's slot words into its bucket.
      for (let k = from; k < to; k++) {
        const id = byDepth[k]!, r = id * REC;
        const offset = records[r + 1]!;
        const lengthAndFields = records[r + 2]!;
        const length = lengthAndFields & LEN_MASK;
        const at = bucketStart[bucketOf(homes[k]!)]!++ * SORTED;
        sorted[at] = id;
        sorted[at + 1] = homes[k]!;
        sorted[at + 2] = parentSlot(r);
        sorted[at + 3] = lengthAndFields;
        sorted[at + 4] = packBytes(
          staged.labels,
          offset,
          length < 4 ? length : 4,
        );
        if (length <= INLINE_LABEL) {
          sorted[at + 5] = length > 4
            ? packBytes(staged.labels, offset + 4, length - 4)
            : 0;
        } else {
          labels.set(
            staged.labels.subarray(offset + 4, offset + length),
            labelsUsed,
          );
          sorted[at + 5] = labelsUsed;
          labelsUsed += length - 4;
        }
      }
      // Pass 3, in home order: linear probing from each home, front to back.
      for (let at = 0; at < (to - from) * SORTED; at += SORTED) {
        let slot = sorted[at + 1]!;
        while (slots[slot * SLOT_WORDS + 1] !== 0) {
          if (++slot === capacity) slot = 0;
        }
        const base = slot * SLOT_WORDS;
        slots[base] = sorted[at + 2]!;
        slots[base + 1] = sorted[at + 3]!;
        slots[base + 2] = sorted[at + 4]!;
        slots[base + 3] = sorted[at + 5]!;
        slotOf[sorted[at]!] = slot;
      }
    }
  }
  return {
    seed,
    capacity,
    nodes,
    slots: slots.buffer as SharedArrayBuffer,
    labels: labels.buffer as SharedArrayBuffer,
    labelBytes: outside,
  };
}
