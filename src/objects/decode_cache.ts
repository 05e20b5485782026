/**
 * Remembers each file's last text and what it decoded to, so an unchanged
 * poll skips YAML parsing: parsing dominated the steady-state poll (about
 * 80 ms of 90 for 500 objects, bench/objects_bench.ts). Results are handed out
 * as copies because later steps fill in defaults on them.
 */
import type { DecodeResult } from "./decode.ts";

export class DecodeCache {
  readonly #entries = new Map<string, { text: string; result: DecodeResult }>();

  decode(
    source: string,
    text: string,
    decode: () => DecodeResult,
  ): DecodeResult {
    const hit = this.#entries.get(source);
    if (hit && hit.text === text) return structuredClone(hit.result);
    const result = decode();
    this.#entries.set(source, { text, result: structuredClone(result) });
    return result;
  }

  /** Forgets files that were not read in the last pass. */
  retain(sources: Set<string>): void {
    for (const name of this.#entries.keys()) {
      if (!sources.has(name)) this.#entries.delete(name);
    }
  }
}
