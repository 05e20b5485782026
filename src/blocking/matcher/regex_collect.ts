/**
 * The compiler's side of regex rules: checks each expression, stores each
 * (source, role) once, picks its index key (regex_literal.ts), and enforces
 * the per-list cap, because every expression costs queries: indexed ones
 * only when a name holds their key, unindexed ones always.
 */

import type { RegexData } from "./layout.ts";
import { chooseKey, requiredLiterals } from "./regex_literal.ts";

/** Above this many unindexed expressions the list is slow enough to warn about. */
export const UNINDEXED_WARN_THRESHOLD = 50;

export class RegexCollector {
  private readonly sources: string[] = [];
  private readonly roles: number[] = [];
  private readonly keys: number[] = [];
  private readonly keyLengths: number[] = [];
  private readonly seen = new Set<string>();
  private readonly bucketLoad = new Map<number, number>();
  /** Distinct expressions over the cap, dropped. */
  dropped = 0;
  unindexed = 0;

  constructor(private readonly hardCap: number) {}

  get count(): number {
    return this.sources.length;
  }

  /**
   * Adds one expression. Returns "added", "duplicate", "dropped" (over the
   * cap) or the reason it is not a valid expression.
   */
  add(
    source: string,
    role: number,
  ): "added" | "duplicate" | "dropped" | { invalid: string } {
    const identity = role + "\0" + source;
    if (this.seen.has(identity)) return "duplicate";
    if (source.length === 0) return { invalid: "an empty regular expression" };
    try {
      new RegExp(source);
    } catch (err) {
      return { invalid: err instanceof Error ? err.message : String(err) };
    }
    if (this.sources.length >= this.hardCap) {
      this.seen.add(identity); // count each distinct dropped expression once
      this.dropped++;
      return "dropped";
    }
    this.seen.add(identity);
    const key = chooseKey(requiredLiterals(source), this.bucketLoad);
    this.sources.push(source);
    this.roles.push(role);
    if (key === null) {
      this.keys.push(0);
      this.keyLengths.push(0);
      this.unindexed++;
    } else {
      this.keys.push(key.key);
      this.keyLengths.push(key.length);
      const bucket = key.key * 8 + key.length;
      this.bucketLoad.set(bucket, (this.bucketLoad.get(bucket) ?? 0) + 1);
    }
    return "added";
  }

  /** The warnings this list deserves (cap reached, too many unindexed). */
  warnings(listKey: string): string[] {
    const out: string[] = [];
    if (this.dropped > 0) {
      out.push(
        `list ${listKey}: ${this.dropped} regular expressions over the cap of ` +
          `${this.hardCap} per list were dropped`,
      );
    }
    if (this.unindexed > UNINDEXED_WARN_THRESHOLD) {
      out.push(
        `list ${listKey}: ${this.unindexed} regular expressions have no literal of ` +
          `3+ characters that every match contains; each is tried on every query ` +
          `(more than ${UNINDEXED_WARN_THRESHOLD} slows lookups)`,
      );
    }
    return out;
  }

  data(): RegexData | null {
    if (this.sources.length === 0) return null;
    return {
      sources: this.sources,
      roles: this.roles,
      keys: this.keys,
      keyLengths: this.keyLengths,
    };
  }
}
