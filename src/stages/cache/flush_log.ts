/**
 * Flushes remembered, so an entry another worker shares after a flush that
 * covers it is not taken (it was stored before the flush).
 */
import {
  flushedNamesOf,
  type FlushOptions,
  namesAtAndAbove,
} from "../../pipeline/flushed_names.ts";

/** Most flushed names remembered, of each kind (flushes are rare operator actions). */
const MAX_FLUSHED_NAMES = 1000;

/**
 * When the cache was last flushed: whole, per name, and per subtree (a name
 * and the names below it). Shares stored earlier are stale.
 */
export class FlushLog {
  #all = -Infinity;
  readonly #names = new Map<string, number>();
  readonly #subtrees = new Map<string, number>();

  note(name: string | undefined, at: number, opts: FlushOptions = {}): void {
    const flushed = flushedNamesOf(name, opts);
    if (flushed === undefined) {
      this.#all = at;
      this.#names.clear();
      this.#subtrees.clear();
      return;
    }
    remember(flushed.subtree ? this.#subtrees : this.#names, flushed.name, at);
  }

  /** True when `entry` was stored before a flush that covers it. */
  covers(entry: unknown): boolean {
    if (typeof entry !== "object" || entry === null) return false;
    const { storedAt, name } = entry as { storedAt?: unknown; name?: unknown };
    if (typeof storedAt !== "number") return false;
    if (storedAt <= this.#all) return true;
    if (typeof name !== "string") return false;
    // As AnswerCache.flush and SerializedEntry.name spell names.
    const before = (at: number | undefined) =>
      at !== undefined && storedAt <= at;
    if (before(this.#names.get(name))) return true;
    if (this.#subtrees.size === 0) return false; // every share asks: be quick
    // The subtrees `name` is in: its own and each name above it.
    for (const above of namesAtAndAbove(name)) {
      if (before(this.#subtrees.get(above))) return true;
    }
    return false;
  }
}

/** Notes `name`'s flush at `at` in `log`, the oldest going past the bound. */
function remember(log: Map<string, number>, name: string, at: number): void {
  log.delete(name);
  log.set(name, at);
  if (log.size > MAX_FLUSHED_NAMES) log.delete(log.keys().next().value!);
}
