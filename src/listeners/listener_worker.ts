/**
 * The body of a listener Worker: receives `start`, builds its own data
 * plane (one pipeline instance per worker, pipeline/data_plane.ts), binds
 * its socket, swaps snapshots in and stops gracefully. worker_entry.ts runs
 * it with the standard chain; tests run it with small data planes.
 */
import type {
  DataPlane,
  DataPlaneFactory,
  ExplainedQuestion,
} from "../pipeline/data_plane.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import { SnapshotReceiver } from "./snapshot_post.ts";
import type { SerializedEntry } from "../pipeline/cache_dump.ts";
import {
  type CacheStats,
  cacheStatsDelta,
  emptyCacheStats,
} from "../pipeline/cache_stats.ts";
import { workerUpstreamCounters } from "../upstream/upstream_counters.ts";
import { createLogger } from "../log/logger.ts";
import {
  type CertificatePair,
  type CounterDeltas,
  emptySocketCounters,
  type WorkerReply,
  type WorkerRequest,
} from "./worker_messages.ts";
import { serveUdp } from "./udp.ts";
import { serveUdpFfi } from "./udp_ffi.ts";
import { serveTcp } from "./tcp.ts";
import { serveDot } from "./dot.ts";
import { ProxyTrust } from "./proxy_trust.ts";
import { paddingHandler } from "./padding_handler.ts";
import { serveDoq } from "./doq.ts";
import { serveDoh } from "./doh.ts";
import { type DoqStats, emptyDoqStats } from "./doq_stats.ts";

/** How often a worker posts its counter deltas. */
export const COUNTERS_INTERVAL_MS = 1000;
/** How often a worker posts its query events (its buffer holds 65,536). */
export const EVENTS_INTERVAL_MS = 250;

/** The worker global scope, typed narrowly (Deno types `self` as a window). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerReply, transfer?: Transferable[]): void;
}

type Server = {
  stop(answerWithinMs?: number): Promise<void>;
  readonly addr: Deno.NetAddr;
  /** TLS listeners: serve `pair` to new connections from now on. */
  setCertificate?(pair: CertificatePair): void | Promise<void>;
};

/** Transports whose answers are padded when the query asks (padding_handler.ts). */
const ENCRYPTED = new Set(["dot", "doh", "doq"]);

/** Transports whose connections carry answers of many messages (zone transfers). */
const STREAMING = new Set(["tcp", "dot", "doq"]);

/** Installs the message handler of a listener worker. */
export function runListenerWorker(createDataPlane: DataPlaneFactory): void {
  const scope = globalThis as unknown as WorkerScope;
  /** Posts `reply`; the buffers in `transfer` move to the main thread (no copy). */
  const post = (reply: WorkerReply, transfer?: Transferable[]) =>
    transfer === undefined
      ? scope.postMessage(reply)
      : scope.postMessage(reply, transfer);
  const counters = emptySocketCounters();
  let plane: DataPlane | null = null;
  let server: Server | null = null;
  let countersTimer: ReturnType<typeof setInterval> | undefined;
  let eventsTimer: ReturnType<typeof setInterval> | undefined;
  let earlySnapshot: Snapshot | null = null;
  const snapshots = new SnapshotReceiver();
  let earlyCache: SerializedEntry[] | null = null;
  let lameduckBeforeStart = false;

  /** A DoQ listener's counts, posted and reset with the others. */
  const doqStats: DoqStats = emptyDoqStats();

  let lastCache = emptyCacheStats();
  /**
   * The first cache delta carries the size even when it is 0: a worker
   * started in place of one that died reports its empty cache, which
   * replaces the dead one's size in kudurru_cache_entries.
   */
  let cacheSizePosted = false;
  let stopping = false;

  function postCounters() {
    const deltas: CounterDeltas = { socket: { ...counters } };
    Object.assign(counters, emptySocketCounters());
    if (plane) {
      deltas.handler = plane.counters.drain();
      const detail = plane.counters.drainDetail?.();
      if (detail !== undefined && !isQuiet(detail)) deltas.detail = detail;
    }
    const cache = cacheDelta();
    if (cache !== undefined) deltas.cache = cache;
    // This worker's resolvers count here (see upstream_counters.ts).
    const upstream = workerUpstreamCounters.drain();
    if (Object.keys(upstream).length > 0) deltas.upstream = upstream;
    if (!isQuiet(doqStats)) {
      deltas.doq = { ...doqStats };
      Object.assign(doqStats, emptyDoqStats());
    }
    const evicted = plane?.drainRateLimitEvictions?.() ?? 0;
    if (evicted > 0) deltas.rateLimit = { bucketsEvicted: evicted };
    const quiet = isQuiet(deltas.socket) && isQuiet(deltas.handler ?? {}) &&
      deltas.detail === undefined && cache === undefined &&
      deltas.upstream === undefined && deltas.rateLimit === undefined &&
      deltas.doq === undefined;
    if (!quiet) post({ type: "counters", deltas });
  }

  /**
   * Hands the query events over, their typed arrays transferred rather
   * than cloned (a clone cost ~0.8 µs per event on this thread). A batch
   * that fails to drain or post is lost, not fatal; the next one starts a
   * new string table, since the main thread never saw this one's strings.
   */
  function postEvents() {
    try {
      const batch = plane?.events?.drain();
      if (!batch || (batch.events.count === 0 && batch.dropped === 0)) return;
      const { events, dropped } = batch;
      // Plain ArrayBuffers of their own (QueryEventPacker.take), whole:
      // the arrays may be views on larger ones.
      post({ type: "events", events, dropped }, [
        events.times.buffer as ArrayBuffer,
        events.ints.buffer as ArrayBuffer,
      ]);
    } catch {
      // The events are gone; the worker keeps answering.
      restartEventStrings();
    }
  }

  function restartEventStrings() {
    try {
      plane?.events?.restartStrings();
    } catch {
      // Then the main thread asks again when the next batch does not fit.
    }
  }

  /** The cache's counts since the last post, when any changed (entries included). */
  function cacheDelta(): CacheStats | undefined {
    const cache = plane?.cache;
    if (cache === undefined) return undefined;
    let now: CacheStats;
    try {
      now = cache.stats();
    } catch {
      return undefined; // counts are not worth a crashed worker
    }
    const delta = cacheStatsDelta(now, lastCache);
    const { entries, ...counts } = delta;
    const changed = !cacheSizePosted || entries !== lastCache.entries ||
      !isQuiet(counts);
    cacheSizePosted = true;
    lastCache = now;
    return changed ? delta : undefined;
  }

  /** The transport this worker serves, once started. */
  let transport: string | undefined;

  /**
   * Says the snapshot is the one answered from; a TCP listener first makes
   * its zone transfers ready (DataPlane.prepareTransfers), since the
   * secondaries a NOTIFY wakes ask it at once.
   */
  function applied(snapshot: Snapshot): void {
    const ready = STREAMING.has(transport ?? "") && plane?.prepareTransfers
      ? plane.prepareTransfers(snapshot).catch(() => {})
      : Promise.resolve();
    ready.then(() =>
      post({ type: "snapshot-applied", version: snapshot.version })
    );
  }

  async function start(msg: Extract<WorkerRequest, { type: "start" }>) {
    const { listener } = msg;
    transport = listener.transport;
    const logger = createLogger().with({
      component: "listener",
      transport: listener.transport,
    });
    plane = createDataPlane({
      logger,
      nodeName: msg.nodeName,
      version: msg.version,
      queryLog: msg.queryLog ?? true,
      onNotify: (zone, from) => post({ type: "notified", zone, from }),
    });
    const handler = ENCRYPTED.has(listener.transport)
      ? paddingHandler(plane.handler)
      : plane.handler;
    if (earlySnapshot) {
      handler.setSnapshot(earlySnapshot);
      applied(earlySnapshot);
    }
    if (lameduckBeforeStart) plane.enterLameduck();
    if (earlyCache) plane.cache?.importEntries(earlyCache);
    earlyCache = null;
    // A UDP client that got TC=1 asks again over TCP: another worker.
    plane.cache?.onCutAnswerStored((entry) =>
      post({ type: "cache-share", entries: [entry] })
    );
    const proxy = msg.proxy && new ProxyTrust(msg.proxy);
    const common = {
      hostname: listener.address,
      port: listener.port,
      handler,
      counters,
      logger,
      ...(proxy && { proxy }),
    };
    const udp = {
      ...common,
      ...(msg.udpMaxInFlight !== undefined
        ? { maxInFlight: msg.udpMaxInFlight }
        : {}),
    };
    const tcp = {
      ...common,
      idleTimeoutMs: msg.tcp.idleTimeoutMs,
      maxConnections: msg.tcp.maxConnections,
      ...(msg.tcp.maxInFlight !== undefined
        ? { maxInFlight: msg.tcp.maxInFlight }
        : {}),
      reusePort: msg.reusePort ?? false,
    };
    try {
      switch (listener.transport) {
        case "udp":
          server = msg.ffiSocket !== undefined
            ? serveUdpFfi({ ...udp, socket: msg.ffiSocket })
            : serveUdp(udp);
          break;
        case "tcp":
          server = serveTcp(tcp);
          break;
        case "dot":
          server = await serveDot({
            ...tcp,
            certificate: required(msg.tls, "a certificate"),
            clientIdDomain: msg.clientIdDomain ?? "",
          });
          break;
        case "doh":
          server = serveDoh({
            ...common,
            path: msg.doh?.path ?? "/dns-query",
            trustedProxies: msg.doh?.trustedProxies ?? [],
            ...(msg.tls && { certificate: msg.tls }),
            ...(msg.tcp.maxInFlight !== undefined &&
              { maxInFlight: msg.tcp.maxInFlight }),
          });
          break;
        case "doq":
          server = serveDoq({
            ...common,
            certificate: required(msg.tls, "a certificate"),
            clientIdDomain: msg.clientIdDomain ?? "",
            ...(msg.quicMaxConnections !== undefined &&
              { maxConnections: msg.quicMaxConnections }),
            stats: doqStats,
          });
          break;
        default:
          throw new Error(`no listener for transport ${listener.transport}`);
      }
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      post({ type: "bind-error", message: e.message, code: e.name });
      return;
    }
    countersTimer = setInterval(
      postCounters,
      msg.countersIntervalMs ?? COUNTERS_INTERVAL_MS,
    );
    if (plane.events !== undefined) {
      eventsTimer = setInterval(postEvents, EVENTS_INTERVAL_MS);
    }
    post({ type: "ready", port: server.addr.port });
  }

  async function stop(answerWithinMs: number | undefined) {
    if (stopping) return;
    stopping = true;
    clearInterval(countersTimer);
    clearInterval(eventsTimer);
    // The dump goes first: a query waiting on a slow upstream must not
    // cost it (the main thread terminates a worker that is slow to stop).
    const early = dumpCache();
    const insertsAtDump = cacheInserts();
    post(
      early === undefined
        ? { type: "cache-dump" }
        : { type: "cache-dump", cache: early },
    );
    await server?.stop(answerWithinMs);
    server = null;
    postCounters();
    postEvents();
    // Dumped again only when the queries answered meanwhile stored entries.
    const inserts = cacheInserts();
    const cache = early !== undefined &&
        (inserts === undefined || inserts !== insertsAtDump)
      ? dumpCache()
      : undefined;
    post(
      cache === undefined ? { type: "stopped" } : { type: "stopped", cache },
    );
  }

  /** The cache's insert count, when it reports one. */
  function cacheInserts(): number | undefined {
    try {
      return plane?.cache?.stats().inserts;
    } catch {
      return undefined;
    }
  }

  /** The cache dump for the `stopped` reply; a failure costs the dump, not the stop. */
  function dumpCache(): SerializedEntry[] | undefined {
    try {
      return plane?.cache?.exportEntries();
    } catch (err) {
      createLogger().with({ component: "listener" }).error(
        "Cannot dump the cache; it starts empty next time",
        { error: err },
      );
      return undefined;
    }
  }

  /** Posts the plane's explanation; nothing to explain with posts none. */
  function explain(id: number, question: ExplainedQuestion, client: string) {
    const explaining = plane?.explain?.(question, client);
    if (explaining === undefined) return post({ type: "explained", id });
    explaining.then(
      (explanation) => post({ type: "explained", id, explanation }),
      () => post({ type: "explained", id }),
    );
  }

  scope.onmessage = (event) => {
    const msg = event.data;
    switch (msg.type) {
      case "start":
        return start(msg);
      case "snapshot": {
        const snapshot = snapshots.receive(msg.snapshot);
        // One assignment inside the handler; queries in flight keep theirs.
        if (plane) plane.handler.setSnapshot(snapshot);
        else earlySnapshot = snapshot;
        applied(snapshot);
        return;
      }
      case "certificate":
        // A failure leaves the previous certificate serving.
        Promise.resolve(server?.setCertificate?.(msg.pair)).catch((error) =>
          createLogger().with({ component: "listener" }).error(
            "Cannot serve the new certificate; the previous one goes on",
            { error },
          )
        );
        return;
      case "lameduck":
        if (plane) plane.enterLameduck();
        else lameduckBeforeStart = true;
        return;
      case "cache":
        if (plane) plane.cache?.importEntries(msg.entries);
        else earlyCache = msg.entries;
        return;
      case "shared-cache":
        // Before start there is no cache to share with: dropped.
        plane?.cache?.importShared(msg.entries);
        return;
      case "flush-cache":
        post({
          type: "cache-flushed",
          id: msg.id,
          removed: plane?.cache?.flush(msg.name, {
            subtree: msg.subtree === true,
          }) ?? 0,
        });
        return;
      case "explain":
        explain(msg.id, msg.question, msg.client);
        return;
      case "restart-event-strings":
        restartEventStrings();
        return;
      case "event-buffers":
        // Checked: a pair of the wrong kinds must not become a batch's arrays.
        if (
          msg.times instanceof Float64Array && msg.ints instanceof Int32Array
        ) {
          plane?.events?.recycle(msg.times, msg.ints);
        }
        return;
      case "stop":
        stop(msg.answerWithinMs);
        return;
    }
  };
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the start message lacks ${what}`);
  return value;
}

/** True when every count is zero (nested maps of counts included). */
function isQuiet(counts: object): boolean {
  return Object.values(counts).every((v) =>
    typeof v === "number" ? v === 0 : isQuiet(v as object)
  );
}
