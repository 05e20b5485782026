/**
 * The messages between the main thread (listeners.ts) and a listener Worker
 * (worker_entry.ts). Plain data: they cross by structured clone, except
 * the typed arrays of an `events` batch, which are transferred (and
 * transferred back in `event-buffers`).
 */
import type { Transport } from "../pipeline/handler.ts";
import type { PostedSnapshot } from "./snapshot_post.ts";
import type { CounterBatch, DetailBatch } from "../pipeline/stage_counters.ts";
import type { SerializedEntry } from "../pipeline/cache_dump.ts";
import type { PostedQueryEvents } from "../pipeline/query_event_pack.ts";
import type { CacheStats } from "../pipeline/cache_stats.ts";
import type { ExplainedQuestion } from "../pipeline/data_plane.ts";
import type { Explanation } from "../pipeline/explanation.ts";
import type { UpstreamCounts } from "../upstream/upstream_counters.ts";
import type { LibcUdpSocket } from "./libc_udp.ts";
import type { ProxyTrustInit } from "./proxy_trust.ts";
import type { DoqStats } from "./doq_stats.ts";

/** What one worker serves. */
export interface WorkerListener {
  /** Host without brackets ("0.0.0.0", "::1"). */
  address: string;
  /** 0 picks an ephemeral port (tests). */
  port: number;
  transport: Transport;
}

/** TCP limits (RFC 7766). */
export interface TcpLimits {
  /** Close a connection when no query arrived for this long. */
  idleTimeoutMs: number;
  /** Connections beyond this many are closed at once. */
  maxConnections: number;
  /**
   * Most queries waited on at once over all connections; beyond, they are
   * handled `overloaded` (tcp.ts TCP_MAX_IN_FLIGHT). @default 1000
   */
  maxInFlight?: number;
}

/**
 * A certificate chain and its private key, PEM, as the TLS listeners
 * serve them (src/tls/certificate_reloader.ts checks that they belong
 * together before any listener sees them).
 */
export interface CertificatePair {
  cert: string;
  key: string;
}

/** Main thread → worker. */
export type WorkerRequest =
  | {
    type: "start";
    listener: WorkerListener;
    nodeName: string;
    version: string;
    tcp: TcpLimits;
    /** Most UDP queries answered at once; more are dropped and counted. */
    udpMaxInFlight?: number;
    /** @default 1000 */
    countersIntervalMs?: number;
    /** TCP: share the port with the address's other TCP workers (SO_REUSEPORT). */
    reusePort?: boolean;
    /**
     * UDP: serve this libc socket (listeners.ffiSockets, libc_udp.ts), which
     * the main thread opened and closes, instead of Deno's own.
     */
    ffiSocket?: LibcUdpSocket;
    /** Record a QueryEvent per answer and post them (`querylog.enabled`). @default true */
    queryLog?: boolean;
    /** DoT, DoH over TLS, DoQ: the certificate to serve (`certificate` replaces it). */
    tls?: CertificatePair;
    /** DoT, DoQ: `listeners.clientIdDomain`, under which a server name names the client. */
    clientIdDomain?: string;
    /** DoH: the endpoint's path and the proxies whose X-Forwarded-For is believed. */
    doh?: { path: string; trustedProxies: string[] };
    /** DoQ: connections served at once. */
    quicMaxConnections?: number;
    /** UDP, TCP, DoT: whom PROXYv2 headers are believed from (proxy_trust.ts). */
    proxy?: ProxyTrustInit;
  }
  | { type: "snapshot"; snapshot: PostedSnapshot }
  /** A TLS listener's certificate was renewed or rotated: new handshakes use it. */
  | { type: "certificate"; pair: CertificatePair }
  /**
   * The server is stopping after its grace period: the health check fails
   * from now on, every other query is still answered.
   */
  | { type: "lameduck" }
  /** Entries of a cache dump to take (sent right after start). */
  | { type: "cache"; entries: SerializedEntry[] }
  /** Entries another worker stored from cut answers (its `cache-share`). */
  | { type: "shared-cache"; entries: SerializedEntry[] }
  /**
   * Drop cached answers: every one, or those for `name`, and with `subtree`
   * those for the names below it too.
   */
  | { type: "flush-cache"; id: number; name?: string; subtree?: boolean }
  /** Explain how `question` from `client` would be answered (DataPlane.explain). */
  | {
    type: "explain";
    id: number;
    question: ExplainedQuestion;
    client: string;
  }
  /**
   * An `events` batch did not follow the previous one (see
   * QueryEventReceiver): start a new string table.
   */
  | { type: "restart-event-strings" }
  /**
   * The arrays of an `events` batch, transferred back once the main thread
   * has read them, for the worker to fill again (QueryEventPacker.recycle):
   * fresh ones each batch cost the worker page faults.
   */
  | { type: "event-buffers"; times: Float64Array; ints: Int32Array }
  /**
   * Stop: the cache dump is posted at once (`cache-dump`), then the
   * queries in flight are answered; those not answered within
   * `answerWithinMs` get SERVFAIL, so the worker replies `stopped` before
   * the main thread stops waiting for it.
   */
  | { type: "stop"; answerWithinMs?: number };

/** Socket-level counts since the previous `counters` message. */
export interface SocketCounters {
  /** Queries handed to the handler. */
  queries: number;
  /** Answers that could not be sent (the client went away, a full buffer). */
  sendErrors: number;
  /** UDP datagrams dropped while the listener finished its last answers. */
  udpStopping: number;
  /** UDP queries over UDP_MAX_QUERY octets, answered TC=1 unread. */
  udpOversize: number;
  tcpAccepted: number;
  /** TCP connections closed at once: the cap reached and none idle. */
  tcpRejected: number;
  /** Idle TCP connections closed at the cap to admit a new one. */
  tcpEvicted: number;
  /** TCP connections the client reset before they were accepted. */
  tcpResetBeforeAccept: number;
  /** TCP connections closed for a malformed length prefix (0). */
  tcpMalformed: number;
  /** TCP connections closed by the idle timeout. */
  tcpIdleClosed: number;
  /**
   * PROXYv2 headers dropped (with their query or connection): from a
   * listed peer without the shared secret's TLV (proxy_unauthenticated), from
   * a peer not in `listeners.proxyProtocolFrom` (proxy_untrusted), or not
   * a well-formed header (proxy_malformed).
   */
  proxyUnauthenticated: number;
  proxyUntrusted: number;
  proxyMalformed: number;
  /** TLS handshakes that failed or timed out (DoT, DoH, DoQ). */
  tlsHandshakeFailed: number;
  /** DoH requests refused with a 4xx (bad method, type, path or body). */
  dohBadRequest: number;
}

/** What a worker reports about once a second. */
export interface CounterDeltas {
  socket: SocketCounters;
  /** The pipeline's counts (`handler.counters.drain()`), when it has counters. */
  handler?: CounterBatch;
  /** The pipeline's metrics-only counts (`handler.counters.drainDetail()`). */
  detail?: DetailBatch;
  /**
   * The cache's counts since the previous message and its `entries` now;
   * present when the handler has a cache and something changed.
   */
  cache?: CacheStats;
  /** Upstream attempts by configured server, when there were any. */
  upstream?: UpstreamCounts;
  /** A DoQ listener's connection events (doq_stats.ts), when there were any. */
  doq?: DoqStats;
  /**
   * Rate-limit buckets dropped to stay within `ratelimit.maxBuckets` (a
   * flood from many sources), when there were any.
   */
  rateLimit?: { bucketsEvicted: number };
}

/** Worker → main thread. */
export type WorkerReply =
  | {
    type: "ready";
    /** The port actually bound (differs from the request when it was 0). */
    port: number;
  }
  | { type: "bind-error"; message: string; code: string }
  | { type: "counters"; deltas: CounterDeltas }
  /**
   * Query events since the previous post (about every 250 ms), and how many
   * were dropped because the worker's buffer was full. `events.times` and
   * `events.ints` are transferred (the worker keeps no view of them);
   * `events.strings` are the worker's string table's new entries.
   */
  | { type: "events"; events: PostedQueryEvents; dropped: number }
  /**
   * Cache entries this worker stored from answers cut for their client
   * (TC=1): the main thread passes them to the other listeners, where the
   * client asks again over TCP.
   */
  | { type: "cache-share"; entries: SerializedEntry[] }
  /** The snapshot of `version` is the one queries are answered from now. */
  | { type: "snapshot-applied"; version: number }
  /** A NOTIFY for secondary zone `zone` from `from`, one of its primaries. */
  | { type: "notified"; zone: string; from: string }
  /** The answer to `flush-cache` `id`: how many entries went. */
  | { type: "cache-flushed"; id: number; removed: number }
  /** The answer to `explain` `id`; absent when the plane cannot explain. */
  | { type: "explained"; id: number; explanation?: Explanation }
  /**
   * The cache dump taken as the stop began, before the queries in flight
   * are waited for (`cache` absent: the pipeline has no cache): the main
   * thread keeps it should the worker not stop in time.
   */
  | { type: "cache-dump"; cache?: SerializedEntry[] }
  | {
    type: "stopped";
    /**
     * A dump taken again after the queries in flight were answered, when
     * they stored entries since `cache-dump` (it replaces that one).
     */
    cache?: SerializedEntry[];
  };

/** A fresh, all-zero set of socket counters. */
export function emptySocketCounters(): SocketCounters {
  return {
    queries: 0,
    sendErrors: 0,
    udpStopping: 0,
    udpOversize: 0,
    tcpAccepted: 0,
    tcpRejected: 0,
    tcpEvicted: 0,
    tcpResetBeforeAccept: 0,
    tcpMalformed: 0,
    tcpIdleClosed: 0,
    proxyUnauthenticated: 0,
    proxyUntrusted: 0,
    proxyMalformed: 0,
    tlsHandshakeFailed: 0,
    dohBadRequest: 0,
  };
}
