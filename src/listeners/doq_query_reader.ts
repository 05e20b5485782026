/**
 * Reads the one query of a DoQ stream (RFC 9250 §4.2): a 2-octet length,
 * that many octets of DNS message, then the client's STREAM FIN. Anything
 * else on the stream is a protocol error (§4.3.3): a FIN before the whole
 * message, data after it (a second message), a zero length, a message
 * shorter than a DNS header, a Message ID that is not 0 (§4.2.1).
 *
 * The stream is read into buffers of our own (a BYOB reader): the default
 * reader hands out each chunk in a fresh 64 KiB buffer, so keeping a
 * 40-octet query would have kept 64 KiB. The buffer starts at what nearly
 * every query fits in and grows only as octets arrive, never on the word
 * of a length prefix alone; every octet of it is reserved first from the
 * caller's `QueryBuffers`, so that queries still arriving (a client may
 * open a stream, send a length and wait) hold a bounded amount.
 */

/** Where a stream's buffer is reserved; false: no room, the query is not read. */
export interface QueryBuffers {
  reserve(bytes: number): boolean;
  release(bytes: number): void;
}

/** Why a stream gave no query. */
export type StreamFault =
  /** FIN before the length prefix or the whole message. */
  | "short"
  /** More octets than the length prefix announced (RFC 9250 §4.3.3). */
  | "extra"
  /** A length prefix of 0: no DNS message is empty. */
  | "empty"
  /** Fewer octets than a DNS header. */
  | "header"
  /** The Message ID is not 0 (RFC 9250 §4.2.1). */
  | "id"
  /** `QueryBuffers` had no room. */
  | "buffers"
  /** The stream or the connection failed (reset, closed): nobody to tell. */
  | "lost";

export type QueryRead =
  | { query: Uint8Array; fault?: undefined }
  | { fault: StreamFault; query?: undefined };

/** Octets of DNS header (RFC 1035 §4.1.1). */
const HEADER = 12;

/**
 * The first buffer: the length prefix, 512 octets of message (queries
 * padded per RFC 8467 come in 128-octet blocks; real ones are far below),
 * and one octet more, so that data past the message is seen.
 */
export const FIRST_READ_BYTES = 2 + 512 + 1;

/** Largest buffer: the longest message a length prefix announces, plus one octet. */
const MAX_READ_BYTES = 2 + 65535 + 1;

const LOST: QueryRead = { fault: "lost" };

/** Reads `readable` to its end: the query, or why there is none. */
export async function readQuery(
  readable: ReadableStream<Uint8Array>,
  buffers: QueryBuffers,
): Promise<QueryRead> {
  let reader: ReadableStreamBYOBReader;
  try {
    reader = readable.getReader({ mode: "byob" });
  } catch {
    return LOST;
  }
  if (!buffers.reserve(FIRST_READ_BYTES)) {
    reader.cancel().catch(() => {});
    return { fault: "buffers" };
  }
  let held = FIRST_READ_BYTES;
  let buf = new Uint8Array(FIRST_READ_BYTES);
  let filled = 0;
  /** Length prefix plus message, once the prefix is read; 0 before. */
  let whole = 0;
  try {
    for (;;) {
      if (filled === buf.length) {
        // Full, and still short of `whole` + 1 (else it ended below).
        const size = Math.min(whole + 1, buf.length * 4, MAX_READ_BYTES);
        if (!buffers.reserve(size - held)) return { fault: "buffers" };
        held = size;
        const bigger = new Uint8Array(size);
        bigger.set(buf);
        buf = bigger;
      }
      const { value, done } = await reader.read(buf.subarray(filled));
      // The view's buffer was transferred; the read hands it back.
      if (value === undefined) return LOST;
      buf = new Uint8Array(value.buffer);
      filled += value.length;
      if (whole === 0 && filled >= 2) {
        whole = 2 + ((buf[0]! << 8) | buf[1]!);
        if (whole === 2) return { fault: "empty" };
      }
      if (whole !== 0 && filled > whole) return { fault: "extra" };
      if (done) break;
    }
  } catch {
    return LOST;
  } finally {
    // The query, when there is one, is the caller's from here; a fault
    // closes the connection, which ends the stream.
    buffers.release(held);
  }
  if (whole === 0 || filled < whole) return { fault: "short" };
  if (whole - 2 < HEADER) return { fault: "header" };
  if (buf[2] !== 0 || buf[3] !== 0) return { fault: "id" };
  return { query: buf.subarray(2, whole) };
}
