/**
 * Name compression for the encoder (RFC 1035 §4.1.4): presentation names
 * turned into wire labels with a lookup key per suffix, and the table of
 * suffixes already written. Keys fold ASCII case only, so `WWW.Example.`
 * reuses `www.example.` (the case of the first writer wins, which is how the
 * question's case reaches the answers).
 */
import { labelOctets } from "../name.ts";

const MAX_LABEL_OCTETS = 63;
const MAX_NAME_OCTETS = 255;
/** Pointers have 14 bits of offset. */
export const MAX_POINTER_OFFSET = 0x3fff;
/** Parsed names kept for reuse; the whole cache is dropped when it fills. */
const NAME_CACHE_LIMIT = 4096;

/** A name ready to write. */
export interface WireName {
  /** Labels as binary strings (one character per octet), root excluded. */
  labels: string[];
  /**
   * `keys[i]` identifies the suffix starting at label `i`: length-prefixed,
   * ASCII-lowercased labels, so it is unambiguous for any octets.
   */
  keys: string[];
}

const ROOT: WireName = { labels: [], keys: [] };
const cache = new Map<string, WireName>();

/**
 * Converts a presentation name (escapes allowed, trailing dot optional: the
 * name is taken as absolute) to labels and suffix keys. Names from zone data
 * repeat from answer to answer and are cached; pass `cacheable: false` for
 * names a client chose, so random names cannot churn the cache.
 *
 * @throws {TypeError} when the name is not a valid domain name
 */
export function toWireName(name: string, cacheable = true): WireName {
  if (name === "." || name === "") return ROOT;
  const cached = cache.get(name);
  if (cached !== undefined) return cached;
  const wire = name.includes("\\") ? decodeEscaped(name) : decodePlain(name);
  if (cacheable) {
    if (cache.size >= NAME_CACHE_LIMIT) cache.clear();
    cache.set(name, wire);
  }
  return wire;
}

/** Fast path for names without escapes: every character is one octet. */
function decodePlain(name: string): WireName {
  const text = name.endsWith(".") ? name.slice(0, -1) : name;
  const labels = text.split(".");
  if (text.length + 2 > MAX_NAME_OCTETS) {
    throw new TypeError(
      `Cannot encode name "${name}": longer than ${MAX_NAME_OCTETS} octets`,
    );
  }
  for (const label of labels) {
    if (label.length === 0 || label.length > MAX_LABEL_OCTETS) {
      throw new TypeError(
        `Cannot encode name "${name}": labels must be 1-${MAX_LABEL_OCTETS} octets`,
      );
    }
  }
  if (!/^[\x21-\x7e]*$/.test(text)) {
    throw new TypeError(
      `Cannot encode name "${name}": characters outside printable ASCII must be escaped as \\DDD`,
    );
  }
  const keys = new Array<string>(labels.length);
  let suffix = "";
  for (let i = labels.length - 1; i >= 0; i--) {
    const label = labels[i]!;
    suffix = String.fromCharCode(label.length) + label.toLowerCase() + suffix;
    keys[i] = suffix;
  }
  return { labels, keys };
}

function decodeEscaped(name: string): WireName {
  const octets = labelOctets(name, { allowWildcard: true });
  const labels = new Array<string>(octets.length);
  const keys = new Array<string>(octets.length);
  let suffix = "";
  for (let i = octets.length - 1; i >= 0; i--) {
    const label = octets[i]!;
    labels[i] = String.fromCharCode(...label);
    suffix = String.fromCharCode(label.length, ...label.map(foldCase)) +
      suffix;
    keys[i] = suffix;
  }
  return { labels, keys };
}

function foldCase(octet: number): number {
  return octet >= 0x41 && octet <= 0x5a ? octet + 0x20 : octet;
}

/** Where the table stood, to undo the entries of an RRset that did not fit. */
export type CompressionMark = number;

/** Suffixes already in the message and their offsets. */
export class CompressionTable {
  #offsets = new Map<string, number>();
  #added: string[] = [];

  /** Empties the table for a new message. */
  clear(): void {
    this.#offsets.clear();
    this.#added.length = 0;
  }

  /** The offset of a suffix written earlier, if any. */
  find(key: string): number | undefined {
    return this.#offsets.get(key);
  }

  /** Records a suffix written at `offset` (ignored beyond pointer range). */
  add(key: string, offset: number): void {
    if (offset > MAX_POINTER_OFFSET || this.#offsets.has(key)) return;
    this.#offsets.set(key, offset);
    this.#added.push(key);
  }

  mark(): CompressionMark {
    return this.#added.length;
  }

  /** Forgets every suffix added since `mark`. */
  rollback(mark: CompressionMark): void {
    while (this.#added.length > mark) this.#offsets.delete(this.#added.pop()!);
  }
}
