/**
 * Do53 over UDP: one `Deno.listenDatagram` socket and a receive loop that
 * hands every datagram to the handler without waiting for the previous
 * answer, nor for a send to complete. The number of queries in flight is
 * bounded so a flood cannot grow memory without limit; beyond it datagrams
 * are dropped and counted. Synchronous answers (memo hits) cost no promise
 * of ours and no copy of the query: only the receive and send ops wait.
 *
 * Behind dnsdist (`proxy`), a datagram may start with a PROXYv2 header
 * naming the client (proxy_trust.ts decides whether to believe it); the
 * answer goes back to the datagram's source without one.
 */
import { BufferPool } from "../dns/wire/buffer_pool.ts";
import { oversizeQueryAnswer } from "../dns/wire/truncated_reply.ts";
import type { ClientInfo, QueryHandler } from "../pipeline/handler.ts";
import type { Logger } from "../log/logger.ts";
import type { SocketCounters } from "./worker_messages.ts";
import { stopAnswer } from "./stop_answer.ts";
import type { ProxyTrust } from "./proxy_trust.ts";
import { PROXY_V2_MAX_LENGTH } from "./proxy_v2.ts";

/**
 * Most UDP queries one socket waits on at once (their answers pending,
 * mostly on upstreams); at the bound, queries go to the handler marked
 * `overloaded`, which answers what needs no wait and drops the rest.
 */
export const UDP_MAX_IN_FLIGHT = 1000;

/**
 * Largest query read over UDP: 4096 octets, far above any real query. A
 * larger datagram is never parsed cut short (a cut message could lose its
 * OPT or TSIG record and still parse): oversizeQueryAnswer answers it from
 * its header and question, TC=1 so the client asks again over TCP.
 */
export const UDP_MAX_QUERY = 4096;

/**
 * Octets a receive reads: one more than the largest query, so a datagram
 * that fills the buffer was longer than UDP_MAX_QUERY. With PROXYv2
 * headers taken, room for the longest header too: a maximal query behind a
 * maximal header is read whole, and a cut datagram still shows as an
 * oversize query (its DNS part is then over UDP_MAX_QUERY).
 */
export function udpReceiveSize(proxied: boolean): number {
  return UDP_MAX_QUERY + (proxied ? PROXY_V2_MAX_LENGTH : 0) + 1;
}

export interface UdpServerOptions {
  hostname: string;
  /** 0 picks an ephemeral port. */
  port: number;
  handler: QueryHandler;
  /** Incremented in place; the owner reads and resets them. */
  counters: SocketCounters;
  logger: Logger;
  /** @default 1000 */
  maxInFlight?: number;
  /**
   * Take PROXYv2 headers from the peers it trusts: the client is then the
   * one the header names. Without it, a header is just a malformed query.
   */
  proxy?: ProxyTrust;
}

/** A bound UDP listener. */
export interface UdpServer {
  readonly addr: Deno.NetAddr;
  /**
   * Stops receiving, sends the answers in flight, closes the socket. With
   * `answerWithinMs`, the answers not ready by then are sent as SERVFAIL
   * (stop_answer.ts) and the stop does not wait for them.
   */
  stop(answerWithinMs?: number): Promise<void>;
}

/**
 * Binds the socket (throws the `Deno.errors.*` error when it cannot) and
 * starts the receive loop.
 */
export function serveUdp(opts: UdpServerOptions): UdpServer {
  if (typeof Deno.listenDatagram !== "function") {
    const err = new Error("Deno.listenDatagram needs --unstable-net");
    err.name = "UnstableNet";
    throw err;
  }
  const conn = Deno.listenDatagram({
    transport: "udp",
    hostname: opts.hostname,
    port: opts.port,
  });
  const { handler, counters, logger, proxy } = opts;
  const maxInFlight = opts.maxInFlight ?? UDP_MAX_IN_FLIGHT;
  /** Queries whose answer is pending, plus sends not yet completed. */
  let inFlight = 0;
  let stopping = false;
  let closed = false;
  const drained = Promise.withResolvers<void>();
  // Queries answered later keep their buffer until then (at most
  // maxInFlight of them, ~4 MiB; ~6 MiB with PROXYv2 headers).
  const buffers = new BufferPool(
    udpReceiveSize(proxy !== undefined),
    maxInFlight,
  );
  /** Queries whose answer the handler has not given yet. */
  const waiting = new Set<Waiting>();

  // Shared settle callbacks: no closure per query.
  const settled = () => {
    inFlight--;
    if (stopping && inFlight === 0) drained.resolve();
  };
  const sendFailed = () => {
    // An ICMP error or a full buffer: the client retries; never crash.
    counters.sendErrors++;
    settled();
  };
  const handlerFailed = (err: unknown) => {
    logger.error("Query handler threw", { error: err });
    settled();
  };

  /**
   * Sends without waiting: the next datagram is read while this one goes
   * out. The promise (never rejected) tells when the send is over.
   */
  function send(reply: Uint8Array, to: Deno.NetAddr): Promise<void> {
    inFlight++;
    return conn.send(reply, to).then(settled, sendFailed);
  }

  /**
   * Waits for an answer the handler could not give at once, then sends it;
   * `buffer` (where the handler read `query`) goes back to the pool only
   * then: the pipeline may read it until its answer is made.
   */
  function sendLater(
    pending: Promise<Uint8Array | null>,
    to: Deno.NetAddr,
    buffer: Uint8Array,
    query: Uint8Array,
  ): void {
    inFlight++;
    const entry: Waiting = { query, to, answered: false };
    waiting.add(entry);
    const release = () => buffers.give(buffer);
    pending.then((reply) => {
      waiting.delete(entry);
      if (entry.answered) return release(); // SERVFAIL went at the deadline
      if (reply !== null) send(reply, to).then(release);
      else release();
      settled();
    }, (err) => {
      waiting.delete(entry);
      release();
      if (entry.answered) return;
      handlerFailed(err);
    });
  }

  /** The stop's deadline: what is still unanswered gets SERVFAIL now. */
  function answerTheRest() {
    for (const entry of waiting) {
      entry.answered = true;
      const reply = stopAnswer(entry.query);
      if (reply !== undefined) send(reply, entry.to);
      settled();
    }
    waiting.clear();
  }

  async function receiveLoop() {
    // Answers that need no I/O come back synchronously (memo hits): those
    // are handled straight from the receive buffer, no copy. A query whose
    // answer is pending keeps the buffer, and the loop takes another from
    // the pool; receive() without a buffer would allocate 64 KiB.
    let buf = buffers.take();
    while (!closed) {
      let received: [Uint8Array, Deno.Addr];
      try {
        received = await conn.receive(buf);
      } catch (err) {
        if (closed) return;
        logger.warn("UDP receive failed", { error: err });
        continue;
      }
      if (stopping) {
        // Draining: a query answered now could keep the drain going forever.
        counters.udpStopping++;
        continue;
      }
      // The answer goes to `from`; the client may be another (PROXYv2).
      const from = received[1] as Deno.NetAddr;
      let query = received[0];
      let address = from.hostname;
      let port = from.port;
      if (proxy !== undefined) {
        const decision = proxy.datagram(address, port, query);
        if (decision.kind === "drop") {
          counters[decision.counter]++;
          continue;
        }
        if (decision.kind === "proxied") {
          query = query.subarray(decision.headerLength);
          address = decision.address;
          port = decision.port;
        }
      }
      if (query.length > UDP_MAX_QUERY) {
        counters.udpOversize++;
        const reply = oversizeQueryAnswer(query);
        if (reply !== undefined) send(reply, from);
        continue;
      }
      counters.queries++;
      // At the bound, queries are still handled: what needs no wait (a
      // cache hit, a zone's answer) is answered, the rest dropped by the
      // pipeline. Two object shapes, no spread: this is the hot path.
      const client: ClientInfo = inFlight < maxInFlight
        ? { address, port, transport: "udp" }
        : { address, port, transport: "udp", overloaded: true };
      let reply: Promise<Uint8Array | null> | Uint8Array | null;
      try {
        reply = handler.handle(query, client);
      } catch (err) {
        logger.error("Query handler threw", { error: err });
        continue;
      }
      if (reply instanceof Promise) {
        sendLater(reply, from, buf, query);
        buf = buffers.take();
      } else if (reply !== null) {
        send(reply, from);
      }
    }
  }

  // One receive at a time: measured, two or four concurrent receives on the
  // socket answered no faster (bench/dnsperf, 2 cores).
  const loop = receiveLoop();
  return {
    addr: conn.addr as Deno.NetAddr,
    async stop(answerWithinMs) {
      if (stopping) return await loop;
      stopping = true;
      if (inFlight === 0) drained.resolve();
      const deadline = answerWithinMs === undefined
        ? undefined
        : setTimeout(answerTheRest, answerWithinMs);
      await drained.promise;
      clearTimeout(deadline);
      closed = true;
      conn.close(); // rejects the pending receive, which ends the loop
      await loop;
    },
  };
}

/** A query answered later: what a SERVFAIL at the stop's deadline needs. */
interface Waiting {
  query: Uint8Array;
  to: Deno.NetAddr;
  /** SERVFAIL went at the deadline: the late answer is not sent. */
  answered: boolean;
}
