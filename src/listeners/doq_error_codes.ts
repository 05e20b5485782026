/**
 * DoQ application error codes (RFC 9250 §4.3), sent in a QUIC
 * CONNECTION_CLOSE by the DoQ listener (doq.ts) and read by its client
 * (doq_client.ts). Deno's QUIC API closes a connection with a code but
 * cannot reset a single stream with one, so every code here ends a
 * connection.
 */

/** Closing with nothing to signal (idle, stop, evicted at the cap). */
export const DOQ_NO_ERROR = 0x0;
/** The server cannot go on with the transaction or the connection. */
export const DOQ_INTERNAL_ERROR = 0x1;
/**
 * The peer broke the mapping of RFC 9250 §4.2 (a non-zero Message ID, a
 * length prefix that disagrees with the stream, more than one message on
 * a stream, a stream never finished); RFC 9250 §4.3.3.
 */
export const DOQ_PROTOCOL_ERROR = 0x2;
/** A client cancels a transaction (STOP_SENDING, RFC 9250 §4.3.1). */
export const DOQ_REQUEST_CANCELLED = 0x3;
/** Closing because the connection asks more than the server keeps for one. */
export const DOQ_EXCESSIVE_LOAD = 0x4;
export const DOQ_UNSPECIFIED_ERROR = 0x5;

/** The ALPN token of DoQ (RFC 9250 §4.1). */
export const DOQ_ALPN = "doq";
