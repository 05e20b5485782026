/**
 * Do53 over UDP on a libc socket (`listeners.ffiSockets`, libc_udp.ts):
 * poll() waits on a thread of its own until datagrams are there, one
 * recvmmsg reads up to BATCH of them, the handler answers them one by one,
 * and one sendmmsg sends the answers that were ready at once (memo and
 * cache hits). Answers that wait on I/O go out one by one with sendto when
 * they are ready. Otherwise it behaves as udp.ts: same counters, the same
 * bound on queries in flight, oversize queries answered TC=1 unread, the
 * same PROXYv2 headers taken (`proxy`).
 */
import { BufferPool } from "../dns/wire/buffer_pool.ts";
import { oversizeQueryAnswer } from "../dns/wire/truncated_reply.ts";
import type { ClientInfo, QueryHandler } from "../pipeline/handler.ts";
import type { Logger } from "../log/logger.ts";
import type { SocketCounters } from "./worker_messages.ts";
import { stopAnswer } from "./stop_answer.ts";
import type { ProxyTrust } from "./proxy_trust.ts";
import {
  addressOf,
  EAGAIN,
  EINTR,
  errno,
  IOVEC_SIZE,
  libc,
  type LibcUdpSocket,
  MMSGHDR_SIZE,
  MSG_DONTWAIT,
  MSG_IOV_OFFSET,
  MSG_IOVLEN_OFFSET,
  MSG_LEN_OFFSET,
  MSG_NAMELEN_OFFSET,
  SOCKADDR_SIZE,
  sockaddrPort,
  SockaddrText,
  stopReceiving,
} from "./libc_udp.ts";
import {
  UDP_MAX_IN_FLIGHT,
  UDP_MAX_QUERY,
  udpReceiveSize,
  type UdpServer,
} from "./udp.ts";

/** Datagrams one receive may return. */
export const BATCH = 64;
/**
 * Longest wait in poll(): a worker replaced after a crash leaves its last
 * poll behind on the socket until then (harmless: it writes only into the
 * socket's own `wait` struct).
 */
const POLL_TIMEOUT_MS = 500;
/** Room per answer in the send batch; a larger answer is sent by itself. */
const SEND_SLOT = 4096;

export interface FfiUdpServerOptions {
  /** From openUdpSocket; the caller closes it (closeUdpSocket) after stop(). */
  socket: LibcUdpSocket;
  /** The address it is bound to, for `addr`. */
  hostname: string;
  handler: QueryHandler;
  counters: SocketCounters;
  logger: Logger;
  /** @default 1000 */
  maxInFlight?: number;
  /** As udp.ts's: PROXYv2 headers from the peers it trusts. */
  proxy?: ProxyTrust;
}

/** Starts the receive loop on a bound libc socket. */
export function serveUdpFfi(opts: FfiUdpServerOptions): UdpServer {
  const c = libc();
  const { handler, counters, logger, proxy } = opts;
  const { fd, port, family } = opts.socket;
  const maxInFlight = opts.maxInFlight ?? UDP_MAX_IN_FLIGHT;
  const nameLength = family === "ipv4" ? 16 : 28;
  // Every slot of the batch reads a whole datagram (udpReceiveSize).
  const receiveSize = udpReceiveSize(proxy !== undefined);
  const buffers = new BufferPool(receiveSize, maxInFlight);
  const text = new SockaddrText();
  const recv = new MessageBatch(BATCH, nameLength);
  const send = new MessageBatch(BATCH, nameLength);
  const sendSlab = new Uint8Array(BATCH * SEND_SLOT);
  for (let i = 0; i < BATCH; i++) {
    recv.setBuffer(i, buffers.take(), receiveSize);
    send.setBuffer(i, sendSlab.subarray(i * SEND_SLOT), SEND_SLOT);
  }
  let inFlight = 0;
  let stopping = false;
  /** The receiver was woken for good (stopReceiving). */
  let closed = false;
  const drained = Promise.withResolvers<void>();
  /** Queries whose answer the handler has not given yet. */
  const waiting = new Set<
    { query: Uint8Array; name: Uint8Array; answered: boolean }
  >();

  const settled = () => {
    inFlight--;
    if (stopping && inFlight === 0) drained.resolve();
  };

  // Sends block while the send buffer is full, for at most
  // SEND_TIMEOUT_MS (libc_udp.ts): a moment's congestion drops no answer.

  /** Sends one answer now (answers that waited, and oversize ones). */
  function sendNow(reply: Uint8Array, name: Uint8Array): void {
    const length = BigInt(reply.length);
    const sent = c.sendto(fd, reply, length, 0, name, nameLength);
    if (Number(sent) < 0) counters.sendErrors++;
  }

  /** Sends the batch's first `count` answers; a failed one is skipped. */
  function flush(count: number): void {
    let from = 0;
    while (from < count) {
      const hdrs = from === 0
        ? send.hdrs
        : send.hdrs.subarray(from * MMSGHDR_SIZE);
      const sent = c.sendmmsg(fd, hdrs, count - from, 0);
      if (sent > 0) {
        from += sent;
      } else if (errno() === EAGAIN) {
        // Still full after the timeout: the rest would wait as long.
        counters.sendErrors += count - from;
        return;
      } else {
        // Only the answer at `from` cannot go (its address, a firewall).
        counters.sendErrors++;
        from++;
      }
    }
  }

  /**
   * Sends the answer to datagram `slot` (whose DNS part is `query`) when it
   * is ready; the query keeps its buffer until then (the pipeline may read
   * it) and the slot gets another.
   */
  function answerLater(
    pending: Promise<Uint8Array | null>,
    slot: number,
    query: Uint8Array,
  ) {
    inFlight++;
    const name = recv.names.slice(
      slot * SOCKADDR_SIZE,
      (slot + 1) * SOCKADDR_SIZE,
    );
    const buffer = recv.buffers[slot]!;
    const entry = { query, name, answered: false };
    waiting.add(entry);
    recv.setBuffer(slot, buffers.take(), receiveSize);
    pending.then((reply) => {
      waiting.delete(entry);
      // Unless SERVFAIL went at the stop's deadline.
      if (reply !== null && !entry.answered) sendNow(reply, name);
      buffers.give(buffer);
      if (!entry.answered) settled();
    }, (err) => {
      waiting.delete(entry);
      buffers.give(buffer);
      if (entry.answered) return;
      logger.error("Query handler threw", { error: err });
      settled();
    });
  }

  /** The stop's deadline: what is still unanswered gets SERVFAIL now. */
  function answerTheRest() {
    for (const entry of waiting) {
      entry.answered = true;
      const reply = stopAnswer(entry.query);
      if (reply !== undefined) sendNow(reply, entry.name);
      settled();
    }
    waiting.clear();
  }

  async function receiveLoop(): Promise<void> {
    const wait = new Uint8Array(opts.socket.wait);
    let failures = 0;
    while (!closed) {
      // Also the loop's turn to let the event loop run (answers that
      // waited, snapshots, timers): it returns at once under load.
      await c.poll(wait, 1n, POLL_TIMEOUT_MS);
      if (closed) break;
      const n = c.recvmmsg(fd, recv.hdrs, BATCH, MSG_DONTWAIT, null);
      if (n < 0) {
        const code = errno();
        if (code === EAGAIN || code === EINTR) continue;
        // An error that returns at once must not spin.
        if (++failures % 100 === 1) {
          logger.warn("UDP receive failed", { errno: code, failures });
        }
        if (failures > 10) await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      failures = 0;
      if (stopping) {
        // Draining: a query answered now could keep the drain going forever.
        counters.udpStopping += n;
        recv.resetNames(n);
        continue;
      }
      let ready = 0;
      for (let i = 0; i < n; i++) {
        const reply = answer(i);
        if (reply === undefined) continue;
        if (reply.length > SEND_SLOT) {
          sendNow(reply, recv.names.subarray(i * SOCKADDR_SIZE));
          continue;
        }
        sendSlab.set(reply, ready * SEND_SLOT);
        send.setLength(ready, reply.length);
        send.copyName(ready, recv, i);
        ready++;
      }
      recv.resetNames(n);
      if (ready > 0) flush(ready);
    }
  }

  /** The answer to datagram `i` of the batch when it is ready at once. */
  function answer(i: number): Uint8Array | undefined {
    let query = recv.buffers[i]!.subarray(0, recv.messageLength(i));
    const offset = i * SOCKADDR_SIZE;
    // The answer goes to the datagram's source; the client may be another.
    let address = text.address(recv.names, offset);
    let port = sockaddrPort(recv.names, offset);
    if (proxy !== undefined) {
      const decision = proxy.datagram(address, port, query);
      if (decision.kind === "drop") {
        counters[decision.counter]++;
        return undefined;
      }
      if (decision.kind === "proxied") {
        query = query.subarray(decision.headerLength);
        address = decision.address;
        port = decision.port;
      }
    }
    if (query.length > UDP_MAX_QUERY) {
      counters.udpOversize++;
      return oversizeQueryAnswer(query);
    }
    counters.queries++;
    // Two object shapes, no spread: this is the hot path (as in udp.ts).
    const client: ClientInfo = inFlight < maxInFlight
      ? { address, port, transport: "udp" }
      : { address, port, transport: "udp", overloaded: true };
    let reply: Promise<Uint8Array | null> | Uint8Array | null;
    try {
      reply = handler.handle(query, client);
    } catch (err) {
      logger.error("Query handler threw", { error: err });
      return undefined;
    }
    if (reply instanceof Promise) {
      answerLater(reply, i, query);
      return undefined;
    }
    return reply ?? undefined;
  }

  // As in udp.ts: a loop that throws ends the worker, which is replaced.
  const loop = receiveLoop();
  return {
    addr: { transport: "udp", hostname: opts.hostname, port },
    async stop(answerWithinMs) {
      if (!stopping) {
        stopping = true;
        if (inFlight === 0) drained.resolve();
        const deadline = answerWithinMs === undefined
          ? undefined
          : setTimeout(answerTheRest, answerWithinMs);
        await drained.promise;
        clearTimeout(deadline);
        closed = true;
        stopReceiving(fd);
      }
      await drained.promise;
      await loop;
    },
  };
}

/**
 * An array of `struct mmsghdr`, each with one iovec and room for a
 * sockaddr, in memory the kernel reads and writes. ArrayBuffer contents
 * never move, so their addresses stay valid while the batch is alive.
 */
class MessageBatch {
  readonly hdrs: Uint8Array;
  readonly names: Uint8Array;
  readonly buffers: Uint8Array[] = [];
  readonly #hdrWords: Uint32Array;
  readonly #nameWords: Uint32Array;
  readonly #iovs: Uint8Array;
  readonly #iovView: DataView;
  readonly #iovWords: Uint32Array;

  readonly #nameLength: number;

  constructor(size: number, nameLength: number) {
    this.#nameLength = nameLength;
    this.hdrs = new Uint8Array(size * MMSGHDR_SIZE);
    this.names = new Uint8Array(size * SOCKADDR_SIZE);
    this.#iovs = new Uint8Array(size * IOVEC_SIZE);
    this.#hdrWords = new Uint32Array(this.hdrs.buffer);
    this.#nameWords = new Uint32Array(this.names.buffer);
    this.#iovView = new DataView(this.#iovs.buffer);
    this.#iovWords = new Uint32Array(this.#iovs.buffer);
    const hdrs = new DataView(this.hdrs.buffer);
    const names = addressOf(this.names);
    const iovs = addressOf(this.#iovs);
    for (let i = 0; i < size; i++) {
      const at = i * MMSGHDR_SIZE;
      hdrs.setBigUint64(at, names + BigInt(i * SOCKADDR_SIZE), true);
      hdrs.setUint32(at + MSG_NAMELEN_OFFSET, nameLength, true);
      hdrs.setBigUint64(
        at + MSG_IOV_OFFSET,
        iovs + BigInt(i * IOVEC_SIZE),
        true,
      );
      hdrs.setBigUint64(at + MSG_IOVLEN_OFFSET, 1n, true);
    }
  }

  /** Points message `i` at `buffer`, `length` octets of it. */
  setBuffer(i: number, buffer: Uint8Array, length: number): void {
    this.buffers[i] = buffer;
    this.#iovView.setBigUint64(i * IOVEC_SIZE, addressOf(buffer), true);
    this.setLength(i, length);
  }

  /** Sets message `i`'s iov_len (a size_t; answers fit its low word). */
  setLength(i: number, length: number): void {
    const word = i * IOVEC_SIZE / 4 + 2;
    this.#iovWords[word] = length;
    this.#iovWords[word + 1] = 0;
  }

  /**
   * Gives the first `count` messages their full address room again: the
   * kernel wrote each one's address length over it (0 for none).
   */
  resetNames(count: number): void {
    for (let i = 0; i < count; i++) {
      this.#hdrWords[(i * MMSGHDR_SIZE + MSG_NAMELEN_OFFSET) / 4] =
        this.#nameLength;
    }
  }

  /** Octets the kernel put in message `i` (msg_len). */
  messageLength(i: number): number {
    return this.#hdrWords[(i * MMSGHDR_SIZE + MSG_LEN_OFFSET) / 4]!;
  }

  /** Copies message `from` of `other`'s address into message `i`'s. */
  copyName(i: number, other: MessageBatch, from: number): void {
    const to = i * SOCKADDR_SIZE / 4;
    const at = from * SOCKADDR_SIZE / 4;
    const source = other.#nameWords;
    for (let w = 0; w < SOCKADDR_SIZE / 4; w++) {
      this.#nameWords[to + w] = source[at + w]!;
    }
  }
}
