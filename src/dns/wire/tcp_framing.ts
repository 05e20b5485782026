/**
 * DNS over TCP framing (RFC 1035 §4.2.2, RFC 7766 §8): every message is
 * preceded by its length as two bytes, network order. Reads arrive in
 * arbitrary pieces, so FrameReader buffers until whole messages are there.
 */

import { shortLivedBytes } from "./short_lived_bytes.ts";

/** Largest message a 2-byte length can carry. */
export const MAX_TCP_MESSAGE = 65535;

/**
 * Prefixes a message with its length, for one write (short_lived_bytes.ts:
 * never keep it); null when it is too long to frame.
 */
export function frameMessage(message: Uint8Array): Uint8Array | null {
  if (message.length > MAX_TCP_MESSAGE) return null;
  const framed = shortLivedBytes(message.length + 2);
  framed[0] = message.length >> 8;
  framed[1] = message.length & 0xff;
  framed.set(message, 2);
  return framed;
}

/** Collects bytes from a stream and cuts them into whole messages. */
export class FrameReader {
  #buf = new Uint8Array(4096);
  #start = 0;
  #end = 0;
  #malformed = false;

  /**
   * True once a length prefix of 0 was read: no message is empty, so the
   * stream is not DNS and the connection should close, after answering
   * the messages that came before it. Nothing is cut after that.
   */
  get malformed(): boolean {
    return this.#malformed;
  }

  /**
   * Adds bytes and returns the messages now complete (copies, safe to keep),
   * at most `max` of them: the rest stay buffered for a later call (which
   * may add no bytes). Those before a zero length prefix still count (see
   * `malformed`).
   */
  push(bytes: Uint8Array, max = Infinity): Uint8Array[] {
    if (this.#malformed) return [];
    this.#append(bytes);
    const messages: Uint8Array[] = [];
    while (messages.length < max && this.#end - this.#start >= 2) {
      const length = (this.#buf[this.#start]! << 8) |
        this.#buf[this.#start + 1]!;
      if (length === 0) {
        this.#malformed = true;
        break;
      }
      if (this.#end - this.#start - 2 < length) break;
      const from = this.#start + 2;
      messages.push(this.#buf.slice(from, from + length));
      this.#start = from + length;
    }
    return messages;
  }

  /** Bytes received that do not yet form a whole message. */
  get buffered(): number {
    return this.#end - this.#start;
  }

  #append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const kept = this.#end - this.#start;
    if (this.#start > 0 && this.#end + bytes.length > this.#buf.length) {
      this.#buf.copyWithin(0, this.#start, this.#end);
      this.#start = 0;
      this.#end = kept;
    }
    if (this.#end + bytes.length > this.#buf.length) {
      let size = this.#buf.length;
      while (size < this.#end + bytes.length) size *= 2;
      const grown = new Uint8Array(size);
      grown.set(this.#buf.subarray(0, this.#end));
      this.#buf = grown;
    }
    this.#buf.set(bytes, this.#end);
    this.#end += bytes.length;
  }
}
