/**
 * Starts the Do53 listeners: one Worker per (address, protocol), each with
 * its own socket and its own pipeline (docs/design.md#threads). The main
 * thread only starts, feeds snapshots to, and stops them.
 */
import type { PackedQueryEvents } from "../pipeline/query_event_pack.ts";
import type { Transport } from "../pipeline/handler.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import type { Logger } from "../log/logger.ts";
import { parseListenAddress } from "./listen_address.ts";
import {
  type ListenerSet,
  type ListenerSpec,
  newListenerSet,
  replaceFailed,
  stopListenerSet,
} from "./listener_restart.ts";
import {
  describeBindError,
  explainDualStackClash,
  ListenerError,
} from "./listener_error.ts";
import {
  closeUdpSocket,
  type LibcUdpSocket,
  openUdpSocket,
} from "./libc_udp.ts";
import { TCP_IDLE_TIMEOUT_MS, TCP_MAX_CONNECTIONS } from "./tcp.ts";
import {
  type CertificatePair,
  type CounterDeltas,
  emptySocketCounters,
} from "./worker_messages.ts";
import { emptyCacheStats } from "../pipeline/cache_stats.ts";
import type { ProxyTrustInit } from "./proxy_trust.ts";
import type { FlushOptions } from "../pipeline/flushed_names.ts";
import type { ExplainedQuestion } from "../pipeline/data_plane.ts";
import type { Explanation } from "../pipeline/explanation.ts";
import { mergeEntries, type SerializedEntry } from "../pipeline/cache_dump.ts";
import {
  type BoundAddress,
  type ListenerWorker,
  startListenerWorker,
} from "./listener_worker_client.ts";

export type { BoundAddress } from "./listener_worker_client.ts";

/** The real Worker module (listed here so `deno compile --include` can name it). */
const WORKER_ENTRY_URL = new URL("./worker_entry.ts", import.meta.url).href;

/** One `listeners.dns` entry of the config, or one DoT, DoH or DoQ listener. */
export interface DnsListenerConfig {
  /** "0.0.0.0:53", "[::1]:5353", …; port 0 picks an ephemeral port. */
  address: string;
  protocols: Transport[];
  /** TLS listeners: the certificate now and each new one (src/tls/). */
  certificates?: CertificateFeed;
  /** DoH: the endpoint's path and the proxies believed about the client. */
  doh?: { path: string; trustedProxies: string[] };
  /** DoQ: connections served at once. */
  quicMaxConnections?: number;
}

/** A certificate that may change (certificate_reloader.ts). */
export interface CertificateFeed {
  current(): { pair: CertificatePair };
  /** Calls `listener` with each new pair; returns the unsubscribe. */
  onChange(listener: (next: { pair: CertificatePair }) => void): () => void;
}

export interface DnsListenersOptions {
  listeners: DnsListenerConfig[];
  nodeName: string;
  version: string;
  logger: Logger;
  /** @default 10000 */
  tcpIdleTimeoutMs?: number;
  /** @default 1000 */
  tcpMaxConnections?: number;
  /**
   * Most TCP queries waited on at once per worker, over all its
   * connections; beyond, they are handled `overloaded`. @default 1000
   */
  tcpMaxInFlight?: number;
  /**
   * Called about once a second per worker with what it counted. For a
   * worker that died it is called once more with an empty cache (its
   * entries are gone); the worker started in its place has the same `from`
   * (`socket` included) and reports its own.
   */
  onCounters?: (deltas: CounterDeltas, from: BoundAddress) => void;
  /**
   * Called about every 250 ms per worker with its query events, packed
   * (`unpackQueryEvents` gives them as objects), and how many it dropped.
   * Without it workers record no events. `events.release()` once done with
   * the arrays hands them back to the worker to fill again.
   */
  onEvents?: (events: PackedQueryEvents, dropped: number) => void;
  /**
   * A NOTIFY (RFC 1996) for secondary zone `zone` came from `from`, one of
   * its primaries, and was answered.
   */
  onNotify?: (zone: string, from: string) => void;
  /** Most UDP queries in flight per socket. @default 1000 */
  udpMaxInFlight?: number;
  /** How long a graceful stop may take before the worker is terminated. @default 10000 */
  stopTimeoutMs?: number;
  /** @default 1000 */
  countersIntervalMs?: number;
  /** The Worker module; tests pass one with a small handler. @default worker_entry.ts */
  workerUrl?: string | URL;
  /**
   * Sockets (each in its own worker) per address for TCP, and for UDP
   * with `ffiSockets`; 0 is one per CPU (`listeners.sockets`). Deno's own
   * UDP socket cannot share a port, so standard UDP has one. @default 1
   */
  sockets?: number;
  /** UDP on libc sockets through FFI (libc_udp.ts). @default false */
  ffiSockets?: boolean;
  /** `listeners.clientIdDomain`: DoT and DoQ server names under it name the client. */
  clientIdDomain?: string;
  /**
   * `listeners.proxyProtocolFrom` and the secret: UDP, TCP and DoT
   * listeners take PROXYv2 headers from those peers (proxy_trust.ts).
   */
  proxy?: ProxyTrustInit;
}

/** The running listeners. */
export interface DnsListeners {
  /** Posts the snapshot to every worker. */
  setSnapshot(snapshot: Snapshot): void;
  /**
   * Resolves once every worker answers from the snapshot of `version` or a
   * later one, or after `timeoutMs` (a worker restarting takes the latest
   * snapshot when it starts).
   */
  whenServed(version: number, timeoutMs?: number): Promise<void>;
  /**
   * Lameduck: the health check (`health.kudurru.internal.`) fails from now
   * on, so dnsdist and keepalived move away, while every other query is
   * still answered until the listeners stop.
   */
  enterLameduck(): void;
  /** The bound addresses, real ports included (tests bind port 0). */
  addresses(): BoundAddress[];
  /**
   * Listeners not serving now ("addr/transport: why"): a worker that died
   * and is restarting (listener_restart.ts).
   */
  down(): string[];
  /** Posts a cache dump (from local.db) to every UDP and TCP worker. */
  importCache(entries: SerializedEntry[]): void;
  /**
   * Drops cached answers in every worker (all, or those for `name`, with
   * `subtree` for the names below it too); resolves to how many went,
   * summed over the workers.
   */
  flushCache(name?: string, opts?: FlushOptions): Promise<number>;
  /**
   * How `question` from `client` would be answered now, by the first
   * worker that can say (each worker has its own cache, so another may
   * have cached otherwise); undefined when none can.
   */
  explain(
    question: ExplainedQuestion,
    client: string,
  ): Promise<Explanation | undefined>;
  /** Graceful: stop accepting, finish the queries in flight, close. */
  stop(): Promise<void>;
  /**
   * `stop()`, resolving to the workers' cache dumps merged (for a key held
   * by several workers, the entry stored last).
   */
  stopWithCacheDump(): Promise<SerializedEntry[]>;
}

/**
 * Starts every listener. When one cannot bind, the ones already started are
 * stopped and a ListenerError says why and what to do.
 */
export async function startDnsListeners(
  opts: DnsListenersOptions,
): Promise<DnsListeners> {
  const set = newListenerSet();
  const results = await Promise.allSettled(
    opts.listeners.map((l) => startAddress(l, opts, set)),
  );
  const failed = results.find((r) => r.status === "rejected");
  if (failed) {
    await stopListenerSet(set);
    throw explainDualStackClash(opts.listeners, failed.reason);
  }
  for (const w of set.workers) {
    opts.logger.info("Listening for DNS", { ...w.bound });
  }
  // A new certificate goes to every worker of the listeners that serve it
  // (a worker started later takes the current one in its start message).
  for (const config of opts.listeners) {
    const feed = config.certificates;
    if (feed === undefined) continue;
    const unsubscribe = feed.onChange(({ pair }) => {
      for (const w of set.workers) {
        if (set.configOf.get(w) === config) w.postCertificate(pair);
      }
    });
    set.afterStop.push(unsubscribe);
  }
  return {
    setSnapshot(snapshot) {
      set.snapshot = snapshot;
      for (const w of set.workers) w.post(snapshot);
    },
    async whenServed(version, timeoutMs = 30_000) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all(set.workers.map((w) => w.applied(version))),
        new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
      ]);
      clearTimeout(timer);
    },
    enterLameduck() {
      set.lameduck = true;
      for (const w of set.workers) w.enterLameduck();
    },
    addresses: () => set.workers.map((w) => ({ ...w.bound })),
    down: () => [...set.down].map(([where, why]) => `${where}: ${why}`),
    importCache(entries) {
      if (entries.length === 0) return;
      for (const w of set.workers) {
        const { transport } = w.bound;
        if (transport === "udp" || transport === "tcp") w.postCache(entries);
      }
    },
    async flushCache(name, opts) {
      const removed = await Promise.all(
        set.workers.map((w) => w.flushCache(name, opts)),
      );
      return removed.reduce((sum, n) => sum + n, 0);
    },
    async explain(question, client) {
      for (const worker of set.workers) {
        const explanation = await worker.explain(question, client);
        if (explanation !== undefined) return explanation;
      }
      return undefined;
    },
    async stop() {
      await stopListenerSet(set);
    },
    async stopWithCacheDump() {
      return mergeEntries(await stopListenerSet(set));
    },
  };
}

/**
 * Starts the protocols of one address in turn, and their sockets, so that
 * with port 0 the later ones reuse the port the first one got (UDP and TCP
 * on one port, as a client expects).
 */
async function startAddress(
  config: DnsListenerConfig,
  opts: DnsListenersOptions,
  set: ListenerSet,
): Promise<void> {
  const { hostname, port } = parseListenAddress(config.address);
  let boundPort = port;
  for (const transport of new Set(config.protocols)) {
    const count = socketCount(transport, opts);
    if (count > 1 && boundPort !== 0) {
      checkPortFree(config.address, hostname, boundPort, transport, opts);
    }
    for (let i = 0; i < count; i++) {
      const worker = await startWorker(set, opts, config, {
        address: hostname,
        port: boundPort,
        transport,
      }, count > 1 ? i : undefined);
      set.workers.push(worker);
      boundPort = worker.bound.port;
    }
  }
}

/**
 * Binds the port alone for a moment: sockets that share a port
 * (SO_REUSEPORT) would otherwise share it with another server started
 * the same way (a second kudurru), silently splitting the traffic.
 */
function checkPortFree(
  configured: string,
  hostname: string,
  port: number,
  transport: Transport,
  opts: Pick<DnsListenersOptions, "ffiSockets">,
): void {
  try {
    if (transport === "udp" && opts.ffiSockets) {
      closeUdpSocket(openUdpSocket(hostname, port).fd);
    } else if (transport === "tcp") {
      Deno.listen({ hostname, port }).close();
    }
  } catch (err) {
    throw bindError(configured, transport, err);
  }
}

function bindError(
  configured: string,
  transport: Transport,
  err: unknown,
): ListenerError {
  const e = err instanceof Error ? err : new Error(String(err));
  return new ListenerError(
    describeBindError(configured, transport, e.name, e.message),
    e.name,
    { cause: err },
  );
}

/** The transports dnsdist can pass clients to with PROXYv2. */
const PROXIED = new Set<Transport>(["udp", "tcp", "dot"]);

/** Most sockets per address that `listeners.sockets: 0` (one per CPU) gives. */
export const MAX_SOCKETS_PER_CPU_SETTING = 8;

/** How many sockets (and workers) serve `transport` on one address. */
export function socketCount(
  transport: Transport,
  opts: Pick<DnsListenersOptions, "sockets" | "ffiSockets">,
): number {
  if (transport === "udp" && !opts.ffiSockets) return 1;
  // DoT, DoH and DoQ: one worker per listener.
  if (transport !== "udp" && transport !== "tcp") return 1;
  const sockets = opts.sockets ?? 1;
  if (sockets > 0) return sockets;
  // Each is a worker with its own pipeline and cache: not 64 on 64 CPUs.
  return Math.min(navigator.hardwareConcurrency, MAX_SOCKETS_PER_CPU_SETTING);
}

/**
 * Starts one worker; one that dies later is replaced (listener_restart.ts),
 * on the same libc socket when it had one (`ffiSocket`).
 */
async function startWorker(
  set: ListenerSet,
  opts: DnsListenersOptions,
  config: DnsListenerConfig,
  listener: ListenerSpec,
  socket: number | undefined,
  reuse?: LibcUdpSocket,
): Promise<ListenerWorker> {
  const configured = config.address;
  // The worker's own handle, for its callbacks (set once it has started).
  const own: { worker?: ListenerWorker } = {};
  const shared = socketCount(listener.transport, opts) > 1;
  const ffiSocket = listener.transport === "udp" && opts.ffiSockets
    ? reuse ?? openFfiSocket(set, configured, listener, shared)
    : undefined;
  const worker = await startListenerWorker({
    workerUrl: String(opts.workerUrl ?? WORKER_ENTRY_URL),
    configured,
    ...(socket !== undefined && { socket }),
    logger: opts.logger,
    stopTimeoutMs: opts.stopTimeoutMs ?? 10_000,
    ...(opts.onCounters ? { onCounters: opts.onCounters } : {}),
    ...(opts.onEvents ? { onEvents: opts.onEvents } : {}),
    ...(opts.onNotify ? { onNotify: opts.onNotify } : {}),
    ...(set.snapshot !== undefined && { snapshot: set.snapshot }),
    // Importing skips an entry older than one already held (cache_dump.ts).
    onCacheShare: (entries) => {
      for (const other of set.workers) {
        if (other !== own.worker) other.postSharedCache(entries);
      }
    },
    onFailure: (message) => {
      if (own.worker === undefined) return;
      // Its cache died with it: kudurru_cache_entries must not keep
      // counting it while the listener restarts (or keeps failing).
      opts.onCounters?.(
        { socket: emptySocketCounters(), cache: emptyCacheStats() },
        own.worker.bound,
      );
      replaceFailed(
        set,
        own.worker,
        message,
        (again) => startWorker(set, opts, config, again, socket, ffiSocket),
        opts.logger,
      );
    },
    start: {
      queryLog: opts.onEvents !== undefined,
      type: "start",
      listener,
      nodeName: opts.nodeName,
      version: opts.version,
      tcp: {
        idleTimeoutMs: opts.tcpIdleTimeoutMs ?? TCP_IDLE_TIMEOUT_MS,
        maxConnections: opts.tcpMaxConnections ?? TCP_MAX_CONNECTIONS,
        ...(opts.tcpMaxInFlight !== undefined &&
          { maxInFlight: opts.tcpMaxInFlight }),
      },
      ...(opts.udpMaxInFlight !== undefined
        ? { udpMaxInFlight: opts.udpMaxInFlight }
        : {}),
      ...(opts.countersIntervalMs !== undefined
        ? { countersIntervalMs: opts.countersIntervalMs }
        : {}),
      ...(shared && listener.transport === "tcp" && { reusePort: true }),
      ...(ffiSocket && { ffiSocket }),
      ...(config.certificates && { tls: config.certificates.current().pair }),
      ...(opts.clientIdDomain && { clientIdDomain: opts.clientIdDomain }),
      ...(opts.proxy && PROXIED.has(listener.transport) &&
        { proxy: opts.proxy }),
      ...(config.doh && { doh: config.doh }),
      ...(config.quicMaxConnections !== undefined &&
        { quicMaxConnections: config.quicMaxConnections }),
    },
  });
  own.worker = worker;
  set.configOf.set(worker, config);
  return worker;
}

/**
 * Opens the libc socket a UDP worker serves, closed once the set has
 * stopped (the main thread owns it: see libc_udp.ts); a failure says why
 * as a bind would.
 */
function openFfiSocket(
  set: ListenerSet,
  configured: string,
  listener: ListenerSpec,
  shared: boolean,
): LibcUdpSocket {
  let socket: LibcUdpSocket;
  try {
    socket = openUdpSocket(listener.address, listener.port, shared);
  } catch (err) {
    throw bindError(configured, "udp", err);
  }
  set.afterStop.push(() => closeUdpSocket(socket.fd));
  return socket;
}
