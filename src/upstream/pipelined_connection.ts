/**
 * One stream connection to an upstream carrying many queries at once (RFC
 * 7766 §6.2.1.1: pipelining, answers in any order, matched by ID). Works on
 * any byte stream with read/write/close, so DoT can reuse it over a TLS
 * connection. Each query goes out under an ID not in flight on this
 * connection and its answer comes back under the caller's ID.
 */
import { patchId } from "../dns/wire/response.ts";
import { frameMessage, FrameReader } from "../dns/wire/tcp_framing.ts";
import {
  checkAnswer,
  expectationOf,
  type ExpectedAnswer,
  UnusableAnswerError,
} from "./answer_check.ts";
import { randomQueryId } from "./build_query.ts";

/** The part of `Deno.Conn` (or `Deno.TlsConn`) a pipelined connection uses. */
export interface ByteStream {
  read(p: Uint8Array): Promise<number | null>;
  write(p: Uint8Array): Promise<number>;
  close(): void;
}

/** The connection ended before the answer came; a caller may retry on a new one. */
export class ConnectionClosedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ConnectionClosedError";
  }
}

/**
 * The connection carries as many queries as it may: the query was not
 * sent. Our limit, not the server's fault: it does not count against it.
 */
export class ConnectionBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConnectionBusyError";
  }
}

/** Why a query was given up: its group's timeout passed with no answer. */
export class QueryTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "QueryTimeoutError";
  }
}

/**
 * A connection that answered nothing since a query given up (its timeout,
 * another server first, a cancel) was written at least this long before
 * is taken for dead and closed, so the next query opens a new one: a
 * server (or a NAT on the way) can silently drop a connection that is never
 * idle, and one whose framing went out of step (or that sends garbage)
 * reads bytes but answers nothing. A query given up sooner (a late hedge,
 * a faster server) says nothing about the connection.
 */
export const STALL_MS = 500;

/** Limits of one connection. */
export interface PipelinedConnectionOptions {
  /** Most queries awaiting an answer at once; more are refused at once (ConnectionBusyError, not held against the server). */
  maxInFlight: number;
  /** Close after this long with nothing in flight (ms). */
  idleMs: number;
  /** Names the server in error messages ("tcp://192.0.2.1:53"). */
  label: string;
}

interface Pending {
  expected: ExpectedAnswer;
  callerId: number;
  /** Answers the connection had delivered when the query was sent. */
  answersBefore: number;
  /** performance.now() when the query was sent. */
  sentAt: number;
  resolve: (answer: Uint8Array) => void;
  reject: (error: unknown) => void;
}

const READ_OCTETS = 16384;

/** A connection with its queries in flight. */
export class PipelinedConnection {
  readonly #stream: ByteStream;
  readonly #opts: PipelinedConnectionOptions;
  readonly #pending = new Map<number, Pending>();
  readonly #frames = new FrameReader();
  #writing: Promise<void> = Promise.resolve();
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  /** Answers delivered, for telling a connection that answers nothing. */
  #answers = 0;
  /** Settles when the read loop has ended and the stream is closed. */
  readonly done: Promise<void>;

  constructor(stream: ByteStream, opts: PipelinedConnectionOptions) {
    this.#stream = stream;
    this.#opts = opts;
    this.done = this.#readLoop();
    this.#armIdle();
  }

  /** True once the connection can carry no more queries. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Queries awaiting an answer. */
  get inFlight(): number {
    return this.#pending.size;
  }

  /**
   * Sends `query` and waits for its answer, which comes back with the
   * query's own ID.
   *
   * @throws {ConnectionClosedError} when the connection is or becomes closed
   * @throws the signal's reason when it aborts first
   */
  exchange(query: Uint8Array, signal: AbortSignal): Promise<Uint8Array> {
    signal.throwIfAborted();
    const { label, maxInFlight } = this.#opts;
    if (this.#closed) {
      return Promise.reject(new ConnectionClosedError(`${label}: closed`));
    }
    if (this.#pending.size >= maxInFlight) {
      return Promise.reject(
        new ConnectionBusyError(
          `${label}: ${maxInFlight} queries already in flight`,
        ),
      );
    }
    const asked = expectationOf(query);
    const wireId = this.#freeId();
    const framed = frameMessage(patchId(query, wireId));
    if (framed === null) {
      return Promise.reject(new Error(`${label}: query too long`));
    }
    const { promise, resolve, reject } = Promise.withResolvers<Uint8Array>();
    const pending: Pending = {
      expected: { id: wireId, question: asked.question },
      callerId: asked.id,
      answersBefore: this.#answers,
      sentAt: performance.now(),
      resolve,
      reject,
    };
    const onAbort = () => {
      if (this.#pending.get(wireId) !== pending) return;
      this.#pending.delete(wireId);
      reject(signal.reason);
      if (
        this.#answers === pending.answersBefore &&
        performance.now() - pending.sentAt >= STALL_MS
      ) {
        this.#shutdown(
          new ConnectionClosedError(
            `${label}: no answer since a query given up`,
          ),
        );
        return;
      }
      this.#armIdle();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    this.#pending.set(wireId, pending);
    this.#disarmIdle();
    this.#writing = this.#writing
      .then(() => this.#writeAll(framed))
      .catch((error) =>
        this.#shutdown(
          new ConnectionClosedError(`${label}: write failed`, { cause: error }),
        )
      );
    return promise.finally(() => signal.removeEventListener("abort", onAbort));
  }

  /** Closes the stream and fails what is in flight; settles with {@linkcode done}. */
  close(): Promise<void> {
    this.#shutdown(new ConnectionClosedError(`${this.#opts.label}: closed`));
    return this.done;
  }

  async #writeAll(bytes: Uint8Array): Promise<void> {
    for (let off = 0; off < bytes.length;) {
      if (this.#closed) return;
      off += await this.#stream.write(bytes.subarray(off));
    }
  }

  async #readLoop(): Promise<void> {
    const { label } = this.#opts;
    const buf = new Uint8Array(READ_OCTETS);
    try {
      for (;;) {
        const n = await this.#stream.read(buf);
        if (n === null) break;
        for (const message of this.#frames.push(buf.subarray(0, n))) {
          this.#deliver(message);
        }
        if (this.#frames.malformed) {
          throw new Error("a zero-length message is not DNS");
        }
      }
      this.#shutdown(new ConnectionClosedError(`${label}: closed by server`));
    } catch (error) {
      this.#shutdown(
        new ConnectionClosedError(`${label}: read failed`, { cause: error }),
      );
    }
  }

  /**
   * Hands an answer to the query it answers. An ID nothing waits for is a
   * late answer to a query given up, and ignored. A message under the ID of
   * a waiting query that does not answer it (another question, malformed
   * within its frame) fails that query alone: the framing is still in step,
   * so the other queries on the connection may well be answered, and
   * closing the connection would fail them all (and the retry of the
   * offending query would close the next one too). It is not counted as an
   * answer: a connection that sends only such messages stays suspect to
   * the stall rule.
   */
  #deliver(message: Uint8Array): void {
    if (message.length < 2) return;
    const wireId = (message[0]! << 8) | message[1]!;
    const pending = this.#pending.get(wireId);
    if (pending === undefined) return;
    this.#pending.delete(wireId);
    const check = checkAnswer(pending.expected, message);
    if (!check.ok) {
      pending.reject(
        new UnusableAnswerError(
          `${this.#opts.label}: an answer that does not fit (${check.why})`,
        ),
      );
    } else {
      this.#answers++;
      message[0] = pending.callerId >>> 8; // message is our own copy
      message[1] = pending.callerId & 0xff;
      pending.resolve(message);
    }
    this.#armIdle();
  }

  #shutdown(error: ConnectionClosedError): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#disarmIdle();
    try {
      this.#stream.close();
    } catch {
      // Already closed by the peer or by an abort: nothing left to release.
    }
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  #freeId(): number {
    for (;;) {
      const id = randomQueryId();
      if (!this.#pending.has(id)) return id;
    }
  }

  #armIdle(): void {
    if (this.#closed || this.#pending.size > 0) return;
    this.#disarmIdle();
    const timer = setTimeout(() => {
      this.#idleTimer = undefined;
      this.#shutdown(
        new ConnectionClosedError(`${this.#opts.label}: idle`),
      );
    }, this.#opts.idleMs);
    // An idle connection must not keep the process alive.
    Deno.unrefTimer(timer);
    this.#idleTimer = timer;
  }

  #disarmIdle(): void {
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }
}
