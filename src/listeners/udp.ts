/**
 * Do53 over UDP: one `Deno.listenDatagram` socket and a receive loop that
 * hands every datagram to the handler without waiting for the previous
 * answer. The number of queries in flight is bounded so a flood cannot grow
 * memory without limit; beyond it datagrams are dropped and counted.
 */
import type { QueryHandler } from "../pipeline/handler.ts";
import type { Logger } from "../log/logger.ts";
import type { SocketCounters } from "./worker_messages.ts";

/** Most UDP queries answered at once by one socket. */
export const UDP_MAX_IN_FLIGHT = 1000;

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
}

/** A bound UDP listener. */
export interface UdpServer {
  readonly addr: Deno.NetAddr;
  /** Stops receiving, sends the answers in flight, closes the socket. */
  stop(): Promise<void>;
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
  const { handler, counters, logger } = opts;
  const maxInFlight = opts.maxInFlight ?? UDP_MAX_IN_FLIGHT;
  let inFlight = 0;
  let stopping = false;
  let closed = false;
  const drained = Promise.withResolvers<void>();

  async function answer(query: Uint8Array, from: Deno.NetAddr) {
    try {
      const reply = await handler.handle(query, {
        address: from.hostname,
        port: from.port,
        transport: "udp",
      });
      if (reply === null) return;
      try {
        await conn.send(reply, from);
      } catch {
        // An ICMP error or a full buffer: the client retries; never crash.
        counters.sendErrors++;
      }
    } catch (err) {
      logger.error("query handler threw", { error: err });
    } finally {
      inFlight--;
      if (stopping && inFlight === 0) drained.resolve();
    }
  }

  async function receiveLoop() {
    // One receive buffer, and a right-sized copy per query: receive() without
    // a buffer allocates 64 KiB per datagram, held while the query is in flight.
    const buf = new Uint8Array(65535);
    while (!closed) {
      let received: [Uint8Array, Deno.Addr];
      try {
        received = await conn.receive(buf);
      } catch (err) {
        if (closed) return;
        logger.warn("udp receive failed", { error: err });
        continue;
      }
      if (stopping) continue;
      if (inFlight >= maxInFlight) {
        counters.udpDropped++;
        continue;
      }
      inFlight++;
      counters.queries++;
      answer(received[0].slice(), received[1] as Deno.NetAddr);
    }
  }

  const loop = receiveLoop();
  return {
    addr: conn.addr as Deno.NetAddr,
    async stop() {
      if (stopping) return await loop;
      stopping = true;
      if (inFlight === 0) drained.resolve();
      await drained.promise;
      closed = true;
      conn.close(); // rejects the pending receive, which ends the loop
      await loop;
    },
  };
}
