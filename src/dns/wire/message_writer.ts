/**
 * A bounded writer over one reusable buffer. Writes past the current limit
 * throw {@linkcode MESSAGE_OVERFLOW}, which the response encoder catches to
 * undo the RRset it was writing. The buffer is shared by every message a
 * module instance (one per Worker) encodes; encoding is synchronous, so two
 * messages never interleave, and callers get a copy.
 */
import {
  type CompressionMark,
  CompressionTable,
  toWireName,
} from "./name_compression.ts";

/** Largest DNS message (a TCP message's length prefix is 16 bits). */
export const MAX_MESSAGE_OCTETS = 65535;

/**
 * Thrown, always the same instance, when a write would pass the limit; one
 * preallocated object keeps the truncation path free of stack captures.
 */
export const MESSAGE_OVERFLOW: RangeError = new RangeError(
  "Cannot write DNS message: size limit reached",
);

/** How a name is written. */
export interface NameMode {
  /** Replace a known suffix with a pointer. */
  compress: boolean;
  /** Offer this name's suffixes to later names. */
  register: boolean;
  /** Keep the parsed name for later messages (false for client-chosen names). */
  cacheable: boolean;
}

/** Owner names and the names in NS, CNAME, SOA, PTR and MX data. */
export const COMPRESSED: NameMode = {
  compress: true,
  register: true,
  cacheable: true,
};
/** Names in data that must go out whole (RFC 3597 §4). */
export const UNCOMPRESSED: NameMode = {
  compress: false,
  register: false,
  cacheable: true,
};

/** A position to come back to when an RRset does not fit. */
export interface WriterMark {
  pos: number;
  table: CompressionMark;
}

/** Writes one message at a time into a shared buffer. */
export class MessageWriter {
  readonly buf = new Uint8Array(MAX_MESSAGE_OCTETS);
  pos = 0;
  limit = MAX_MESSAGE_OCTETS;
  readonly #table = new CompressionTable();

  /** Starts a new message. */
  reset(): void {
    this.pos = 0;
    this.limit = MAX_MESSAGE_OCTETS;
    this.#table.clear();
  }

  mark(): WriterMark {
    return { pos: this.pos, table: this.#table.mark() };
  }

  rollback(mark: WriterMark): void {
    this.pos = mark.pos;
    this.#table.rollback(mark.table);
  }

  /** Reserves `n` octets and returns where they start. */
  reserve(n: number): number {
    const at = this.pos;
    if (at + n > this.limit) throw MESSAGE_OVERFLOW;
    this.pos = at + n;
    return at;
  }

  u8(value: number): void {
    this.buf[this.reserve(1)] = value;
  }

  u16(value: number): void {
    const at = this.reserve(2);
    this.buf[at] = value >>> 8;
    this.buf[at + 1] = value;
  }

  u32(value: number): void {
    const at = this.reserve(4);
    this.buf[at] = value >>> 24;
    this.buf[at + 1] = value >>> 16;
    this.buf[at + 2] = value >>> 8;
    this.buf[at + 3] = value;
  }

  /** Overwrites a 16-bit field written earlier (a length or a count). */
  setU16(at: number, value: number): void {
    this.buf[at] = value >>> 8;
    this.buf[at + 1] = value;
  }

  bytes(data: Uint8Array): void {
    this.buf.set(data, this.reserve(data.length));
  }

  /** A character-string (RFC 1035 §3.3): a length octet and the octets. */
  charString(data: Uint8Array, field: string): void {
    if (data.length > 255) {
      throw new RangeError(
        `Cannot encode ${field}: character-string longer than 255 octets`,
      );
    }
    this.u8(data.length);
    this.bytes(data);
  }

  /** Octets given as a string of character codes 0-255. */
  binaryString(text: string): void {
    const at = this.reserve(text.length);
    for (let i = 0; i < text.length; i++) {
      this.buf[at + i] = text.charCodeAt(i);
    }
  }

  /** A domain name in presentation form. */
  name(name: string, mode: NameMode): void {
    const { labels, keys } = toWireName(name, mode.cacheable);
    for (let i = 0; i < labels.length; i++) {
      if (mode.compress) {
        const offset = this.#table.find(keys[i]!);
        if (offset !== undefined) {
          this.u16(0xc000 | offset);
          return;
        }
      }
      if (mode.register) this.#table.add(keys[i]!, this.pos);
      const label = labels[i]!;
      this.u8(label.length);
      this.binaryString(label);
    }
    this.u8(0);
  }

  /** A copy of the message written so far. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}
