/**
 * Receive buffers kept for reuse. A datagram socket reads into a buffer
 * that must stay untouched while the message in it is being answered, so a
 * query whose answer waits for I/O (a cache miss going upstream, an
 * upstream exchange) takes its buffer along and the socket needs another.
 * In Deno a fresh `new Uint8Array(n)` is an ArrayBuffer of its own, zeroed
 * and counted as external memory that brings garbage collections forward:
 * ~4 µs for 512 octets, ~16 µs for 4 KiB and 50-170 µs for 64 KiB in a
 * loop on this project's machine, which made a burst of cache misses
 * overflow the listener's socket. A pooled buffer costs a pop and a push.
 *
 * Buffers come back dirty: read only the part a receive filled.
 */
export class BufferPool {
  readonly #free: Uint8Array[] = [];
  readonly #size: number;
  readonly #keep: number;

  /**
   * @param size octets of every buffer
   * @param keep most buffers held for reuse (the pool's memory is at most
   *   size × keep); buffers given back beyond it are left to the GC
   */
  constructor(size: number, keep: number) {
    this.#size = size;
    this.#keep = keep;
  }

  /** A buffer of `size` octets, reused when one is free. */
  take(): Uint8Array {
    return this.#free.pop() ?? new Uint8Array(this.#size);
  }

  /** Gives `buffer` back; its holder must not read or write it again. */
  give(buffer: Uint8Array): void {
    if (this.#free.length < this.#keep && buffer.length === this.#size) {
      this.#free.push(buffer);
    }
  }

  /** Buffers waiting to be taken (tests). */
  get free(): number {
    return this.#free.length;
  }
}
