/**
 * Where names that no primary zone answers go, remembered per snapshot: a
 * cache hit or a forwarded query then costs one Map lookup in the
 * authoritative stage instead of a memo key and a zone lookup (which makes
 * a string per label of the name) on every query.
 */

/** A name covered by a forward zone, or by no zone at all (`NO_ZONE`). */
export interface ZoneRoute {
  /** The forward zone covering the name; undefined for no zone. */
  zone: string | undefined;
  upstreamGroup: string | undefined;
}

/** The route of a name that no zone covers. */
export const NO_ZONE: ZoneRoute = Object.freeze({
  zone: undefined,
  upstreamGroup: undefined,
});

/** @default routes kept per snapshot */
export const DEFAULT_ROUTE_ENTRIES = 100_000;

/**
 * Routes by lowercase name, bounded like the answer memo: two generations,
 * the older dropped when the recent one fills. Which zone covers a name
 * depends on the name alone, except for DS at a zone apex (RFC 4035
 * §3.1.4.1), so callers neither read nor keep routes for DS queries.
 */
export class ZoneRoutes {
  #recent = new Map<string, ZoneRoute>();
  #older = new Map<string, ZoneRoute>();
  readonly #generation: number;

  constructor(limit: number = DEFAULT_ROUTE_ENTRIES) {
    this.#generation = Math.max(1, Math.floor(limit / 2));
  }

  get size(): number {
    return this.#recent.size + this.#older.size;
  }

  get(name: string): ZoneRoute | undefined {
    const route = this.#recent.get(name);
    if (route !== undefined) return route;
    const old = this.#older.get(name);
    if (old !== undefined) this.set(name, old);
    return old;
  }

  set(name: string, route: ZoneRoute): void {
    this.#older.delete(name);
    if (this.#recent.size >= this.#generation && !this.#recent.has(name)) {
      this.#older = this.#recent;
      this.#recent = new Map();
    }
    this.#recent.set(name, route);
  }
}
