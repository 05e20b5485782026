/**
 * Flushes remembered, so an entry another worker shares after a flush that
 * covers it is not taken (it was stored before the flush).
 */

/** Most flushed names remembered (flushes are rare operator actions). */
const MAX_FLUSHED_NAMES = 1000;

/** When the cache was last flushed, whole and per name (shares stored earlier are stale). */
export class FlushLog {
  #all = -Infinity;
  readonly #names = new Map<string, number>();

  note(name: string | undefined, at: number): void {
    if (name === undefined) {
      this.#all = at;
      this.#names.clear();
      return;
    }
    // As AnswerCache.flush and SerializedEntry.name spell names.
    let key = name.toLowerCase();
    if (!key.endsWith(".")) key += ".";
    this.#names.delete(key);
    this.#names.set(key, at);
    if (this.#names.size > MAX_FLUSHED_NAMES) {
      this.#names.delete(this.#names.keys().next().value!);
    }
  }

  /** True when `entry` was stored before a flush that covers it. */
  covers(entry: unknown): boolean {
    if (typeof entry !== "object" || entry === null) return false;
    const { storedAt, name } = entry as { storedAt?: unknown; name?: unknown };
    if (typeof storedAt !== "number") return false;
    if (storedAt <= this.#all) return true;
    const at = typeof name === "string" ? this.#names.get(name) : undefined;
    return at !== undefined && storedAt <= at;
  }
}
