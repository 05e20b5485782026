/**
 * Which names a flush covers (`kudurru cache flush NAME [--subtree]`): one
 * name, or a name and every name below it, like Unbound's `flush_zone` and
 * BIND's `rndc flushtree`. The running cache (answer_cache.ts), its record
 * of flushes (flush_log.ts), its remembered failures (failure_cache.ts) and
 * the saved dump (src/server/local_db.ts) all ask this one module, so they
 * never disagree about what went.
 */

/** How a flush of one name reaches further. */
export interface FlushOptions {
  /**
   * The names below the name go too: `www.example.com.` and
   * `a.b.example.com.` with `example.com.`, never `notexample.com.`.
   * With the root `.` that is every name, as a flush without a name.
   * @default false
   */
  readonly subtree?: boolean;
}

/** The names a flush of one name covers, spelled as the cache keys names. */
export interface FlushedNames {
  /** Lowercased, with the trailing dot; never the root with `subtree`. */
  readonly name: string;
  readonly subtree: boolean;
  /** True when `key` (a lowercased name with its trailing dot) goes. */
  covers(key: string): boolean;
}

/**
 * The names a flush of `name` covers; undefined when it covers every name
 * (no name, or the root with `subtree`).
 */
export function flushedNamesOf(
  name: string | undefined,
  opts: FlushOptions = {},
): FlushedNames | undefined {
  if (name === undefined) return undefined;
  const flushed = cachedNameOf(name);
  const subtree = opts.subtree === true;
  if (subtree && flushed === ".") return undefined;
  return {
    name: flushed,
    subtree,
    covers: (key) => key === flushed || (subtree && isNameBelow(key, flushed)),
  };
}

/** `name` as the cache keys it: lowercased, with the trailing dot. */
export function cachedNameOf(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith(".") ? lower : lower + ".";
}

/**
 * True when `key` is a name below `above` (both as the cache keys names):
 * it ends with `above` after a dot that separates labels. A dot escaped in
 * presentation format (`evil\.example.com.`, one label `evil.example`
 * under `com.`) separates nothing.
 */
function isNameBelow(key: string, above: string): boolean {
  const dot = key.length - above.length - 1;
  return dot >= 0 && key.endsWith(above) && isLabelDot(key, dot);
}

/**
 * The names `key` is at or below, itself first, the root left out:
 * `a.example.com.`, `example.com.`, `com.`.
 */
export function* namesAtAndAbove(key: string): Generator<string> {
  if (key === ".") return;
  yield key;
  for (let i = 0; i < key.length - 1; i++) {
    if (isLabelDot(key, i)) yield key.slice(i + 1);
  }
}

/** True when `name[i]` is a dot that ends a label (not `\.`, but `\\.`). */
function isLabelDot(name: string, i: number): boolean {
  if (name[i] !== ".") return false;
  let backslashes = 0;
  while (i - backslashes > 0 && name[i - backslashes - 1] === "\\") {
    backslashes++;
  }
  return backslashes % 2 === 0;
}
