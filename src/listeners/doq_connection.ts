/**
 * One DoQ connection (RFC 9250): every client-initiated bidirectional
 * stream carries one query and gets its answer, or the many messages of a
 * zone transfer (§4.2, §5.7), each length-prefixed, then the server's FIN.
 * Streams are answered concurrently, as they complete (§5.6); how many are
 * open at once is the QUIC stream limit the listener grants (doq.ts).
 *
 * A stream that breaks the mapping closes the whole connection with
 * DOQ_PROTOCOL_ERROR (§4.3.3): Deno's QUIC API cannot reset one stream
 * with an error code (aborting a stream sends a FIN), so the connection is
 * the smallest thing that can carry the error.
 *
 * Bounds: a stream that makes no progress (a query never finished, an
 * answer the client never takes) for `stallMs` closes the connection
 * (§4.2 lets a server limit such "dangling" streams); queries still
 * arriving hold at most `maxQueryBytes` here and the listener's
 * `queryBytes.max` over all connections (DOQ_EXCESSIVE_LOAD beyond).
 *
 * Closing: QUIC discards what a connection has not sent when it closes,
 * unlike a TCP socket whose kernel still sends what was written, so a
 * connection that wrote an answer less than DOQ_DRAIN_MS ago waits that
 * long (or for the client to close) before it closes.
 */
import type {
  AnswerStream,
  ClientInfo,
  QueryHandler,
} from "../pipeline/handler.ts";
import type { Logger } from "../log/logger.ts";
import type { SocketCounters } from "./worker_messages.ts";
import type { DoqStats } from "./doq_stats.ts";
import { frameMessage } from "../dns/wire/tcp_framing.ts";
import { stopAnswer } from "./stop_answer.ts";
import {
  DOQ_EXCESSIVE_LOAD,
  DOQ_INTERNAL_ERROR,
  DOQ_NO_ERROR,
  DOQ_PROTOCOL_ERROR,
} from "./doq_error_codes.ts";
import {
  type QueryBuffers,
  readQuery,
  type StreamFault,
} from "./doq_query_reader.ts";

/**
 * Longest wait, once a connection is closing (shut down, evicted), for the
 * answers in flight; then the queries still unanswered get SERVFAIL. As
 * for TCP (TCP_CLOSE_GRACE_MS).
 */
export const DOQ_CLOSE_GRACE_MS = 5_000;

/**
 * How long a connection that wrote less than this ago waits before it
 * closes, so that what it wrote reaches the client (a closed QUIC
 * connection sends nothing more, not even retransmissions). One second, as
 * TCP gives its last answers (LAST_WRITE_MS in tcp_connection.ts).
 */
export const DOQ_DRAIN_MS = 1_000;

/**
 * The listener's queries waiting on the handler over all its connections:
 * at `max`, queries are handed over marked `overloaded` (as for TCP).
 */
export interface DoqWaitBudget {
  waiting: number;
  readonly max: number;
}

/** Octets reserved by queries still arriving, over all connections. */
export interface DoqQueryBytes {
  held: number;
  readonly max: number;
}

export interface DoqConnectionOptions {
  handler: QueryHandler;
  counters: SocketCounters;
  stats: DoqStats;
  logger: Logger;
  /** A stream with no progress for this long closes the connection. */
  stallMs: number;
  /** Octets reserved by this connection's queries still arriving, at most. */
  maxQueryBytes: number;
  /** Shared by the connections of one listener. */
  budget: DoqWaitBudget;
  /** Shared by the connections of one listener. */
  queryBytes: DoqQueryBytes;
  /** From the server name the client sent (client_id.ts). */
  clientId?: string;
}

/** A served connection. */
export interface DoqSession {
  /** Resolves once the connection is closed and its loops have ended. */
  readonly done: Promise<void>;
  /**
   * Stops taking queries; closes (DOQ_NO_ERROR) once the answers in flight
   * are sent, or after `graceMs` (at most DOQ_CLOSE_GRACE_MS) with SERVFAIL
   * for those not ready.
   */
  shutdown(graceMs?: number): void;
  /** True from the start of a shutdown (or any close) on. */
  closing(): boolean;
  /**
   * When the connection's last query arrived (`Date.now()`, or when it
   * opened), while nothing is in progress on it; undefined while a stream
   * is being read, answered or written, or it is closing.
   */
  idleSince(): number | undefined;
}

/** A query whose answer the handler has not given yet. */
interface Waiting {
  query: Uint8Array;
  writable: WritableStream<Uint8Array>;
  /** Answered already (SERVFAIL at the end of the grace): ignore the late one. */
  answered: boolean;
  /** An answer of many messages the handler gave through `ClientInfo.streams`. */
  stream?: AnswerStream;
}

/** A stream being read or written, and since when without progress. */
interface Progress {
  since: number;
  /** The close code if it stalls. */
  code: number;
}

const FAULT_REASONS: Record<Exclude<StreamFault, "lost">, string> = {
  short: "stream ended before the message",
  extra: "data after the message",
  empty: "zero length prefix",
  header: "message shorter than a DNS header",
  id: "Message ID not 0",
  buffers: "too many octets of queries in flight",
};

/** Serves queries on an accepted connection until it closes. */
export function serveDoqConnection(
  conn: Deno.QuicConn,
  opts: DoqConnectionOptions,
): DoqSession {
  const { handler, counters, stats, logger, budget, queryBytes } = opts;
  /** Queries the handler is still answering. */
  const waiting = new Set<Waiting>();
  /** Streams being read or written, oldest progress first (Set order). */
  const progress = new Set<Progress>();
  /** Answers being written. */
  let writes = 0;
  /** Octets reserved by this connection's queries still arriving. */
  let heldQueryBytes = 0;
  let closing = false;
  let closed = false;
  /** The last step of a close has begun (waiting for the drain). */
  let finishing = false;
  /** Date.now() when the last query arrived (or a transfer progressed). */
  let lastQueryAt = Date.now();
  /** Date.now() when an answer's write last completed. */
  let lastWriteAt = -Infinity;
  let stallTimer: ReturnType<typeof setTimeout> | undefined;
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  let graceEndsAt = Infinity;
  let closeTimer: ReturnType<typeof setTimeout> | undefined;
  const finished = Promise.withResolvers<void>();
  let remote = conn.remoteAddr;

  const buffers: QueryBuffers = {
    reserve(bytes) {
      if (
        heldQueryBytes + bytes > opts.maxQueryBytes ||
        queryBytes.held + bytes > queryBytes.max
      ) return false;
      heldQueryBytes += bytes;
      queryBytes.held += bytes;
      return true;
    },
    release(bytes) {
      heldQueryBytes -= bytes;
      queryBytes.held -= bytes;
    },
  };

  // One timer for every stream's progress, not one per stream: it fires
  // when the oldest could have stalled, and waits again for the rest of
  // the period if it has moved (entries are re-added when they progress,
  // so the Set's first is the oldest).
  function watch(item: Progress) {
    progress.add(item);
    if (stallTimer === undefined && !closed) {
      stallTimer = setTimeout(checkStalls, opts.stallMs);
    }
  }

  function checkStalls() {
    stallTimer = undefined;
    if (closed) return;
    const oldest = progress.values().next().value;
    if (oldest === undefined) return;
    const stillMs = Date.now() - oldest.since;
    if (stillMs >= opts.stallMs) {
      stats.stalled++;
      closeNow(oldest.code, "stream made no progress");
      return;
    }
    stallTimer = setTimeout(checkStalls, opts.stallMs - stillMs);
  }

  function beginClose(graceMs?: number) {
    const grace = Math.min(DOQ_CLOSE_GRACE_MS, graceMs ?? Infinity);
    if (closing) {
      // A stop with less time left than the close already under way.
      if (graceTimer !== undefined && Date.now() + grace < graceEndsAt) {
        clearTimeout(graceTimer);
        graceEndsAt = Date.now() + grace;
        graceTimer = setTimeout(graceOver, grace);
      }
      return;
    }
    closing = true;
    if (waiting.size === 0 && writes === 0) {
      finish();
      return;
    }
    graceEndsAt = Date.now() + grace;
    graceTimer = setTimeout(graceOver, grace);
  }

  /** Closing, and nothing left to answer or write: the last step. */
  function closeIfDone() {
    if (closing && !finishing && waiting.size === 0 && writes === 0) finish();
  }

  /**
   * The grace is over: the queries still unanswered get SERVFAIL, and the
   * connection closes once those are sent.
   */
  function graceOver() {
    graceTimer = undefined;
    for (const entry of waiting) {
      entry.answered = true;
      void writeAnswer(entry.writable, stopAnswer(entry.query) ?? null);
    }
    waiting.clear();
    finish();
  }

  /**
   * Closes with DOQ_NO_ERROR: at once when nothing was written lately,
   * else after DOQ_DRAIN_MS (writes still under way get that long too), or
   * when the client closes first.
   */
  function finish() {
    if (finishing || closed) return;
    finishing = true;
    clearTimeout(graceTimer);
    graceTimer = undefined;
    const recent = Date.now() - lastWriteAt < DOQ_DRAIN_MS;
    if (!recent && writes === 0) {
      closeNow(DOQ_NO_ERROR, "");
      return;
    }
    closeTimer = setTimeout(() => closeNow(DOQ_NO_ERROR, ""), DOQ_DRAIN_MS);
  }

  /** Closes now with `code` (what is unsent is dropped). */
  function closeNow(code: number, reason: string) {
    if (closed) return;
    try {
      conn.close({ closeCode: code, reason });
    } catch {
      // already closed by the peer or the idle timeout
    }
    ended();
  }

  /** The connection is gone, by us or not: the answers still coming are dropped. */
  function ended() {
    if (closed) return;
    closed = true;
    closing = true;
    clearTimeout(stallTimer);
    clearTimeout(graceTimer);
    clearTimeout(closeTimer);
    for (const entry of waiting) entry.answered = true;
    waiting.clear();
    progress.clear();
    finished.resolve();
  }

  /** The connection failed under us: the idle timeout, or another transport error. */
  function lost(error: unknown) {
    if (!closed && /timed out/i.test(String(error))) stats.idleClosed++;
    ended();
  }

  conn.closed.then(() => ended(), lost);

  /** Writes one framed answer (or, for `reply` null, none) and the FIN. */
  async function writeAnswer(
    writable: WritableStream<Uint8Array>,
    reply: Uint8Array | null,
  ) {
    if (closed) return;
    const framed = reply === null ? null : frameMessage(reply);
    if (reply !== null && framed === null) {
      // Cannot be framed (the handler sizes answers to fit): no answer.
      counters.sendErrors++;
    }
    writes++;
    const item: Progress = { since: Date.now(), code: DOQ_EXCESSIVE_LOAD };
    watch(item);
    try {
      const writer = writable.getWriter();
      // Queued behind the write: close() fails when the write did.
      if (framed !== null) writer.write(framed).catch(() => {});
      await writer.close();
      lastWriteAt = Date.now();
    } catch {
      // The client stopped the stream (STOP_SENDING: it no longer wants
      // the answer, RFC 9250 §4.3.1), or the connection went.
      if (framed !== null) counters.sendErrors++;
    } finally {
      progress.delete(item);
      writes--;
      closeIfDone();
    }
  }

  /**
   * Writes the messages of an answer of many messages as it makes them,
   * then the FIN. A transfer that fails part way must not look whole: the
   * connection is closed (DOQ_INTERNAL_ERROR) before the FIN could go.
   */
  async function writeTransfer(
    writable: WritableStream<Uint8Array>,
    stream: AnswerStream,
  ) {
    if (closed) return;
    writes++;
    const item: Progress = { since: Date.now(), code: DOQ_EXCESSIVE_LOAD };
    watch(item);
    let failed = false;
    try {
      const writer = writable.getWriter();
      for (;;) {
        let message: Uint8Array | undefined;
        try {
          message = await stream.next();
        } catch (error) {
          logger.error(
            "An answer of many messages failed; closing the connection",
            { client: remote.hostname, error },
          );
          failed = true;
          break;
        }
        if (message === undefined || closed) break;
        const framed = frameMessage(message);
        if (framed === null) {
          failed = true;
          break;
        }
        await writer.write(framed);
        // Sending is activity: a long transfer is neither idle nor stalled.
        lastQueryAt = lastWriteAt = Date.now();
        progress.delete(item);
        item.since = lastWriteAt;
        if (!closed) progress.add(item);
      }
      if (!failed && !closed) {
        await writer.close();
        lastWriteAt = Date.now();
      }
    } catch {
      // The client stopped the stream, or the connection went.
      counters.sendErrors++;
    } finally {
      progress.delete(item);
      writes--;
    }
    if (failed) closeNow(DOQ_INTERNAL_ERROR, "transfer failed");
    closeIfDone();
  }

  /** The handler's answer came: written, unless SERVFAIL went already. */
  function settle(entry: Waiting, reply: Uint8Array | null) {
    budget.waiting--;
    if (entry.answered) return;
    entry.answered = true;
    waiting.delete(entry);
    respond(entry, reply);
  }

  function respond(entry: Waiting, reply: Uint8Array | null) {
    if (entry.stream !== undefined) {
      void writeTransfer(entry.writable, entry.stream);
    } else {
      // No answer (null) is a FIN alone: the stream's place is given back
      // at once, and the client learns there is nothing to wait for.
      void writeAnswer(entry.writable, reply);
    }
  }

  function handle(query: Uint8Array, writable: WritableStream<Uint8Array>) {
    counters.queries++;
    lastQueryAt = Date.now();
    const entry: Waiting = { query, writable, answered: false };
    try {
      // Clients may move (RFC 9000 §9): the address now, not at the handshake.
      remote = conn.remoteAddr;
    } catch {
      // keep the last one known
    }
    const streams = (stream: AnswerStream) => {
      entry.stream = stream;
    };
    // At the listener's bound, queries are still handled: what needs no
    // wait is answered, the rest dropped by the pipeline (as for TCP).
    const client: ClientInfo = {
      address: remote.hostname,
      port: remote.port,
      transport: "doq",
      streams,
    };
    if (opts.clientId !== undefined) client.clientId = opts.clientId;
    if (budget.waiting >= budget.max) client.overloaded = true;
    let reply: Promise<Uint8Array | null> | Uint8Array | null;
    try {
      reply = handler.handle(query, client);
    } catch (error) {
      logger.error("Query handler threw", { error });
      reply = null;
    }
    if (reply instanceof Promise) {
      waiting.add(entry);
      budget.waiting++;
      reply.then((r) => settle(entry, r), (error) => {
        logger.error("Query handler threw", { error });
        settle(entry, null);
      });
    } else {
      entry.answered = true;
      respond(entry, reply);
    }
  }

  async function serveStream(stream: Deno.QuicBidirectionalStream) {
    const item: Progress = { since: Date.now(), code: DOQ_PROTOCOL_ERROR };
    watch(item);
    const read = await readQuery(stream.readable, buffers);
    progress.delete(item);
    // A query that completes once the connection is closing is not taken.
    if (closing) return;
    if (read.query !== undefined) {
      handle(read.query, stream.writable);
      return;
    }
    if (read.fault === "lost") return;
    if (read.fault === "buffers") {
      stats.excessiveLoad++;
      closeNow(DOQ_EXCESSIVE_LOAD, FAULT_REASONS.buffers);
      return;
    }
    stats.protocolErrors++;
    closeNow(DOQ_PROTOCOL_ERROR, FAULT_REASONS[read.fault]);
  }

  async function acceptStreams() {
    const incoming = conn.incomingBidirectionalStreams.getReader();
    try {
      for (;;) {
        const { value: stream, done } = await incoming.read();
        if (done) break;
        // A closing connection takes no more queries; their streams end
        // with it.
        if (!closing) void serveStream(stream);
      }
      ended();
    } catch (error) {
      // The connection closed (idle timeout, the client's close, ours).
      lost(error);
    }
  }

  const accepting = acceptStreams();
  return {
    done: Promise.all([accepting, finished.promise]).then(() => {}),
    shutdown: (graceMs) => beginClose(graceMs),
    closing: () => closing,
    idleSince: () =>
      closing || waiting.size > 0 || writes > 0 || progress.size > 0
        ? undefined
        : lastQueryAt,
  };
}
