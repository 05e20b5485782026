/**
 * Byte arrays for what lives as long as one exchange (an answer made out
 * for one query, a framed TCP message), carved from shared 64 KiB slabs.
 * In Deno a `new Uint8Array(n)` or `slice()` of a DNS-sized message costs
 * ~1.4 µs (an ArrayBuffer of its own); a view of a slab ~60 ns, measured
 * with `deno bench` on this project's machine. A slab is never reused: a
 * fresh one is taken when it is full, and the GC frees it once no view of
 * it is left, so views never overlap and are zeroed like a new array.
 *
 * Rules: never keep these (a cache or a memo would hold a whole slab
 * alive), and never transfer or clone their `.buffer` (that is the slab).
 */

const SLAB_BYTES = 64 * 1024;
/** Larger arrays get an ArrayBuffer of their own (they would waste slabs). */
const MAX_CARVED = 4096;

let slab = new ArrayBuffer(SLAB_BYTES);
let used = 0;

/** A zeroed array of `length` bytes. */
export function shortLivedBytes(length: number): Uint8Array {
  if (length > MAX_CARVED) return new Uint8Array(length);
  if (used + length > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    used = 0;
  }
  const bytes = new Uint8Array(slab, used, length);
  // 8-byte steps keep every view aligned like a fresh array.
  used += (length + 7) & ~7;
  return bytes;
}

/** A copy of `bytes` (see shortLivedBytes for the rules). */
export function shortLivedCopy(bytes: Uint8Array): Uint8Array {
  const copy = shortLivedBytes(bytes.length);
  copy.set(bytes);
  return copy;
}
