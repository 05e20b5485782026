/**
 * The node hash, shared by the compiler and the matcher so both land on the
 * same slot: FNV-1a over a label's characters from right to left (the
 * direction the matcher walks a name), started from the list's seed and the
 * parent's slot, finished with murmur3's fmix32. `homeSlot` maps a hash to a
 * slot of any capacity (not only powers of two, which would waste memory).
 */

const FNV_PRIME = 0x01000193;
const PARENT_MUL = 0x9e3779b1 | 0;

/** The hash state before a label's first (rightmost) character. */
export function labelHashStart(seed: number, parent: number): number {
  return seed ^ Math.imul(parent, PARENT_MUL);
}

/** Adds one character (call from the label's right end to its left end). */
export function labelHashStep(h: number, c: number): number {
  return Math.imul(h ^ c, FNV_PRIME);
}

/** The home slot of a finished label hash in a table of `capacity` slots. */
export function homeSlot(h: number, length: number, capacity: number): number {
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  // 24 hash bits times capacity (< 2^28) stays below 2^53: exact, no BigInt.
  return ((h >>> 8) * capacity / 16777216) | 0;
}

/** The full 32-bit hash of a label (used by the compiler's staging table). */
export function mixLabelHash(h: number, length: number): number {
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Label hash of text[start, end) (the compiler's side). */
export function hashLabelText(
  seed: number,
  parent: number,
  text: string,
  start: number,
  end: number,
): number {
  let h = labelHashStart(seed, parent);
  for (let i = end - 1; i >= start; i--) {
    h = labelHashStep(h, text.charCodeAt(i));
  }
  return h;
}

/** Label hash of bytes[offset, offset + length) (re-hashing stored labels). */
export function hashLabelBytes(
  seed: number,
  parent: number,
  bytes: Uint8Array,
  offset: number,
  length: number,
): number {
  let h = labelHashStart(seed, parent);
  for (let i = offset + length - 1; i >= offset; i--) {
    h = labelHashStep(h, bytes[i]!);
  }
  return h;
}

/** A random 32-bit seed from the platform CSPRNG. */
export function randomSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]! | 0;
}
