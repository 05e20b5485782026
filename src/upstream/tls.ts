/**
 * DNS over TLS (RFC 7858) to one upstream server: one pooled connection,
 * pipelined queries, reconnect when the connection is gone.
 *
 * Deno.connectTls uses its `hostname` both to connect and to verify the
 * certificate, so we connect TCP to the resolved address ourselves and then
 * upgrade with Deno.startTls, whose `hostname` is only the name sent as SNI
 * and checked against the certificate. That way the bootstrap-resolved IP is
 * what we dial and `tlsServerName ?? host` is what we verify.
 */

import { createPooledTransport, type PooledTransport } from "./tcp.ts";
import {
  formatHostPort,
  type UpstreamServer,
} from "../config/upstream_server.ts";

/** Close a pooled connection after this long without queries (RFC 7766 §6.2.3 leaves it to us). */
export const TLS_IDLE_TIMEOUT_MS = 10_000;
/** Most queries in flight on the one connection; more fail at once. */
export const TLS_MAX_IN_FLIGHT = 256;
/** Give up connecting (TCP and TLS handshake) after this long. */
export const TLS_CONNECT_TIMEOUT_MS = 5_000;

/** How to reach one DoT server. */
export interface TlsTransportOptions {
  /** The resolved IP to connect to (brackets around IPv6 are allowed). */
  address: string;
  /** Extra trusted roots, PEM (tests, private CAs); the system's stay trusted. */
  caCerts?: string[];
  /** @default {TLS_IDLE_TIMEOUT_MS} */
  idleTimeoutMs?: number;
  /** @default {TLS_CONNECT_TIMEOUT_MS} */
  connectTimeoutMs?: number;
}

/**
 * A DoT transport for `server` (scheme "tls"), dialling `opts.address`: one
 * pooled connection with pipelined queries (the TCP transport's pool, over
 * TLS), replaced when it closes, closed after `idleTimeoutMs` without queries.
 */
export function createTlsTransport(
  server: UpstreamServer,
  opts: TlsTransportOptions,
): PooledTransport {
  return createPooledTransport((signal) => dialTls(server, opts, signal), {
    label: `DoT server "${server.raw}"`,
    idleMs: opts.idleTimeoutMs ?? TLS_IDLE_TIMEOUT_MS,
    maxInFlight: TLS_MAX_IN_FLIGHT,
  });
}

/** The name the certificate must be valid for: an explicit one, or the host. */
export function tlsVerifyName(server: UpstreamServer): string {
  return stripBrackets(server.tlsServerName ?? server.host);
}

/** "[::1]" → "::1"; other hosts unchanged. */
export function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/**
 * TCP to the address, then TLS verified for the server's name, within the
 * connect timeout; `signal` (the transport closing) stops it too.
 *
 * @throws {Error} "Cannot connect to DoT server …" with the reason, e.g. the
 *   certificate error
 */
async function dialTls(
  server: UpstreamServer,
  opts: TlsTransportOptions,
  signal: AbortSignal,
): Promise<Deno.TlsConn> {
  const address = stripBrackets(opts.address);
  const port = server.port;
  const timeout = new AbortController();
  let tls: Deno.TlsConn | undefined;
  const closeTls = () => {
    try {
      tls?.close(); // a handshake in progress fails with BadResource
    } catch {
      // already closed
    }
  };
  const timer = setTimeout(() => {
    timeout.abort();
    closeTls();
  }, opts.connectTimeoutMs ?? TLS_CONNECT_TIMEOUT_MS);
  try {
    const tcp = await Deno.connect({
      hostname: address,
      port,
      signal: AbortSignal.any([signal, timeout.signal]),
    });
    tls = await Deno.startTls(tcp, {
      hostname: tlsVerifyName(server),
      ...(opts.caCerts ? { caCerts: opts.caCerts } : {}),
    });
    await tls.handshake();
    return tls;
  } catch (err) {
    closeTls();
    const why = timeout.signal.aborted
      ? "timed out"
      : err instanceof Error
      ? err.message
      : String(err);
    throw new Error(
      `Cannot connect to DoT server "${server.raw}" at ${
        formatHostPort(address, port)
      }: ${why}`,
      { cause: err },
    );
  } finally {
    clearTimeout(timer);
  }
}
