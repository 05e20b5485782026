/**
 * Counts of a DoQ listener (doq.ts) that SocketCounters has no field for:
 * what happened to incoming QUIC connections and why connections were
 * closed. Incremented in place like SocketCounters; the owner reads and
 * resets them. Queries, unsent answers and failed handshakes go to
 * SocketCounters (`queries`, `sendErrors`, `tlsHandshakeFailed`).
 */
export interface DoqStats {
  /** Connections whose handshake completed with ALPN doq. */
  accepted: number;
  /** Incoming connections refused (CONNECTION_REFUSED) at maxConnections, none idle. */
  refused: number;
  /** Idle connections closed (DOQ_NO_ERROR) at maxConnections to admit a new one. */
  evicted: number;
  /** Incoming connections ignored, unanswered, over handshakesPerSecond. */
  throttled: number;
  /**
   * Connections closed with DOQ_PROTOCOL_ERROR for a malformed stream: a
   * non-zero Message ID, a length prefix the stream disagrees with, a
   * message shorter than a DNS header, data after the message.
   */
  protocolErrors: number;
  /**
   * Connections closed because a stream made no progress for half the idle
   * timeout: a query never finished (DOQ_PROTOCOL_ERROR), or an answer the
   * client does not take (DOQ_EXCESSIVE_LOAD).
   */
  stalled: number;
  /**
   * Connections closed with DOQ_EXCESSIVE_LOAD because the queries still
   * arriving on them held more octets than a connection, or the listener,
   * keeps.
   */
  excessiveLoad: number;
  /** Connections that ended by the QUIC idle timeout (RFC 9000 §10.1). */
  idleClosed: number;
}

export function emptyDoqStats(): DoqStats {
  return {
    accepted: 0,
    refused: 0,
    evicted: 0,
    throttled: 0,
    protocolErrors: 0,
    stalled: 0,
    excessiveLoad: 0,
    idleClosed: 0,
  };
}
