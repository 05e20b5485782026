/**
 * Counts of inline BlockList sources, cached across passes: a pass runs on
 * every BlockList change, and re-parsing an unchanged 1 MB inline text each
 * time would be wasted work. Entries not used during a pass are dropped.
 */
import type { ListFormat } from "../blocking/types.ts";
import { countRules } from "../blocking/list_counts.ts";
import type { SourceCounts } from "../blocking/list_meta.ts";

type Counted = SourceCounts | { error: string };

export class InlineCounts {
  // Keyed by the text itself: the mirror hands out the same string until the
  // object changes, and V8 caches a string's hash, so lookups stay cheap.
  #cache = new Map<string, Map<ListFormat, Counted>>();
  #used = new Set<string>();

  beginPass(): void {
    this.#used.clear();
  }

  count(text: string, format: ListFormat): Counted {
    this.#used.add(text);
    let byFormat = this.#cache.get(text);
    if (byFormat === undefined) this.#cache.set(text, byFormat = new Map());
    let counted = byFormat.get(format);
    if (counted === undefined) {
      try {
        counted = countRules(text, format);
      } catch (err) {
        counted = { error: err instanceof Error ? err.message : String(err) };
      }
      byFormat.set(format, counted);
    }
    return counted;
  }

  /** Forgets texts no BlockList used in this pass. */
  endPass(): void {
    for (const text of this.#cache.keys()) {
      if (!this.#used.has(text)) this.#cache.delete(text);
    }
  }
}
