/**
 * DNS over QUIC (RFC 9250): a `Deno.QuicEndpoint` (unstable API, needs
 * `--unstable-net`) offering ALPN `doq` alone, an accept loop that bounds
 * handshakes and connections, and one DoqSession per connection
 * (doq_connection.ts).
 *
 * What a client can make the listener hold, and the bound on each:
 * - handshakes: at most `handshakesPerSecond` begun (a token bucket,
 *   handshake_rate.ts); over it the Initial is ignored, unanswered, so a
 *   flood costs little and reflects nothing, while a real client sends its
 *   Initial again a moment later and gets in. A handshake that does not
 *   complete ends with the QUIC idle timeout.
 * - connections: at most `maxConnections`, handshakes in progress
 *   included. At the cap a new connection takes the place of the one idle
 *   longest (RFC 9250 §5.5.2 lets a server close connections as its
 *   resources require; as TCP does, tcp.ts), so idle connections held open
 *   with keep-alives cannot lock others out; only when none is idle is the
 *   new one refused (CONNECTION_REFUSED, so the client tries elsewhere).
 * - streams: `maxStreamsPerConnection` bidirectional streams open at once
 *   per connection (the QUIC stream limit: a client cannot open more, and
 *   gets more only as streams finish, our answers acknowledged), no
 *   unidirectional ones (RFC 9250 §4.2 uses none).
 * - octets of queries still arriving: per connection and per listener
 *   (doq_connection.ts); a stream without progress closes its connection.
 * - queries waiting on the handler: `maxInFlight` per listener, then
 *   `overloaded` (as TCP).
 * What this API leaves to Deno's QUIC stack (quinn) and cannot be set from
 * here: its send buffer (about 10 MB per connection, for answers written
 * but not yet acknowledged; at most `maxStreamsPerConnection` answers of up
 * to 64 KiB each), and per-source limits before a handshake (reading an
 * incoming connection's address consumes it in Deno 2.9, so the source is
 * known only once it is accepted).
 *
 * Certificates: `setCertificate` makes a new QuicListener on the same
 * endpoint; the endpoint takes the new certificate for every handshake
 * from then on, while connections already open keep theirs. Every listener
 * made stays referenced until the endpoint closes: when Deno collects one,
 * it clears the endpoint's server configuration (as `QuicListener.stop()`
 * does, which is never called here), and new connections would all fail.
 *
 * 0-RTT (RFC 9250 §4.5): Deno's server takes early data from a resuming
 * client, but a connection reaches this code only once its handshake is
 * complete, and its streams with it; a replayed 0-RTT flight, which cannot
 * complete a handshake, never reaches the handler.
 *
 * There is no independent DoQ client packaged for Debian 12 (kdig 3.2 has
 * no +quic), so the tests use Deno's own QUIC client (doq_client.ts).
 */
import type { QueryHandler } from "../pipeline/handler.ts";
import type { Logger } from "../log/logger.ts";
import type { CertificatePair, SocketCounters } from "./worker_messages.ts";
import { clientIdFromServerName } from "./client_id.ts";
import { HandshakeRate } from "./handshake_rate.ts";
import { type DoqStats, emptyDoqStats } from "./doq_stats.ts";
import {
  type DoqQueryBytes,
  type DoqSession,
  type DoqWaitBudget,
  serveDoqConnection,
} from "./doq_connection.ts";
import { FIRST_READ_BYTES } from "./doq_query_reader.ts";
import {
  DOQ_ALPN,
  DOQ_NO_ERROR,
  DOQ_PROTOCOL_ERROR,
} from "./doq_error_codes.ts";

/** Connections served at once by one listener (`listeners.doq[].maxConnections`). */
export const DOQ_MAX_CONNECTIONS = 1024;
/**
 * Streams (queries) open at once per connection: as many as a TCP
 * connection has queries in flight (TCP_MAX_PIPELINE), which no stub
 * reaches; it bounds what one connection holds in answers not yet
 * acknowledged to 128 of at most 64 KiB.
 */
export const DOQ_MAX_STREAMS = 128;
/**
 * Handshakes begun per second per listener. A handshake took about 0.8 ms
 * of the server's CPU here (key exchange, an ECDSA P-256 signature,
 * quinn's state, the Deno ops; testdata/doq_measure.ts), so 200 a second
 * take about a sixth of a core and leave the rest to the queries of the
 * connections already open, while 1024 clients reconnecting at once are
 * all back within about five seconds.
 */
export const DOQ_HANDSHAKES_PER_SECOND = 200;
/**
 * The QUIC idle timeout (RFC 9000 §10.1; RFC 9250 §5.5.2 leaves the value
 * to the server): as TCP's idle timeout. Keep-alive PINGs from the client
 * keep a connection open past it (RFC 9250 §5.5.2 asks clients to use
 * them); at the cap such a connection is the first to go.
 */
export const DOQ_IDLE_TIMEOUT_MS = 10_000;
/** Queries one listener waits on at once (as TCP_MAX_IN_FLIGHT). */
export const DOQ_MAX_IN_FLIGHT = 1000;
/**
 * Octets queries still arriving may hold over all connections of one
 * listener: about 64 K streams in their first read, far more than real
 * clients have mid-query at once.
 */
export const DOQ_MAX_QUERY_BYTES = 32 * 1024 * 1024;

export interface DoqServerOptions {
  hostname: string;
  /** 0 picks an ephemeral port. */
  port: number;
  handler: QueryHandler;
  /** Incremented in place; the owner reads and resets them. */
  counters: SocketCounters;
  logger: Logger;
  /** PEM chain and key; a leaf, not a CA (Deno's QUIC refuses a CA:TRUE one). */
  certificate: CertificatePair;
  /**
   * Client IDs from the server name (SNI) under this domain (client_id.ts);
   * unset: no client IDs.
   */
  clientIdDomain?: string;
  /** @default 1024 */
  maxConnections?: number;
  /** @default 128 */
  maxStreamsPerConnection?: number;
  /** @default 200 */
  handshakesPerSecond?: number;
  /** @default 10000 */
  idleTimeoutMs?: number;
  /** Queries waited on at once over all connections. @default 1000 */
  maxInFlight?: number;
  /** Counts SocketCounters has no field for; a new object when unset. */
  stats?: DoqStats;
}

/** A bound DoQ listener. */
export interface DoqServer {
  readonly addr: Deno.NetAddr;
  /** Incremented in place (see DoqStats). */
  readonly stats: DoqStats;
  /** Open connections right now, handshakes in progress included. */
  connections(): number;
  /**
   * Serves `pair` to every handshake from now on; connections already
   * open keep the certificate they have. Throws (and keeps the current
   * pair) when Deno cannot load it.
   */
  setCertificate(pair: CertificatePair): void;
  /**
   * Stops accepting (new connections are ignored until the endpoint
   * closes), takes no more queries, sends the answers in flight,
   * closes every connection (DOQ_NO_ERROR) and the endpoint. Answers not
   * ready within `answerWithinMs` (or DOQ_CLOSE_GRACE_MS, whichever is
   * shorter) are sent as SERVFAIL; connections that wrote lately then
   * wait up to DOQ_DRAIN_MS more for it to arrive. The UDP socket is
   * released when Deno collects the endpoint (at the latest when the
   * worker ends), not here: quinn keeps it while any handle is alive.
   */
  stop(answerWithinMs?: number): Promise<void>;
}

/** Binds (throws the `Deno.errors.*` error when it cannot) and serves. */
export function serveDoq(opts: DoqServerOptions): DoqServer {
  const { counters, logger } = opts;
  const stats = opts.stats ?? emptyDoqStats();
  const idleTimeoutMs = opts.idleTimeoutMs ?? DOQ_IDLE_TIMEOUT_MS;
  const maxConnections = opts.maxConnections ?? DOQ_MAX_CONNECTIONS;
  const maxStreams = opts.maxStreamsPerConnection ?? DOQ_MAX_STREAMS;
  const transport = {
    alpnProtocols: [DOQ_ALPN],
    maxIdleTimeout: idleTimeoutMs,
    maxConcurrentBidirectionalStreams: maxStreams,
    maxConcurrentUnidirectionalStreams: 0,
  };
  const endpoint = new Deno.QuicEndpoint({
    hostname: opts.hostname,
    port: opts.port,
  });
  let listener: Deno.QuicListener;
  try {
    listener = endpoint.listen({ ...transport, ...opts.certificate });
  } catch (error) {
    endpoint.close();
    throw error;
  }
  /** Every listener made on the endpoint (see the header: never let one go). */
  const listeners = [listener];
  const rate = new HandshakeRate(
    opts.handshakesPerSecond ?? DOQ_HANDSHAKES_PER_SECOND,
  );
  const sessionOptions = {
    handler: opts.handler,
    counters,
    stats,
    logger,
    // Half the idle timeout: found before the connection would time out,
    // when the client keeps it alive with PINGs and nothing else.
    stallMs: idleTimeoutMs / 2,
    // Every stream in its first read, and one message of the largest size.
    maxQueryBytes: maxStreams * FIRST_READ_BYTES + 2 * 65537,
    budget: {
      waiting: 0,
      max: opts.maxInFlight ?? DOQ_MAX_IN_FLIGHT,
    } satisfies DoqWaitBudget,
    queryBytes: { held: 0, max: DOQ_MAX_QUERY_BYTES } satisfies DoqQueryBytes,
  };
  const sessions = new Set<DoqSession>();
  /** Handshakes under way, settled when they complete or fail. */
  const handshakes = new Set<Promise<void>>();
  let stopping = false;

  /** Open sessions (not closing) and the idle-longest of them. */
  function census(): { open: number; idlest?: DoqSession } {
    let open = 0;
    let idlest: DoqSession | undefined;
    let oldest = Infinity;
    for (const session of sessions) {
      if (session.closing()) continue;
      open++;
      const since = session.idleSince();
      if (since !== undefined && since < oldest) {
        oldest = since;
        idlest = session;
      }
    }
    return idlest === undefined ? { open } : { open, idlest };
  }

  function admit(incoming: Deno.QuicIncoming) {
    let evict: DoqSession | undefined;
    // Closing sessions are let go of without counting them (they end
    // within the grace and the drain).
    if (sessions.size + handshakes.size >= maxConnections) {
      const { open, idlest } = census();
      if (open + handshakes.size >= maxConnections) {
        if (idlest === undefined) {
          stats.refused++;
          incoming.refuse();
          return;
        }
        evict = idlest;
      }
    }
    if (!rate.take()) {
      stats.throttled++;
      incoming.ignore();
      return;
    }
    if (evict !== undefined) {
      stats.evicted++;
      evict.shutdown(0);
    }
    // Out of `handshakes` in the same step as into `sessions`: counted
    // twice for a moment, the connection would look like two at the cap.
    const handshake: Promise<void> = incoming.accept<false>().then(
      (conn) => {
        handshakes.delete(handshake);
        started(conn);
      },
      (error) => {
        handshakes.delete(handshake);
        if (stopping) return;
        counters.tlsHandshakeFailed++;
        logger.debug("DoQ handshake failed", { error });
      },
    );
    handshakes.add(handshake);
  }

  function started(conn: Deno.QuicConn) {
    if (stopping) {
      conn.close({ closeCode: DOQ_NO_ERROR, reason: "" });
      return;
    }
    // rustls already fails the handshake of a client that offers other
    // protocols, or none; this only keeps that true should it change.
    if (conn.protocol !== DOQ_ALPN) {
      stats.protocolErrors++;
      conn.close({ closeCode: DOQ_PROTOCOL_ERROR, reason: "ALPN doq only" });
      return;
    }
    stats.accepted++;
    const clientId = opts.clientIdDomain === undefined
      ? undefined
      : clientIdFromServerName(conn.serverName, opts.clientIdDomain);
    const session = serveDoqConnection(
      conn,
      clientId === undefined ? sessionOptions : { ...sessionOptions, clientId },
    );
    sessions.add(session);
    session.done.then(() => sessions.delete(session));
  }

  async function acceptLoop() {
    while (!stopping) {
      let incoming: Deno.QuicIncoming;
      try {
        incoming = await listener.incoming();
      } catch (error) {
        // Only a closed endpoint fails here.
        if (!stopping) logger.error("DoQ endpoint closed", { error });
        return;
      }
      if (stopping) incoming.ignore();
      else admit(incoming);
    }
  }

  const accepting = acceptLoop();
  return {
    addr: endpoint.addr,
    stats,
    connections: () => sessions.size + handshakes.size,
    setCertificate(pair) {
      if (stopping) return;
      const next = endpoint.listen({ ...transport, ...pair });
      listeners.push(next);
      listener = next;
    },
    async stop(answerWithinMs) {
      // New connections are ignored from here (acceptLoop), not stopped
      // with listener.stop(): that leaves the endpoint without a server
      // configuration, and a connection accepted then, one whose accept
      // was already under way, aborts the process (quinn-proto unwraps the
      // configuration; Deno 2.9.6 panics).
      stopping = true;
      const open = [...sessions];
      for (const session of open) session.shutdown(answerWithinMs);
      await Promise.all(open.map((s) => s.done));
      // Handshakes still under way fail with the endpoint; the pending
      // incoming() rejects, which ends the accept loop.
      endpoint.close({ closeCode: DOQ_NO_ERROR, reason: "" });
      await accepting;
      await Promise.all([...handshakes]);
      listeners.length = 0;
    },
  };
}
