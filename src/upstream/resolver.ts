/**
 * Every upstream group of the configuration, ready to forward: the entry
 * point of `src/upstream/` (types.ts's {@linkcode Resolver}). A server named
 * in several groups is one endpoint, so its pooled connection and its score
 * are shared.
 */
import type { Logger } from "../log/logger.ts";
import type { UpstreamsSettings } from "../pipeline/settings.ts";
import { createBootstrap } from "./bootstrap.ts";
import { UpstreamEndpoint } from "./endpoint.ts";
import { UpstreamGroup } from "./group.ts";
import {
  parseUpstreamServer,
  type UpstreamServer,
} from "../config/upstream_server.ts";
import { createTransport, type TransportFactory } from "./transport_factory.ts";
import type { Resolver } from "./types.ts";
import {
  type UpstreamCounters,
  workerUpstreamCounters,
} from "./upstream_counters.ts";

/** What a resolver needs besides the settings. */
export interface ResolverOptions {
  logger: Logger;
  /** Extra trusted CA certificates (PEM) for DoT and DoH. */
  caCerts?: string[];
  /** Clock for bootstrap TTLs and score decay (ms). @default Date.now */
  now?: () => number;
  /** Uniform in [0, 1) for random and rtt_weighted. @default Math.random */
  random?: () => number;
  /** Makes transports; tests pass scripted ones. @default createTransport */
  createTransport?: TransportFactory;
  /** Time a bootstrap server gets to answer (ms). @default 2000 */
  bootstrapTimeoutMs?: number;
  /**
   * Where every group counts its attempts per server; it outlives this
   * resolver. @default workerUpstreamCounters (this worker's)
   */
  counters?: UpstreamCounters;
}

/**
 * Builds the groups of `settings` (servers parsed now, connections opened
 * on first use).
 *
 * @throws {Error} naming the group and entry when a server string, a
 *   bootstrap server or a timeout cannot be used
 */
export function createResolver(
  settings: UpstreamsSettings,
  opts: ResolverOptions,
): Resolver & { readonly groups: ReadonlyMap<string, UpstreamGroup> } {
  const now = opts.now ?? Date.now;
  const bootstrap = createBootstrap({
    servers: settings.bootstrap,
    now,
    ...(opts.bootstrapTimeoutMs === undefined
      ? {}
      : { timeoutMs: opts.bootstrapTimeoutMs }),
  });
  const endpointDeps = {
    createTransport: opts.createTransport ?? createTransport,
    bootstrap,
    now,
    ...(opts.caCerts === undefined ? {} : { caCerts: opts.caCerts }),
  };
  const endpoints = new Map<string, UpstreamEndpoint>();
  const endpointFor = (server: UpstreamServer) => {
    const key = endpointKey(server);
    let endpoint = endpoints.get(key);
    if (endpoint === undefined) {
      endpoint = new UpstreamEndpoint(server, endpointDeps);
      endpoints.set(key, endpoint);
    }
    return endpoint;
  };

  const groups = new Map<string, UpstreamGroup>();
  for (const [name, group] of Object.entries(settings.groups)) {
    const where = `upstreams.groups.${name}`;
    const servers = group.servers.map((text, i) => {
      try {
        return endpointFor(parseUpstreamServer(text));
      } catch (error) {
        throw new Error(`Cannot use ${where}.servers[${i}]`, { cause: error });
      }
    });
    groups.set(
      name,
      new UpstreamGroup({
        name,
        strategy: group.strategy,
        timeoutMs: group.timeout,
        endpoints: servers,
        counters: opts.counters ?? workerUpstreamCounters,
        ...(opts.random === undefined ? {} : { random: opts.random }),
      }),
    );
  }
  opts.logger.debug("Upstream groups ready", {
    groups: [...groups.keys()].join(","),
    servers: endpoints.size,
  });

  const waiting = new WaitingQueries(settings);
  return {
    groups,
    async resolve(groupName, request) {
      const group = groups.get(groupName);
      if (group === undefined) {
        return {
          ok: false,
          reason: "unknown_group",
          detail: `unknown upstream group "${groupName}"`,
        };
      }
      const busy = waiting.enter(groupName);
      if (busy !== undefined) {
        return { ok: false, reason: "busy", detail: busy };
      }
      try {
        return await group.resolve(request);
      } catch (error) {
        // A bug, not an upstream failure; the contract says resolve never throws.
        opts.logger.error("Upstream group failed", {
          group: groupName,
          error,
        });
        return { ok: false, reason: "error", detail: String(error) };
      } finally {
        waiting.leave(groupName);
      }
    },
    async close() {
      // Attempts given up on still close their own sockets; let them.
      await Promise.all([...groups.values()].map((g) => g.settled()));
      await Promise.all([...endpoints.values()].map((e) => e.close()));
    },
  };
}

/**
 * The queries waiting on each group and on all of them, bounded by
 * `maxInFlight`: a flood of unique names through one group would otherwise
 * hold a socket, a timer and a pending answer per query until the group's
 * timeout, and take the room every other group needs.
 */
class WaitingQueries {
  readonly #byGroup = new Map<string, number>();
  #total = 0;
  readonly #settings: UpstreamsSettings;

  constructor(settings: UpstreamsSettings) {
    this.#settings = settings;
  }

  /** Counts a query in, or says why it may not wait. */
  enter(group: string): string | undefined {
    const limit = this.#settings.groups[group]?.maxInFlight;
    const now = this.#byGroup.get(group) ?? 0;
    if (limit !== undefined && now >= limit) {
      return `upstream group "${group}" has ${limit} queries waiting (upstreams.groups.${group}.maxInFlight)`;
    }
    if (this.#total >= this.#settings.maxInFlight) {
      return `${this.#settings.maxInFlight} queries are waiting on upstream groups (upstreams.maxInFlight)`;
    }
    this.#byGroup.set(group, now + 1);
    this.#total++;
    return undefined;
  }

  leave(group: string): void {
    this.#byGroup.set(group, (this.#byGroup.get(group) ?? 1) - 1);
    this.#total--;
  }
}

/** One key per distinct server, however it was written. */
function endpointKey(s: UpstreamServer): string {
  return [s.scheme, s.host, s.port, s.path ?? "", s.tlsServerName ?? ""]
    .join("|");
}
