/**
 * Do53 over TCP (RFC 7766): a `Deno.listen` socket, an accept loop with a
 * connection cap, and one TcpSession per connection (tcp_connection.ts).
 * At the cap a new connection takes the place of the one idle longest
 * (RFC 7766 §6.2.3 lets a server close idle connections under pressure), so
 * one client holding every place with idle connections cannot lock the
 * others out; only when none is idle is the new one closed.
 */
import type { QueryHandler } from "../pipeline/handler.ts";
import type { Logger } from "../log/logger.ts";
import type { SocketCounters } from "./worker_messages.ts";
import type { ProxyTrust } from "./proxy_trust.ts";
import {
  serveTcpConnection,
  type StreamConn,
  type TcpSession,
  type TcpWaitBudget,
} from "./tcp_connection.ts";

/** RFC 7766 §6.2.3 suggests seconds, not minutes, for an idle server. */
export const TCP_IDLE_TIMEOUT_MS = 10_000;
/** Connections served at once by one listener. */
export const TCP_MAX_CONNECTIONS = 1000;
/**
 * Most TCP queries one listener waits on at once, over all its connections
 * (their answers pending, mostly on upstreams); at the bound, queries go to
 * the handler marked `overloaded`, which answers what needs no wait and
 * drops the rest, as for UDP (UDP_MAX_IN_FLIGHT).
 */
export const TCP_MAX_IN_FLIGHT = 1000;

export interface TcpServerOptions {
  hostname: string;
  /** 0 picks an ephemeral port. */
  port: number;
  handler: QueryHandler;
  /** Incremented in place; the owner reads and resets them. */
  counters: SocketCounters;
  logger: Logger;
  /** @default 10000 */
  idleTimeoutMs?: number;
  /** @default 1000 */
  maxConnections?: number;
  /** Queries waited on at once over all connections. @default 1000 */
  maxInFlight?: number;
  /** Share the port with other sockets that set it (SO_REUSEPORT, Linux). @default false */
  reusePort?: boolean;
  /** Believe PROXYv2 headers from these peers (proxy_trust.ts). */
  proxy?: ProxyTrust;
}

/** A bound TCP listener. */
export interface TcpServer {
  readonly addr: Deno.NetAddr;
  /** Open connections right now. */
  connections(): number;
  /** Bytes held for answers not yet written, over all connections. */
  unsentBytes(): number;
  /**
   * Stops accepting, stops reading on every connection, sends the answers
   * in flight, closes everything. Answers not ready within `answerWithinMs`
   * (or TCP_CLOSE_GRACE_MS, whichever is shorter) are sent as SERVFAIL.
   */
  stop(answerWithinMs?: number): Promise<void>;
}

/** Binds (throws the `Deno.errors.*` error when it cannot) and serves. */
export function serveTcp(opts: TcpServerOptions): TcpServer {
  const listener = Deno.listen({
    transport: "tcp",
    hostname: opts.hostname,
    port: opts.port,
    reusePort: opts.reusePort ?? false,
  });
  return serveStreams(listener, opts);
}

/** Where connections come from: a TCP listener, or DoT's TLS one (dot.ts). */
export interface StreamListener {
  readonly addr: Deno.Addr;
  /** The next connection; rejects once closed. */
  accept(): Promise<StreamConn>;
  close(): void;
}

/**
 * Serves the connections `listener` accepts, under the connection cap,
 * each as a TcpSession (the framing, pipelining and limits of RFC 7766;
 * DoT uses the same, RFC 7858 §3.3).
 */
export function serveStreams(
  listener: StreamListener,
  opts: Omit<TcpServerOptions, "hostname" | "port" | "reusePort"> & {
    transport?: "tcp" | "dot";
  },
): TcpServer {
  const { counters, logger } = opts;
  const maxConnections = opts.maxConnections ?? TCP_MAX_CONNECTIONS;
  const budget: TcpWaitBudget = {
    waiting: 0,
    max: opts.maxInFlight ?? TCP_MAX_IN_FLIGHT,
  };
  const sessionOptions = {
    transport: opts.transport ?? "tcp",
    handler: opts.handler,
    counters,
    logger,
    idleTimeoutMs: opts.idleTimeoutMs ?? TCP_IDLE_TIMEOUT_MS,
    budget,
    ...(opts.proxy && { proxy: opts.proxy }),
  };
  const sessions = new Set<TcpSession>();
  let stopping = false;
  const acceptFailures = new FailureLog(logger);

  async function acceptLoop() {
    while (!stopping) {
      let conn: StreamConn;
      try {
        conn = await listener.accept();
      } catch (err) {
        if (stopping) return;
        if (peerLeft(err)) {
          // Reset before it was accepted: nothing to pause for. (A pause
          // here let 20 resets a second keep TCP closed to everyone.)
          counters.tcpResetBeforeAccept++;
          continue;
        }
        // EMFILE and friends: pause instead of spinning on the error.
        acceptFailures.failed(err);
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      acceptFailures.succeeded();
      if (stopping) {
        closeQuietly(conn);
        continue;
      }
      if (sessions.size >= maxConnections) {
        const idlest = idleLongest(sessions);
        if (idlest === undefined) {
          counters.tcpRejected++;
          closeQuietly(conn);
          continue;
        }
        counters.tcpEvicted++;
        idlest.shutdown();
      }
      counters.tcpAccepted++;
      const session = serveTcpConnection(conn, sessionOptions);
      sessions.add(session);
      session.done.then(() => sessions.delete(session));
    }
  }

  const accepting = acceptLoop();
  return {
    addr: listener.addr as Deno.NetAddr,
    connections: () => sessions.size,
    unsentBytes() {
      let total = 0;
      for (const session of sessions) total += session.unsentBytes();
      return total;
    },
    async stop(answerWithinMs) {
      if (!stopping) {
        stopping = true;
        listener.close(); // rejects the pending accept
      }
      await accepting;
      const open = [...sessions];
      for (const session of open) session.shutdown(answerWithinMs);
      await Promise.all(open.map((s) => s.done));
    },
  };
}

/**
 * Logs accept failures without flooding the log: an accept that keeps
 * failing (out of file descriptors) is retried every 50 ms, and logging
 * each one wrote 20 lines a second; accepts that fail and work in turn (a
 * descriptor freed now and then) wrote as many "failed" and "works again"
 * lines. At most one line per interval: the first failure at once, then
 * the failures counted since the last line, and the recovery.
 */
export class FailureLog {
  #logger: Logger;
  #intervalMs: number;
  /** Failures since the last line. */
  #failures = 0;
  /** The last line said accepts fail. */
  #failing = false;
  #lastLogged = -Infinity;

  constructor(logger: Logger, intervalMs = 60_000) {
    this.#logger = logger;
    this.#intervalMs = intervalMs;
  }

  failed(error: unknown, now = Date.now()): void {
    this.#failures++;
    if (now - this.#lastLogged < this.#intervalMs) return;
    this.#logger.warn("TCP accept failed", {
      error,
      ...(this.#failures > 1 && { failures: this.#failures }),
    });
    this.#lastLogged = now;
    this.#failures = 0;
    this.#failing = true;
  }

  succeeded(now = Date.now()): void {
    if (!this.#failing && this.#failures === 0) return;
    if (now - this.#lastLogged < this.#intervalMs) return;
    this.#logger.info("TCP accept works again", {
      ...(this.#failures > 0 && { failuresNotLogged: this.#failures }),
    });
    this.#lastLogged = now;
    this.#failures = 0;
    this.#failing = false;
  }
}

/**
 * An accept error that only says the client already went away (it reset
 * the connection before we took it: Deno reports ENOTCONN).
 */
export function peerLeft(err: unknown): boolean {
  return err instanceof Deno.errors.NotConnected ||
    err instanceof Deno.errors.ConnectionReset ||
    err instanceof Deno.errors.ConnectionAborted;
}

/** The session with no answer in flight whose last query is oldest. */
function idleLongest(sessions: Set<TcpSession>): TcpSession | undefined {
  let idlest: TcpSession | undefined;
  let oldest = Infinity;
  for (const session of sessions) {
    const since = session.idleSince();
    if (since !== undefined && since < oldest) {
      oldest = since;
      idlest = session;
    }
  }
  return idlest;
}

function closeQuietly(conn: StreamConn) {
  try {
    conn.close();
  } catch {
    // the peer already went away
  }
}
