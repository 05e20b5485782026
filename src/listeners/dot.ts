/**
 * DNS over TLS (RFC 7858): TLS on TCP with ALPN `dot`, then exactly the
 * sessions of plain TCP (tcp.ts serveStreams: framing, pipelining,
 * out-of-order answers, idle timeout, connection cap; RFC 7858 §3.3).
 *
 * node:tls rather than Deno.listenTls, for two things Deno's own TLS
 * listener does not give: the server name (SNI) of each connection, which
 * names the client (client_id.ts), and a certificate chosen per handshake,
 * so a rotated certificate serves new connections at once while the open
 * ones go on (setCertificate). Measured on an echo server, node:tls was
 * not the slower of the two (docs/performance.md).
 */
import tls from "node:tls";
import type { Socket } from "node:net";
import type { CertificatePair } from "./worker_messages.ts";
import { clientIdFromServerName } from "./client_id.ts";
import { NodeSocketConn } from "./node_socket_conn.ts";
import type { StreamConn } from "./tcp_connection.ts";
import {
  serveStreams,
  type StreamListener,
  TCP_MAX_CONNECTIONS,
  type TcpServer,
  type TcpServerOptions,
} from "./tcp.ts";

/** A handshake not done within this is dropped (node's default is 120 s). */
export const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;
/**
 * Connections still in their handshake, on top of the connection cap: the
 * sessions are capped once accepted (tcp.ts), and these are bounded by the
 * handshake timeout, so a client that opens and never speaks TLS holds a
 * few sockets for 10 s, not every place.
 */
const HANDSHAKE_SLACK = 256;

export interface DotServerOptions extends TcpServerOptions {
  certificate: CertificatePair;
  /** listeners.clientIdDomain: SNI `<id>.<domain>` names the client. */
  clientIdDomain?: string;
  /** @default 10000 */
  handshakeTimeoutMs?: number;
}

export interface DotServer extends TcpServer {
  /** New handshakes use `pair` from now on; open connections keep theirs. */
  setCertificate(pair: CertificatePair): void;
}

/**
 * Binds and serves.
 *
 * @throws {Error} named as Deno names bind errors (AddrInUse, …) when it cannot bind
 */
export async function serveDot(opts: DotServerOptions): Promise<DotServer> {
  let context = tls.createSecureContext(opts.certificate);
  const domain = opts.clientIdDomain ?? "";
  const server = tls.createServer({
    ...opts.certificate,
    ALPNProtocols: ["dot"],
    handshakeTimeout: opts.handshakeTimeoutMs ?? TLS_HANDSHAKE_TIMEOUT_MS,
    // The client may close its sending side and still read its answers.
    allowHalfOpen: true,
    SNICallback: (_name, done) => done(null, context),
  });
  server.maxConnections = (opts.maxConnections ?? TCP_MAX_CONNECTIONS) +
    HANDSHAKE_SLACK;
  server.on("tlsClientError", (_error, socket: Socket) => {
    opts.counters.tlsHandshakeFailed++;
    socket.destroy();
  });
  const listener = await acceptQueue(
    server,
    opts,
    (socket) =>
      new NodeSocketConn(
        socket,
        clientIdFromServerName(serverName(socket), domain),
      ),
  );
  const served = serveStreams(listener, { ...opts, transport: "dot" });
  return {
    ...served,
    addr: served.addr,
    setCertificate(pair) {
      context = tls.createSecureContext(pair);
    },
  };
}

/** The server's secure connections as a StreamListener, once it is bound. */
async function acceptQueue(
  server: tls.Server,
  opts: Pick<TcpServerOptions, "hostname" | "port" | "reusePort">,
  wrap: (socket: Socket) => StreamConn,
): Promise<StreamListener> {
  const ready: StreamConn[] = [];
  let waiter: PromiseWithResolvers<StreamConn> | undefined;
  let closed = false;
  server.on("secureConnection", (socket: tls.TLSSocket) => {
    if (closed) {
      socket.destroy();
      return;
    }
    const conn = wrap(socket);
    if (waiter !== undefined) {
      const w = waiter;
      waiter = undefined;
      w.resolve(conn);
    } else ready.push(conn);
  });
  await new Promise<void>((resolve, reject) => {
    server.once(
      "error",
      (error: NodeJS.ErrnoException) => reject(bindError(error)),
    );
    server.listen({
      host: opts.hostname,
      port: opts.port,
      ...(opts.reusePort && { reusePort: true }),
    }, () => resolve());
  });
  server.on("error", () => {}); // after the bind: per-connection, handled there
  const address = server.address();
  const port = typeof address === "object" && address !== null
    ? address.port
    : opts.port;
  return {
    addr: { transport: "tcp", hostname: opts.hostname, port },
    accept() {
      const next = ready.shift();
      if (next !== undefined) return Promise.resolve(next);
      if (closed) return Promise.reject(new Deno.errors.BadResource("closed"));
      waiter = Promise.withResolvers<StreamConn>();
      return waiter.promise;
    },
    close() {
      if (closed) return;
      closed = true;
      server.close();
      for (const conn of ready.splice(0)) conn.close();
      waiter?.reject(new Deno.errors.BadResource("closed"));
      waiter = undefined;
    },
  };
}

/** The SNI the client sent (node sets it on server sockets; untyped here). */
function serverName(socket: Socket): string | undefined {
  const name = (socket as { servername?: unknown }).servername;
  return typeof name === "string" ? name : undefined;
}

/** node's bind error as the Deno error the listener messages explain (listener_error.ts). */
function bindError(error: NodeJS.ErrnoException): Error {
  const names: Record<string, string> = {
    EADDRINUSE: "AddrInUse",
    EACCES: "PermissionDenied",
    EADDRNOTAVAIL: "AddrNotAvailable",
  };
  const e = new Error(error.message, { cause: error });
  e.name = names[error.code ?? ""] ?? error.name;
  return e;
}
