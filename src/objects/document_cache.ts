/**
 * Remembers, per declared object, the hash of its document and the stored
 * resourceVersion it last agreed with. When both are unchanged a poll skips
 * validation and comparison; any store write moves the resourceVersion and
 * takes the full path again.
 */
import { hexOf } from "../dns/hex.ts";

interface Agreement {
  hash: string;
  resourceVersion: string;
}

export class DocumentCache {
  readonly #entries = new Map<string, Agreement>();

  /** True when `hash` agreed with this very resourceVersion before. */
  agrees(
    key: string,
    hash: string,
    resourceVersion: string | undefined,
  ): boolean {
    const a = this.#entries.get(key);
    return a !== undefined && resourceVersion !== undefined &&
      a.hash === hash &&
      a.resourceVersion === resourceVersion;
  }

  remember(
    key: string,
    hash: string,
    resourceVersion: string | undefined,
  ): void {
    if (resourceVersion === undefined) this.#entries.delete(key);
    else this.#entries.set(key, { hash, resourceVersion });
  }

  /** Drops every entry whose key is not in `keep`. */
  retain(keep: ReadonlySet<string>): void {
    for (const k of this.#entries.keys()) {
      if (!keep.has(k)) this.#entries.delete(k);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** SHA-256 of the value's JSON with object keys sorted, hex. */
export async function hashDocument(value: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(value));
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return hexOf(new Uint8Array(digest));
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      sorted[k] = (v as Record<string, unknown>)[k];
    }
    return sorted;
  });
}
