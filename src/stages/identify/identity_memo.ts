/**
 * The identify stage's memo: what a client (address, DoT/DoH client ID)
 * was found to be, so that a repeat query costs two Map lookups and no
 * allocation. Keys are never concatenated (that would allocate a string per
 * query): clients without an ID sit in one map by address, clients with one
 * in a map of maps. Bounded: when full it is cleared and refills from the
 * clients actually asking.
 */
import type { PolicyDecision } from "../../blocking/blocking_snapshot.ts";

/** One client's groups and decision, shared by all its queries. */
export interface Identity {
  /** Frozen. */
  readonly groups: string[];
  readonly policy: PolicyDecision;
  /** Epoch ms after which it must be worked out again (Infinity: never by itself). */
  readonly expires: number;
}

export class IdentityMemo {
  readonly #byAddress = new Map<string, Identity>();
  readonly #byAddressAndId = new Map<string, Map<string, Identity>>();
  readonly #maxEntries: number;
  #size = 0;

  constructor(maxEntries = 10_000) {
    this.#maxEntries = Math.max(1, maxEntries);
  }

  get size(): number {
    return this.#size;
  }

  get(address: string, clientId: string | undefined): Identity | undefined {
    if (clientId === undefined) return this.#byAddress.get(address);
    return this.#byAddressAndId.get(address)?.get(clientId);
  }

  set(address: string, clientId: string | undefined, identity: Identity): void {
    if (this.get(address, clientId) !== undefined) {
      this.#put(address, clientId, identity); // a replacement: no growth
      return;
    }
    if (this.#size >= this.#maxEntries) this.clear();
    this.#put(address, clientId, identity);
    this.#size++;
  }

  #put(address: string, clientId: string | undefined, identity: Identity) {
    if (clientId === undefined) {
      this.#byAddress.set(address, identity);
      return;
    }
    let byId = this.#byAddressAndId.get(address);
    if (byId === undefined) this.#byAddressAndId.set(address, byId = new Map());
    byId.set(clientId, identity);
  }

  /** Drops every entry of `address` (with or without a client ID). */
  forgetAddress(address: string): void {
    if (this.#byAddress.delete(address)) this.#size--;
    const byId = this.#byAddressAndId.get(address);
    if (byId !== undefined) {
      this.#size -= byId.size;
      this.#byAddressAndId.delete(address);
    }
  }

  clear(): void {
    this.#byAddress.clear();
    this.#byAddressAndId.clear();
    this.#size = 0;
  }
}
