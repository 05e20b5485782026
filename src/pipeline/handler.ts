/**
 * The seam between transports (src/listeners) and the stage chain: a
 * listener hands raw query bytes and who sent them, and gets raw response
 * bytes back (or null: send nothing). Socket code knows nothing of stages.
 */
import type { Snapshot } from "./snapshot.ts";

/**
 * How a query came: plain DNS over UDP or TCP, DNS over TLS (RFC 7858),
 * HTTPS (RFC 8484) or QUIC (RFC 9250). Every one but UDP carries answers of
 * up to 65,535 octets.
 */
export type Transport = "udp" | "tcp" | "dot" | "doh" | "doq";

export interface ClientInfo {
  /** Source address without brackets ("192.0.2.1", "::1"). */
  address: string;
  port: number;
  transport: Transport;
  /** The DoT/DoH client ID (SNI label or /dns-query/<id>), when the transport has one. */
  clientId?: string;
  /**
   * The listener has as many queries waiting (on upstreams) as it keeps:
   * answer what needs no wait (memo, cache, stale, local), and drop the
   * rest rather than wait (status `overloaded`).
   */
  overloaded?: true;
  /**
   * Where a connection that can carry an answer of many messages (a zone
   * transfer over TCP, RFC 5936 §2.2) takes one; absent (UDP), such an
   * answer cannot be given.
   */
  streams?: (stream: AnswerStream) => void;
}

/**
 * An answer of many messages, made one at a time as the connection can
 * send them, so that a large zone is never held encoded in memory whole.
 */
export interface AnswerStream {
  /** The next message, ID set; undefined after the last. */
  next(): Promise<Uint8Array | undefined>;
}

export interface QueryHandler {
  /**
   * Answers one query. For UDP the answer is sized to the client's EDNS
   * payload size (512 without EDNS) and truncated with TC=1 when it does not
   * fit; for TCP the limit is 65535. Never throws, and a returned promise
   * never rejects.
   *
   * Answers that need no I/O (memo hits, ingress's answers) come back
   * synchronously, so a listener can send them without a promise per query.
   * `query` may be the listener's receive buffer: the handler reads it only
   * until it returns, or until its promise settles when it returns one, and
   * the answer never shares memory with it.
   */
  handle(
    query: Uint8Array,
    client: ClientInfo,
  ): Promise<Uint8Array | null> | Uint8Array | null;
  /** Swaps in a new snapshot (one assignment; queries in flight keep the old one). */
  setSnapshot(snapshot: Snapshot): void;
}
