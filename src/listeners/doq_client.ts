/**
 * A small DNS-over-QUIC client (RFC 9250) on `Deno.connectQuic`, for the
 * DoQ listener's tests and benchmarks: one query per client-initiated
 * bidirectional stream, 2-octet length prefix, FIN after the query; the
 * answer is every length-prefixed message up to the server's FIN. It also
 * sends malformed streams on purpose (`exchange`), which a real client
 * would not. There is no independent DoQ client packaged for Debian 12
 * (kdig 3.2 has no +quic).
 */
import { frameMessage } from "../dns/wire/tcp_framing.ts";
import { DOQ_ALPN } from "./doq_error_codes.ts";

export interface DoqClientOptions {
  hostname: string;
  port: number;
  /** PEM CA certificates to trust (in addition to the system's). */
  caCerts?: string[];
  /** The TLS server name (SNI) to send and verify; @default hostname */
  serverName?: string;
  /** @default ["doq"] */
  alpnProtocols?: string[];
  /** QUIC idle timeout the client asks for, in ms. */
  maxIdleTimeout?: number;
  /** Send PINGs this often (ms) to keep an idle connection open. */
  keepAliveInterval?: number;
  /**
   * The local endpoint to connect from; closing it abandons a handshake
   * the server never answers. @default a new one on an ephemeral port
   */
  endpoint?: Deno.QuicEndpoint;
}

export interface DoqExchangeOptions {
  /** End the stream (FIN) after `bytes`; @default true */
  fin?: boolean;
}

/** An answer whose octets do not split into whole messages. */
export class IncompleteAnswerError extends Error {
  constructor(readonly octets: Uint8Array) {
    super(
      `DoQ answer of ${octets.length} octets does not split into whole messages`,
    );
    this.name = "IncompleteAnswerError";
  }
}

/** A connected DoQ client. */
export interface DoqClient {
  readonly conn: Deno.QuicConn;
  /**
   * Sends `message` framed on a new stream, then FIN; resolves to the
   * messages of the answer (none when the server sent a FIN alone). Waits
   * for stream credit when the server's limit is reached.
   */
  query(message: Uint8Array): Promise<Uint8Array[]>;
  /** Sends `bytes` as they are (no framing added) on a new stream. */
  exchange(
    bytes: Uint8Array,
    opts?: DoqExchangeOptions,
  ): Promise<Uint8Array[]>;
  /** How the connection ended: the server's code, or a rejection (timeout). */
  readonly closed: Promise<Deno.QuicCloseInfo>;
  close(closeCode?: number): void;
}

/** Connects and completes the handshake; rejects when it fails. */
export async function connectDoq(opts: DoqClientOptions): Promise<DoqClient> {
  const conn = await Deno.connectQuic({
    hostname: opts.hostname,
    port: opts.port,
    alpnProtocols: opts.alpnProtocols ?? [DOQ_ALPN],
    ...(opts.caCerts !== undefined && { caCerts: opts.caCerts }),
    ...(opts.serverName !== undefined && { serverName: opts.serverName }),
    ...(opts.maxIdleTimeout !== undefined &&
      { maxIdleTimeout: opts.maxIdleTimeout }),
    ...(opts.keepAliveInterval !== undefined &&
      { keepAliveInterval: opts.keepAliveInterval }),
    ...(opts.endpoint !== undefined && { endpoint: opts.endpoint }),
  });
  const closed = conn.closed;
  // Observed here so that a close nobody awaits is no unhandled rejection.
  closed.catch(() => {});

  async function exchange(
    bytes: Uint8Array,
    { fin = true }: DoqExchangeOptions = {},
  ): Promise<Uint8Array[]> {
    const stream = await conn.createBidirectionalStream({
      waitUntilAvailable: true,
    });
    const writer = stream.writable.getWriter();
    await writer.write(bytes);
    if (fin) await writer.close();
    else writer.releaseLock();
    return splitAnswer(await readToEnd(stream.readable));
  }

  return {
    conn,
    closed,
    exchange,
    query(message) {
      const framed = frameMessage(message);
      if (framed === null) {
        return Promise.reject(
          new RangeError(
            `A DNS message of ${message.length} octets is too long`,
          ),
        );
      }
      return exchange(framed.slice());
    },
    close: (closeCode = 0) => {
      try {
        conn.close({ closeCode, reason: "" });
      } catch {
        // already closed
      }
    },
  };
}

async function readToEnd(readable: ReadableStream<Uint8Array>) {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of readable) {
    chunks.push(chunk);
    length += chunk.length;
  }
  const all = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all;
}

/** Cuts `octets` into length-prefixed messages; throws when they do not split. */
export function splitAnswer(octets: Uint8Array): Uint8Array[] {
  const messages: Uint8Array[] = [];
  let at = 0;
  while (at < octets.length) {
    if (at + 2 > octets.length) throw new IncompleteAnswerError(octets);
    const length = (octets[at]! << 8) | octets[at + 1]!;
    if (at + 2 + length > octets.length) {
      throw new IncompleteAnswerError(octets);
    }
    messages.push(octets.slice(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return messages;
}
