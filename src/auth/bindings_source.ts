/**
 * The role bindings in force: the configuration's `rbac.bindings` and the
 * RoleBinding objects made through the API, read from the Store at most
 * every few seconds (and at once after the API changed one).
 */
import type { Binding } from "../rbac/binding.ts";
import type { Store } from "../store/store.ts";

/** How long a read of the RoleBinding objects is reused. */
const REUSE_MS = 5_000;

/** The bindings, cached. */
export class BindingsSource {
  #objects: Binding[] = [];
  #readAt = -Infinity;
  #reading: Promise<Binding[]> | undefined;

  constructor(
    private readonly store: Store,
    private readonly configured: readonly Binding[],
    private readonly now: () => number = Date.now,
  ) {}

  /** Every binding in force now. */
  async bindings(): Promise<readonly Binding[]> {
    if (this.now() - this.#readAt > REUSE_MS) {
      this.#reading ??= this.#read().finally(() => (this.#reading = undefined));
      this.#objects = await this.#reading;
    }
    return [...this.configured, ...this.#objects];
  }

  /** The API changed a RoleBinding: read them again before the next check. */
  changed(): void {
    this.#readAt = -Infinity;
  }

  async #read(): Promise<Binding[]> {
    const out: Binding[] = [];
    let token: string | undefined;
    do {
      const page = await this.store.list("RoleBinding", {
        limit: 500,
        ...(token !== undefined && { continue: token }),
      });
      for (const item of page.items) out.push(item.spec as Binding);
      token = page.continue;
    } while (token !== undefined);
    this.#readAt = this.now();
    return out;
  }
}
