/**
 * Picks the transport for a server's scheme: udp and tcp here, tls (DoT)
 * in `tls.ts`, https (DoH) in `https.ts`. Every transport gets the server
 * as parsed plus the IP address to connect to (the host, or what bootstrap
 * resolved it to) and the extra CA certificates for TLS.
 */
import { createHttpsTransport } from "./https.ts";
import type { UpstreamServer } from "../config/upstream_server.ts";
import { createTcpTransport } from "./tcp.ts";
import { createTlsTransport } from "./tls.ts";
import type { Transport } from "./types.ts";
import { createUdpTransport } from "./udp.ts";

/** What a transport needs besides the server. */
export interface TransportDeps {
  /** The IP address to connect to. */
  address: string;
  /** Extra trusted CA certificates (PEM) for DoT and DoH. */
  caCerts?: string[];
}

/** Makes the transport of one server; tests pass scripted ones. */
export type TransportFactory = (
  server: UpstreamServer,
  deps: TransportDeps,
) => Transport;

/** The transport for `server.scheme`. */
export function createTransport(
  server: UpstreamServer,
  deps: TransportDeps,
): Transport {
  switch (server.scheme) {
    case "udp":
      return createUdpTransport(server, { address: deps.address });
    case "tcp":
      return createTcpTransport(server, { address: deps.address });
    case "tls":
      return createTlsTransport(server, deps);
    case "https":
      return createHttpsTransport(server, deps);
  }
}

/**
 * Closes a transport; for pooled ones, waits until their connections have
 * really ended (so tests and shutdown leave no socket behind).
 */
export async function closeTransport(transport: Transport): Promise<void> {
  const pooled = transport as Transport & {
    closeAndWait?: () => Promise<void>;
  };
  if (typeof pooled.closeAndWait === "function") {
    await pooled.closeAndWait();
  } else {
    transport.close();
  }
}
