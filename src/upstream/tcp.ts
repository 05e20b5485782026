/**
 * Do53 over TCP with connection reuse (RFC 7766): one pooled connection per
 * server carries every query, pipelined and matched by ID. A closed
 * connection is replaced on the next query; a query whose connection the
 * server closed before answering it is retried once on a new one (servers
 * may close connections at any time, RFC 7766 §6.2.3, and a client SHOULD
 * then ask again what was not answered, §6.2.1): also on a connection just
 * opened, which a server closing after each answer leaves with one answer
 * among many pipelined queries.
 */
import { abortable } from "./abortable.ts";
import {
  type ByteStream,
  ConnectionClosedError,
  PipelinedConnection,
} from "./pipelined_connection.ts";
import {
  formatHostPort,
  type UpstreamServer,
} from "../config/upstream_server.ts";
import type { Transport } from "./types.ts";

/** What a TCP transport needs besides the server. */
export interface TcpTransportOptions {
  /** The server's IP address (the host itself, or what bootstrap resolved it to). */
  address: string;
  /**
   * Close the connection after this long without a query in flight (ms).
   * @default 10000
   */
  idleMs?: number;
  /**
   * Most queries in flight on the connection; more fail at once.
   * @default 100
   */
  maxInFlight?: number;
}

/** A transport whose pooled connections can be awaited when closing. */
export interface PooledTransport extends Transport {
  /** Closes the pool and settles when every connection's read loop has ended. */
  closeAndWait(): Promise<void>;
}

/** Opens a byte stream to the server; DoT passes one that speaks TLS. */
export type StreamOpener = (signal: AbortSignal) => Promise<ByteStream>;

/** How long an unused pooled connection stays open (ms). */
export const TCP_IDLE_MS = 10_000;
/** Most queries in flight on one pooled connection. */
export const TCP_MAX_IN_FLIGHT = 100;

/** A Do53-over-TCP transport with one pooled, pipelined connection. */
export function createTcpTransport(
  server: UpstreamServer,
  opts: TcpTransportOptions,
): PooledTransport {
  const open: StreamOpener = (signal) =>
    Deno.connect({ hostname: opts.address, port: server.port, signal });
  return createPooledTransport(open, {
    label: `tcp://${formatHostPort(opts.address, server.port)}`,
    idleMs: opts.idleMs ?? TCP_IDLE_MS,
    maxInFlight: opts.maxInFlight ?? TCP_MAX_IN_FLIGHT,
  });
}

/**
 * A transport over one pooled {@linkcode PipelinedConnection} opened by
 * `open` whenever none is usable.
 */
export function createPooledTransport(
  open: StreamOpener,
  opts: { label: string; idleMs: number; maxInFlight: number },
): PooledTransport {
  /** Aborted by close: stops a connect in progress. */
  const closing = new AbortController();
  let current: PipelinedConnection | undefined;
  let connecting: Promise<PipelinedConnection> | undefined;
  const endings = new Set<Promise<void>>();

  async function connect(): Promise<PipelinedConnection> {
    const stream = await open(closing.signal);
    if (closing.signal.aborted) {
      stream.close();
      throw new ConnectionClosedError(`${opts.label}: transport closed`);
    }
    const connection = new PipelinedConnection(stream, opts);
    const done = connection.done.then(() => {
      endings.delete(done);
    });
    endings.add(done);
    current = connection;
    return connection;
  }

  /** The pooled connection, opened when there is none. */
  async function connection(signal: AbortSignal): Promise<PipelinedConnection> {
    if (current !== undefined && !current.closed) return current;
    connecting ??= connect().finally(() => {
      connecting = undefined;
    });
    return await abortable(connecting, signal);
  }

  function close(): void {
    closing.abort();
    void current?.close();
  }

  return {
    async exchange(query, signal) {
      if (closing.signal.aborted) {
        throw new ConnectionClosedError(`${opts.label}: transport closed`);
      }
      for (let attempt = 0;; attempt++) {
        const c = await connection(signal);
        try {
          return await c.exchange(query, signal);
        } catch (error) {
          const retry = error instanceof ConnectionClosedError &&
            attempt === 0 && !signal.aborted && !closing.signal.aborted;
          if (!retry) throw error;
        }
      }
    },
    close,
    async closeAndWait() {
      close();
      await connecting?.catch(() => undefined);
      await Promise.all([...endings]);
    },
  };
}
