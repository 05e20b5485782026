/**
 * Clients' PTR names for `hostname` entries of ClientGroups, looked up in
 * the background: the query that finds no name never waits for one; it is
 * identified without it, and `onResult` tells the stage to forget its
 * memoised decision for that address when the answer arrives.
 *
 * Names are kept 1 h, failures and "no PTR" 5 min; at most one lookup per
 * address is in flight, and at most `maxInFlight` overall (a flood of new,
 * perhaps spoofed, source addresses must not become a flood of lookups).
 * An expired name keeps being used while its refresh is in flight, so a
 * client does not drop out of its group once an hour.
 */
import type { Logger } from "../../log/logger.ts";

export type ResolvePtr = (address: string) => Promise<string | null>;

export interface PtrCacheOptions {
  resolvePtr: ResolvePtr;
  now: () => number;
  /** Called after a lookup for `address` settled and its result is stored. */
  onResult: (address: string) => void;
  logger?: Logger;
  /** @default 10_000 */
  maxEntries?: number;
  /** @default 256 */
  maxInFlight?: number;
}

/** What is known about an address's name right now. */
export interface PtrLookup {
  /** Lowercase, without trailing dot; null when unknown or there is none. */
  name: string | null;
  /**
   * Until when this answer holds (epoch ms). Infinity while a lookup is in
   * flight: its result arrives through `onResult`.
   */
  until: number;
}

export const POSITIVE_TTL_MS = 60 * 60_000;
export const NEGATIVE_TTL_MS = 5 * 60_000;
/** How soon to try again when too many lookups were in flight to start one. */
export const BUSY_RETRY_MS = 10_000;

interface CachedName {
  name: string | null;
  expires: number;
}

export class PtrCache {
  readonly #opts: PtrCacheOptions;
  readonly #maxEntries: number;
  readonly #maxInFlight: number;
  /** Insertion order is age order: the first key is the oldest. */
  readonly #names = new Map<string, CachedName>();
  readonly #inFlight = new Set<string>();

  constructor(opts: PtrCacheOptions) {
    this.#opts = opts;
    this.#maxEntries = Math.max(1, opts.maxEntries ?? 10_000);
    this.#maxInFlight = Math.max(1, opts.maxInFlight ?? 256);
  }

  /** Lookups started and not yet settled. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  /** The name known for `address`; starts a background lookup when it is missing or stale. */
  lookup(address: string): PtrLookup {
    const at = this.#opts.now();
    const cached = this.#names.get(address);
    if (cached !== undefined && at < cached.expires) {
      return { name: cached.name, until: cached.expires };
    }
    const name = cached?.name ?? null;
    if (this.#inFlight.has(address)) return { name, until: Infinity };
    if (this.#inFlight.size >= this.#maxInFlight) {
      return { name, until: at + BUSY_RETRY_MS };
    }
    this.#start(address);
    return { name, until: Infinity };
  }

  #start(address: string): void {
    this.#inFlight.add(address);
    let pending: Promise<string | null>;
    try {
      pending = this.#opts.resolvePtr(address);
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (name) => this.#store(address, normalize(name)),
      (error) => {
        this.#opts.logger?.debug("PTR lookup failed", { address, error });
        this.#store(address, null);
      },
    );
  }

  #store(address: string, name: string | null): void {
    this.#inFlight.delete(address);
    const ttl = name === null ? NEGATIVE_TTL_MS : POSITIVE_TTL_MS;
    this.#names.delete(address); // re-inserted as the youngest
    if (this.#names.size >= this.#maxEntries) {
      this.#names.delete(this.#names.keys().next().value!);
    }
    this.#names.set(address, { name, expires: this.#opts.now() + ttl });
    try {
      this.#opts.onResult(address);
    } catch (error) {
      this.#opts.logger?.error("identify: PTR result hook failed", { error });
    }
  }
}

function normalize(name: unknown): string | null {
  if (typeof name !== "string") return null;
  const trimmed = name.trim().toLowerCase().replace(/\.$/, "");
  return trimmed === "" ? null : trimmed;
}
