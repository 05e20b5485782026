/**
 * One DNS-over-TCP connection (RFC 7766): any number of queries, pipelined
 * queries answered concurrently and sent as they complete (out of order is
 * allowed, §6.2.1.1), an idle timeout, and a clean close that still sends
 * the answers in flight.
 *
 * Flow control: the connection stops reading (the client's writes then
 * back up in the kernel) while it has TCP_MAX_PIPELINE queries unanswered
 * or unsent, or while the answers it holds unsent take TCP_MAX_UNSENT_BYTES
 * or more. Answers that must wait for the socket are copied once, framed,
 * into chunks that are written whole (several small answers a write); the
 * handler's own array is not kept.
 */
import type {
  AnswerStream,
  ClientInfo,
  QueryHandler,
} from "../pipeline/handler.ts";
import type { Logger } from "../log/logger.ts";
import type { SocketCounters } from "./worker_messages.ts";
import {
  frameMessage,
  FrameReader,
  MAX_TCP_MESSAGE,
} from "../dns/wire/tcp_framing.ts";
import { stopAnswer } from "./stop_answer.ts";
import type { ProxyTrust } from "./proxy_trust.ts";

/**
 * Most queries of one connection in flight at once, counted until their
 * answer is written; queries beyond it wait, unparsed, in the frame
 * reader, and the connection stops reading until one completes
 * (back-pressure, not a limit on queries).
 */
export const TCP_MAX_PIPELINE = 128;

/**
 * Bytes of answers one connection holds unsent before it stops reading: a
 * client that sends and never reads holds about this much (plus the
 * answers to the queries it already had in flight), not TCP_MAX_PIPELINE
 * answers of up to 64 KiB each (8 MiB).
 */
export const TCP_MAX_UNSENT_BYTES = 256 * 1024;

/** Answers that wait are framed into chunks of at least this size. */
const CHUNK_BYTES = 16 * 1024;

const NO_BYTES = new Uint8Array(0);

/**
 * Longest wait, once a connection is closing (idle, shut down, reset), for
 * the answers in flight to be written; then the queries still unanswered
 * get SERVFAIL and it is closed. A client that never reads must not hold a
 * connection (and a place under the connection cap) for ever.
 */
export const TCP_CLOSE_GRACE_MS = 5_000;

/**
 * After the grace, how long the SERVFAILs may take to be written to a
 * client that was keeping up; one whose writes were already stuck is closed
 * at once.
 */
const LAST_WRITE_MS = 1_000;

/**
 * The worker's queries waiting on the handler over all its connections
 * (shared by them, like UDP's `udpMaxInFlight`): at `max`, queries are
 * handed over marked `overloaded`.
 */
export interface TcpWaitBudget {
  waiting: number;
  readonly max: number;
}

/**
 * What a session needs of its connection: a Deno.Conn (TCP) fits, and so
 * does a TLS socket behind node_socket_conn.ts (DoT).
 */
export interface StreamConn {
  read(buf: Uint8Array): Promise<number | null>;
  write(bytes: Uint8Array): Promise<number>;
  close(): void;
  readonly remoteAddr: Deno.Addr;
  /** The client ID its TLS server name gave (client_id.ts), if any. */
  readonly clientId?: string | undefined;
}

export interface TcpConnectionOptions {
  handler: QueryHandler;
  /** What the queries are counted and logged as. @default "tcp" */
  transport?: "tcp" | "dot";
  /**
   * `listeners.proxyProtocolFrom`: the connection may start with a PROXYv2
   * header (after the TLS handshake on DoT) naming the client.
   */
  proxy?: ProxyTrust;
  counters: SocketCounters;
  logger: Logger;
  /** Close when no query arrived for this long. */
  idleTimeoutMs: number;
  /** Shared by the connections of one listener. */
  budget: TcpWaitBudget;
}

/** A served connection. */
export interface TcpSession {
  /** Resolves once the connection is closed and its loops have ended. */
  readonly done: Promise<void>;
  /**
   * Stops reading; closes once the answers in flight are sent, or after
   * `graceMs` (at most the usual grace) with SERVFAIL for those not ready.
   */
  shutdown(graceMs?: number): void;
  /**
   * When the connection's last query arrived (`Date.now()`, or when it
   * opened), while it is open with no answer in flight; undefined while it
   * is busy or closing.
   */
  idleSince(): number | undefined;
  /** Bytes held for answers not yet written (chunks, the write under way). */
  unsentBytes(): number;
}

/** What waits for the socket: framed answers, or an answer of many messages. */
type Queued =
  /** `cost`: what the bytes add to `heldBytes` (counted when queued). */
  | { bytes: Uint8Array; answers: number; cost: number; stream?: undefined }
  | { stream: AnswerStream; answers: number; bytes?: undefined };

/** A query whose answer the handler has not given yet. */
interface Waiting {
  query: Uint8Array;
  /** Answered already (SERVFAIL at the end of the grace): ignore the late one. */
  answered: boolean;
}

/** Serves queries on an accepted connection until it closes. */
export function serveTcpConnection(
  conn: StreamConn,
  opts: TcpConnectionOptions,
): TcpSession {
  const { handler, counters, logger, budget } = opts;
  const remote = conn.remoteAddr as Deno.NetAddr;
  // One ClientInfo for every query of the connection (the pipeline never
  // changes it), and one marked overloaded for past the worker's budget.
  let asClient: ClientInfo = {
    address: remote.hostname,
    port: remote.port,
    transport: opts.transport ?? "tcp",
    streams: enqueueStream,
    ...(conn.clientId !== undefined && { clientId: conn.clientId }),
  };
  let asOverloaded: ClientInfo = { ...asClient, overloaded: true };
  /**
   * With a proxy trust, the first octets read until it has decided whether
   * they start with a PROXYv2 header; null once decided (or without one).
   */
  let preamble: Uint8Array | null = opts.proxy ? NO_BYTES : null;
  const frames = new FrameReader();
  /** Queries the handler is still answering. */
  const waiting = new Set<Waiting>();
  /** Answers queued or being written. */
  let unsent = 0;
  /** Bytes those take (chunk capacity, the buffer being written). */
  let heldBytes = 0;
  /** Filled chunks, and answers of many messages, waiting for the socket, in order. */
  const chunks: Queued[] = [];
  /** The chunk being filled. */
  let tail: Uint8Array | null = null;
  let tailUsed = 0;
  let tailAnswers = 0;
  let writing = false;
  let closing = false;
  let closed = false;
  let wakeReader: (() => void) | null = null;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  let graceEndsAt = Infinity;
  let lastWriteTimer: ReturnType<typeof setTimeout> | undefined;
  /** Date.now() when the last query arrived (or the connection opened). */
  let lastQueryAt = Date.now();
  const finished = Promise.withResolvers<void>();

  // One timer per idle period, not one per query: it fires when the
  // connection could have become idle, and waits again for the rest of
  // the period if a query came since. (Clearing and setting a timer for
  // every query cost ~1.5 µs of a ~12 µs TCP query, perf on the listener.)
  function armIdleTimer(delayMs: number) {
    idleTimer = setTimeout(checkIdle, delayMs);
  }

  function checkIdle() {
    const idleMs = Date.now() - lastQueryAt;
    if (idleMs < opts.idleTimeoutMs) {
      armIdleTimer(opts.idleTimeoutMs - idleMs);
      return;
    }
    counters.tcpIdleClosed++;
    beginClose();
  }

  function beginClose(graceMs?: number) {
    const grace = Math.min(
      TCP_CLOSE_GRACE_MS,
      opts.idleTimeoutMs,
      graceMs ?? Infinity,
    );
    if (closing) {
      // A stop with less time left than the close already under way.
      if (
        !closed && graceTimer !== undefined && Date.now() + grace < graceEndsAt
      ) {
        clearTimeout(graceTimer);
        graceEndsAt = Date.now() + grace;
        graceTimer = setTimeout(graceOver, grace);
      }
      return;
    }
    closing = true;
    clearTimeout(idleTimer);
    wakeReader?.();
    if (waiting.size === 0 && !writing) {
      close();
      return;
    }
    graceEndsAt = Date.now() + grace;
    graceTimer = setTimeout(graceOver, grace);
  }

  /** Closes once nothing is left to answer or write. */
  function closeIfDone() {
    if (closing && waiting.size === 0 && !writing) close();
  }

  /**
   * The grace is over: the queries still unanswered get SERVFAIL, written
   * if the client was keeping up; a client whose writes were stuck is
   * closed at once.
   */
  function graceOver() {
    graceTimer = undefined;
    const stuck = writing;
    for (const entry of waiting) {
      entry.answered = true;
      const reply = stopAnswer(entry.query);
      if (reply !== undefined && !stuck) enqueue(reply);
    }
    waiting.clear();
    if (stuck || !writing) close();
    else lastWriteTimer = setTimeout(close, LAST_WRITE_MS);
  }

  /** Closes now: a pending read ends, pending writes fail. */
  function close() {
    clearTimeout(graceTimer);
    clearTimeout(lastWriteTimer);
    if (closed) return;
    closed = true;
    try {
      conn.close();
    } catch {
      // already closed by the peer's reset
    }
    dropQueued();
    wakeReader?.();
    finished.resolve();
  }

  /**
   * The socket failed (the client reset it, or it was closed): nothing
   * more can be sent, so the connection closes without waiting for the
   * answers still being made.
   */
  function abort() {
    closing = true;
    clearTimeout(idleTimer);
    for (const entry of waiting) entry.answered = true;
    waiting.clear();
    close();
  }

  /** Frees the answers not yet written (counted as not sent). */
  function dropQueued() {
    for (const chunk of chunks) {
      counters.sendErrors += chunk.answers;
      unsent -= chunk.answers;
      if (chunk.bytes !== undefined) heldBytes -= chunk.cost;
    }
    chunks.length = 0;
    if (tail !== null) {
      counters.sendErrors += tailAnswers;
      unsent -= tailAnswers;
      heldBytes -= tail.length;
      tail = null;
    }
  }

  /**
   * Sends `reply` as soon as the answers before it are written: at once
   * when the socket is free, else copied (framed) into the tail chunk.
   */
  function enqueue(reply: Uint8Array) {
    if (closed) return;
    if (reply.length > MAX_TCP_MESSAGE) {
      // Cannot be framed (the handler sizes TCP answers to fit).
      counters.sendErrors++;
      return;
    }
    unsent++;
    if (!writing) {
      const bytes = frameMessage(reply)!;
      heldBytes += bytes.length;
      writeLoop({ bytes, answers: 1, cost: bytes.length });
      return;
    }
    const framed = reply.length + 2;
    if (tail === null || tail.length - tailUsed < framed) {
      sealTail();
      tail = new Uint8Array(Math.max(CHUNK_BYTES, framed));
      heldBytes += tail.length;
    }
    tail[tailUsed] = reply.length >> 8;
    tail[tailUsed + 1] = reply.length & 0xff;
    tail.set(reply, tailUsed + 2);
    tailUsed += framed;
    tailAnswers++;
  }

  function sealTail() {
    if (tail === null) return;
    if (tailAnswers > 0) {
      chunks.push({
        bytes: tail.subarray(0, tailUsed),
        answers: tailAnswers,
        cost: tail.length,
      });
    } else heldBytes -= tail.length;
    tail = null;
    tailUsed = 0;
    tailAnswers = 0;
  }

  /**
   * Sends an answer of many messages (a zone transfer) after the answers
   * queued before it; answers that come meanwhile wait behind it.
   */
  function enqueueStream(stream: AnswerStream) {
    if (closed) return;
    unsent++;
    if (!writing) {
      writeLoop({ stream, answers: 1 });
      return;
    }
    sealTail();
    chunks.push({ stream, answers: 1 });
  }

  /** Writes `bytes` whole; false when the socket failed. */
  async function writeAll(bytes: Uint8Array): Promise<boolean> {
    try {
      for (let off = 0; !closed && off < bytes.length;) {
        off += await conn.write(bytes.subarray(off));
      }
      return !closed;
    } catch {
      return false;
    }
  }

  /**
   * Writes a stream's messages as it makes them; false when the socket
   * failed or the stream did (a transfer cut short must not look whole:
   * the connection is closed).
   */
  async function writeStream(stream: AnswerStream): Promise<boolean> {
    for (;;) {
      let message: Uint8Array | undefined;
      try {
        message = await stream.next();
      } catch (error) {
        logger.error(
          "An answer of many messages failed; closing the connection",
          {
            client: remote.hostname,
            error,
          },
        );
        return false;
      }
      if (message === undefined) return true;
      const framed = frameMessage(message);
      if (framed === null) return false;
      heldBytes += framed.length;
      const ok = await writeAll(framed);
      heldBytes -= framed.length;
      if (!ok) return false;
      // Sending is activity: a long transfer is not an idle connection.
      lastQueryAt = Date.now();
    }
  }

  /** Writes `first`, then everything queued meanwhile, in order. */
  async function writeLoop(first: Queued) {
    writing = true;
    let item: Queued | undefined = first;
    while (item !== undefined) {
      let ok: boolean;
      if (item.bytes !== undefined) {
        ok = await writeAll(item.bytes);
        heldBytes -= item.cost;
      } else ok = await writeStream(item.stream);
      unsent -= item.answers;
      if (!ok) {
        counters.sendErrors += item.answers;
        abort();
        break;
      }
      wakeReader?.();
      sealTail();
      item = chunks.shift();
    }
    writing = false;
    wakeReader?.();
    closeIfDone();
  }

  /** The handler's answer came: queued, unless SERVFAIL went already. */
  function settle(entry: Waiting, reply: Uint8Array | null) {
    budget.waiting--;
    if (entry.answered) return;
    entry.answered = true;
    waiting.delete(entry);
    if (reply !== null) enqueue(reply);
    wakeReader?.();
    closeIfDone();
  }

  function handle(query: Uint8Array) {
    // At the worker's bound, queries are still handled: what needs no wait
    // (a cache hit, a zone's answer) is answered, the rest dropped by the
    // pipeline (as UDP does).
    const client = budget.waiting < budget.max ? asClient : asOverloaded;
    let reply: Promise<Uint8Array | null> | Uint8Array | null;
    try {
      reply = handler.handle(query, client);
    } catch (err) {
      logger.error("Query handler threw", { error: err });
      return;
    }
    if (reply instanceof Promise) {
      const entry: Waiting = { query, answered: false };
      waiting.add(entry);
      budget.waiting++;
      reply.then((r) => settle(entry, r), (err) => {
        logger.error("Query handler threw", { error: err });
        settle(entry, null);
      });
    } else if (reply !== null) {
      enqueue(reply);
    }
  }

  /** True while the connection holds as much as it may: reading waits. */
  function full(): boolean {
    return waiting.size + unsent >= TCP_MAX_PIPELINE ||
      heldBytes >= TCP_MAX_UNSENT_BYTES;
  }

  /** Complete queries may wait in `frames`: the last dispatch stopped at a bound. */
  let backlog = false;

  /**
   * Hands the complete queries to the handler one at a time, stopping as
   * soon as the connection is full (an answer given at once may fill it).
   */
  function dispatch(chunk: Uint8Array) {
    frames.push(chunk, 0);
    backlog = false;
    let took = false;
    while (!closing) {
      if (full()) {
        backlog = true;
        break;
      }
      const query = frames.push(NO_BYTES, 1)[0];
      if (query === undefined) break;
      took = true;
      counters.queries++;
      handle(query);
    }
    if (took) lastQueryAt = Date.now();
    if (frames.malformed && !backlog && !closing) {
      // The queries before the zero length are answered, then it closes.
      counters.tcpMalformed++;
      beginClose();
    }
  }

  /**
   * The connection's first octets, under a proxy trust: held until it
   * decides, then the DNS octets after any header go to dispatch, from
   * the client the header names. A header the trust refuses closes the
   * connection (counted), before any query is read.
   */
  function takePreamble(chunk: Uint8Array) {
    const held = new Uint8Array(preamble!.length + chunk.length);
    held.set(preamble!);
    held.set(chunk, preamble!.length);
    const decision = opts.proxy!.stream(remote.hostname, remote.port, held);
    switch (decision.kind) {
      case "incomplete":
        preamble = held;
        return;
      case "drop":
        preamble = null;
        counters[decision.counter]++;
        abort();
        return;
      case "direct":
        preamble = null;
        dispatch(held);
        return;
      case "proxied":
        preamble = null;
        asClient = {
          ...asClient,
          address: decision.address,
          port: decision.port,
        };
        asOverloaded = { ...asClient, overloaded: true };
        dispatch(held.subarray(decision.headerLength));
        return;
    }
  }

  async function readLoop() {
    const buf = new Uint8Array(16 * 1024);
    // After the client's EOF, the queries it sent before are still answered.
    let eof = false;
    while (!closing) {
      if (full()) {
        await new Promise<void>((resolve) => wakeReader = resolve);
        wakeReader = null;
        continue;
      }
      if (backlog) {
        dispatch(NO_BYTES);
        continue;
      }
      if (eof) break;
      let n: number | null;
      try {
        n = await conn.read(buf);
      } catch {
        n = null; // reset by the peer, or closed by close()
      }
      if (n === null) eof = true;
      else if (closing) continue;
      else if (preamble !== null) takePreamble(buf.subarray(0, n));
      else dispatch(buf.subarray(0, n));
    }
    beginClose();
  }

  armIdleTimer(opts.idleTimeoutMs);
  const reading = readLoop();
  return {
    done: Promise.all([reading, finished.promise]).then(() => {}),
    shutdown: (graceMs) => beginClose(graceMs),
    idleSince: () =>
      closing || waiting.size > 0 || unsent > 0 ? undefined : lastQueryAt,
    unsentBytes: () => heldBytes,
  };
}
