/**
 * Keeps the stage's Resolver across snapshots: built from the upstreams
 * settings on first use, replaced when they change, and the replaced one
 * closed once its last query in flight has settled.
 */
import type { Logger } from "../../log/logger.ts";
import type { UpstreamsSettings } from "../../pipeline/settings.ts";
import type { Resolver } from "../../upstream/types.ts";

/** A Resolver, or how to build one from the settings. */
export type ResolverSource =
  | Resolver
  | ((settings: UpstreamsSettings) => Resolver);

/** One resolver and the queries it still has in flight. */
export interface HeldResolver {
  readonly resolver: Resolver;
  pending: number;
}

interface Built extends HeldResolver {
  /** The settings it was built from, as JSON (see resolverFor). */
  key: string;
  settings: UpstreamsSettings;
  retired: boolean;
  closed: boolean;
}

/** Hands out the resolver for a settings object; see the module comment. */
export class ResolverHolder {
  readonly #source: ResolverSource;
  readonly #logger: Logger;
  #current: Built | undefined;
  readonly #closing = new Set<Promise<void>>();
  /** Retired resolvers still waiting for queries in flight. */
  readonly #draining = new Set<Built>();

  constructor(source: ResolverSource, logger: Logger) {
    this.#source = source;
    this.#logger = logger;
  }

  /**
   * The resolver for `settings`. Every snapshot a worker receives is a
   * structured clone, so a new settings object does not mean new settings:
   * the resolver (its connections and RTT scores) is kept while the JSON is
   * the same, which costs one stringify per snapshot, not per query.
   */
  resolverFor(settings: UpstreamsSettings): HeldResolver {
    const source = this.#source;
    if (typeof source !== "function") {
      return { resolver: source, pending: 0 };
    }
    const current = this.#current;
    if (current?.settings === settings) return current;
    const key = JSON.stringify(settings);
    if (current?.key === key) {
      current.settings = settings;
      return current;
    }
    const built: Built = {
      resolver: source(settings),
      pending: 0,
      key,
      settings,
      retired: false,
      closed: false,
    };
    if (current !== undefined) this.#retire(current);
    this.#current = built;
    return built;
  }

  /** Counts a query out; closes a retired resolver after its last one. */
  settled(held: HeldResolver): void {
    held.pending--;
    const built = held as Partial<Built>;
    if (built.retired === true && held.pending === 0) {
      this.#close(built as Built);
    }
  }

  /**
   * Closes every resolver this holder built, queries in flight or not (a
   * Resolver passed in is the caller's to close), and waits for them.
   */
  async close(): Promise<void> {
    const built = [...this.#draining];
    if (this.#current !== undefined) built.push(this.#current);
    this.#current = undefined;
    this.#draining.clear();
    for (const b of built) {
      b.retired = true;
      this.#close(b);
    }
    await Promise.all(this.#closing);
  }

  #retire(built: Built): void {
    built.retired = true;
    if (built.pending === 0) this.#close(built);
    else this.#draining.add(built);
  }

  #close(built: Built): void {
    if (built.closed) return;
    built.closed = true;
    this.#draining.delete(built);
    const closing = built.resolver.close().catch((error: unknown) => {
      this.#logger.warn("Cannot close the replaced upstream resolver", {
        error,
      });
    }).finally(() => this.#closing.delete(closing));
    this.#closing.add(closing);
  }
}
