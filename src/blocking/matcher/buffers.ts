/**
 * Buffer sizes that give memory back. glibc's malloc serves requests under
 * its mmap threshold (which rises to 32 MiB once such a block is freed)
 * from its heap, and a freed block stays resident while anything allocated
 * after it lives: a compile's staging arrays would then outlive the compile
 * in RSS. Blocks of 32 MiB or more are mmapped and unmapped on free, and
 * pages never written cost no RSS, so every buffer of a megabyte or more is
 * allocated at least that large and used only as far as needed.
 */

/** Just over glibc's largest mmap threshold (32 MiB). */
const MMAP_FLOOR = 33 << 20;
/** Below this, fragmentation is too small to matter. */
const SMALL = 1 << 20;

/** The byte length to allocate for `bytes` of use. */
export function allocationSize(bytes: number): number {
  return bytes < SMALL ? bytes : Math.max(bytes, MMAP_FLOOR);
}

/** An Int32Array over a whole buffer sized by allocationSize: `length` or more. */
export function int32s(length: number, shared = false): Int32Array {
  const size = allocationSize(length * 4);
  return new Int32Array(
    shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size),
  );
}

/** A Uint8Array over a whole buffer sized by allocationSize: `length` or more. */
export function bytes(length: number, shared = false): Uint8Array {
  const size = allocationSize(length);
  return new Uint8Array(
    shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size),
  );
}
