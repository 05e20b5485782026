/**
 * DNS over HTTPS (RFC 8484) to one upstream server: POST
 * application/dns-message over one pooled HTTP/2 connection, many queries
 * multiplexed as streams.
 *
 * Why node:http2 and not fetch: fetch connects to the host in the URL, so a
 * server named by host name would be resolved by the system resolver, not by
 * our bootstrap list, and Deno.createHttpClient has no way to dial one
 * address while verifying another name (its "tcp" proxy speaks plain HTTP).
 * node:http2 takes the socket from `createConnection`, so we dial the
 * bootstrap-resolved address with node:tls and verify `tlsServerName ?? host`.
 * The cost: the server must speak HTTP/2 (RFC 8484 §5.2 recommends it; every
 * public DoH service does).
 */

import http2 from "node:http2";
import tls from "node:tls";
import type { PooledTransport } from "./tcp.ts";
import type { UpstreamServer } from "../config/upstream_server.ts";
import { formatHostPort, isIpAddress } from "../config/upstream_server.ts";
import { stripBrackets, tlsVerifyName } from "./tls.ts";
import { postDnsMessage, StreamRefusedError } from "./https_request.ts";
import { STALL_MS } from "./pipelined_connection.ts";

/** Close the pooled connection after this long without queries. */
export const HTTPS_IDLE_TIMEOUT_MS = 10_000;
/** Give up connecting (TCP, TLS and HTTP/2 settings) after this long. */
export const HTTPS_CONNECT_TIMEOUT_MS = 5_000;

/** How to reach one DoH server. */
export interface HttpsTransportOptions {
  /** The resolved IP to connect to (brackets around IPv6 are allowed). */
  address: string;
  /** Extra trusted roots, PEM (tests, private CAs). */
  caCerts?: string[];
  /** @default {HTTPS_IDLE_TIMEOUT_MS} */
  idleTimeoutMs?: number;
  /** @default {HTTPS_CONNECT_TIMEOUT_MS} */
  connectTimeoutMs?: number;
}

/** A DoH transport for `server` (scheme "https"), dialling `opts.address`. */
export function createHttpsTransport(
  server: UpstreamServer,
  opts: HttpsTransportOptions,
): PooledTransport {
  return new PooledHttpsTransport(server, opts);
}

class PooledHttpsTransport implements PooledTransport {
  readonly #server: UpstreamServer;
  readonly #opts: HttpsTransportOptions;
  #session: http2.ClientHttp2Session | null = null;
  /** Every session not yet closed, the pooled one and any draining after GOAWAY or idle. */
  readonly #live = new Map<http2.ClientHttp2Session, Promise<void>>();
  #inFlight = 0;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(server: UpstreamServer, opts: HttpsTransportOptions) {
    this.#server = server;
    this.#opts = opts;
  }

  async exchange(query: Uint8Array, signal: AbortSignal): Promise<Uint8Array> {
    signal.throwIfAborted();
    if (this.#closed) {
      throw new Error(
        `Cannot query DoH server "${this.#server.raw}": the transport is closed`,
      );
    }
    this.#inFlight++;
    this.#disarmIdleTimer();
    try {
      for (let attempt = 0;; attempt++) {
        const session = this.#pooledSession();
        const state = sessionStates.get(session)!;
        const responsesBefore = state.responses;
        const sentAt = performance.now();
        let answered = false;
        try {
          return await postDnsMessage(session, query, signal, {
            label: this.#server.raw,
            path: this.#server.path ?? "/dns-query",
            connectError: (err) => this.#connectError(session, err),
            onResponse: () => {
              answered = true;
              state.responses++;
            },
          });
        } catch (error) {
          if (signal.aborted) {
            this.#dropIfStalled(session, state, responsesBefore, sentAt);
          }
          const again = attempt === 0 && !answered && !signal.aborted &&
            !this.#closed && this.#unprocessed(session, state, error);
          if (!again) throw error;
        }
      }
    } finally {
      if (--this.#inFlight === 0 && this.#session !== null) {
        this.#armIdleTimer();
      }
    }
  }

  close(): void {
    this.#closed = true;
    this.#disarmIdleTimer();
    this.#session = null;
    for (const session of this.#live.keys()) session.destroy();
  }

  async closeAndWait(): Promise<void> {
    this.close();
    await Promise.all(this.#live.values());
  }

  #pooledSession(): http2.ClientHttp2Session {
    const current = this.#session;
    if (current !== null && !current.closed && !current.destroyed) {
      return current;
    }
    return this.#connect();
  }

  #connect(): http2.ClientHttp2Session {
    const { host, port } = this.#server;
    const address = stripBrackets(this.#opts.address);
    const name = tlsVerifyName(this.#server);
    const caCerts = this.#opts.caCerts;
    const session = http2.connect(`https://${formatHostPort(host, port)}`, {
      createConnection: () =>
        tls.connect({
          host: address,
          port,
          // node:tls refuses an IP as SNI; an IP is then checked below only.
          ...(isIpAddress(name) ? {} : { servername: name }),
          ...(caCerts ? { ca: caCerts } : {}),
          ALPNProtocols: ["h2"],
          checkServerIdentity: (_host, cert) =>
            tls.checkServerIdentity(name, cert),
        }),
    });
    const connectTimer = setTimeout(() => {
      session.destroy(new Error("timed out"));
    }, this.#opts.connectTimeoutMs ?? HTTPS_CONNECT_TIMEOUT_MS);
    const state: SessionState = {
      connected: false,
      connectedAt: 0,
      error: undefined,
      responses: 0,
    };
    sessionStates.set(session, state);
    session.once("connect", () => {
      state.connected = true;
      state.connectedAt = performance.now();
      clearTimeout(connectTimer);
    });
    // Without a listener an 'error' event would throw; the streams see it too.
    session.on("error", (err: Error) => {
      state.error ??= err;
    });
    session.once("goaway", () => this.#forget(session));
    this.#live.set(
      session,
      new Promise<void>((resolve) => {
        session.once("close", () => {
          clearTimeout(connectTimer);
          this.#forget(session);
          this.#live.delete(session);
          resolve();
        });
      }),
    );
    this.#session = session;
    return session;
  }

  /** New queries go to a new session; the old one finishes its streams. */
  #forget(session: http2.ClientHttp2Session): void {
    if (this.#session !== session) return;
    this.#session = null;
    this.#disarmIdleTimer();
  }

  /**
   * The rule of the TCP and DoT connections (STALL_MS in
   * pipelined_connection.ts): a session that sent no response since a
   * stream given up was sent, at least STALL_MS after it was sent (or after
   * the session connected, when it was sent during the handshake), is taken
   * for dead and destroyed, so the next query opens a new one. A server
   * that hangs, or a NAT or load balancer that lost the connection, keeps
   * it open and silent, and the idle timer never runs while queries keep
   * coming. A session still connecting is left to the connect timeout.
   */
  #dropIfStalled(
    session: http2.ClientHttp2Session,
    state: SessionState,
    responsesBefore: number,
    sentAt: number,
  ): void {
    if (!state.connected || state.responses !== responsesBefore) return;
    const silentMs = performance.now() - Math.max(sentAt, state.connectedAt);
    if (silentMs < STALL_MS) return;
    this.#forget(session);
    session.destroy();
  }

  /**
   * Whether a query that got no response headers was left unanswered by a
   * session that went away, so it may be asked once more on a new one (as
   * the TCP and DoT pools do): the server refused its stream (after a
   * GOAWAY, or over its stream limit), or the session was closed or told to
   * go away while the query waited (a server restarting, or closing
   * connections after so many requests like nginx). A session that never
   * connected is not retried: a new one would fail the same way.
   */
  #unprocessed(
    session: http2.ClientHttp2Session,
    state: SessionState,
    error: unknown,
  ): boolean {
    if (!state.connected) return false;
    if (error instanceof StreamRefusedError) return true;
    return this.#session !== session || session.closed || session.destroyed;
  }

  /** The error for a stream that failed before its session connected. */
  #connectError(
    session: http2.ClientHttp2Session,
    streamError: unknown,
  ): Error | null {
    const state = sessionStates.get(session);
    if (state === undefined || state.connected) return null;
    // A stream may hear of the failure before its session does; node:http2
    // then gives the session's error as the stream error's cause.
    const why = state.error ?? causeOf(streamError);
    const address = stripBrackets(this.#opts.address);
    return new Error(
      `Cannot connect to DoH server "${this.#server.raw}" at ${
        formatHostPort(address, this.#server.port)
      }: ${why?.message ?? "the connection closed"}`,
      { cause: why },
    );
  }

  #armIdleTimer(): void {
    this.#disarmIdleTimer();
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      const session = this.#session;
      if (this.#inFlight > 0 || session === null) return;
      this.#session = null;
      session.close();
    }, this.#opts.idleTimeoutMs ?? HTTPS_IDLE_TIMEOUT_MS);
  }

  #disarmIdleTimer(): void {
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }
}

/** What the streams of a session need to know to explain their failure. */
interface SessionState {
  connected: boolean;
  /** performance.now() when it connected. */
  connectedAt: number;
  /** The first session error (a certificate error, a refused connection). */
  error: Error | undefined;
  /** Responses (headers of any status) heard on it, for telling a dead one. */
  responses: number;
}

const sessionStates = new WeakMap<http2.ClientHttp2Session, SessionState>();

function causeOf(err: unknown): Error | undefined {
  if (!(err instanceof Error)) return undefined;
  return err.cause instanceof Error ? err.cause : err;
}
