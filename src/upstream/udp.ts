/**
 * Do53 over UDP. Every query gets its own socket bound to port 0, so each
 * has a fresh random source port as well as a fresh ID (RFC 5452 §9.2):
 * an off-path attacker must guess both. The socket accepts only datagrams
 * from the server's address and port whose header and question answer the
 * query (QR=1, opcode, ID, question); anything else is dropped and the wait
 * goes on until the caller's signal ends it. The first that matches ends
 * the exchange even if the rest of it is broken: askServer judges it, and a
 * malformed answer from the server is its failure, not silence (waiting on
 * would cost the whole timeout and count the server as dead). The socket is
 * always closed.
 */
import ipaddr from "ipaddr.js";
import { BufferPool } from "../dns/wire/buffer_pool.ts";
import { headerAndQuestion } from "../dns/wire/truncated_reply.ts";
import { expectationOf, matchesQuery } from "./answer_check.ts";
import type { UpstreamServer } from "../config/upstream_server.ts";
import type { Transport } from "./types.ts";

/** What a UDP transport needs besides the server. */
export interface UdpTransportOptions {
  /** The server's IP address (the host itself, or what bootstrap resolved it to). */
  address: string;
}

/**
 * Largest answer read over UDP. We advertise 1232 (build_query.ts); a
 * server that sends more than 4096 anyway has its answer taken as
 * truncated (header and question, TC=1), which askServer asks again over
 * TCP, rather than parsed cut short.
 */
export const UDP_MAX_ANSWER = 4096;

/**
 * Receive buffers of all UDP exchanges of this worker: one octet more than
 * UDP_MAX_ANSWER, so a datagram that fills one was longer (buffer_pool.ts
 * says why they are pooled). At most 256 kept, ~1 MiB.
 */
const receiveBuffers = new BufferPool(UDP_MAX_ANSWER + 1, 256);

/** A transport that sends each query from a new socket. */
export function createUdpTransport(
  server: UpstreamServer,
  opts: UdpTransportOptions,
): Transport {
  const target: Deno.NetAddr = {
    transport: "udp",
    hostname: opts.address,
    port: server.port,
  };
  const targetKey = addressKey(opts.address);
  const bindHostname = localAddressFor(opts.address);
  return {
    async exchange(query, signal) {
      signal.throwIfAborted();
      const expected = expectationOf(query);
      const socket = Deno.listenDatagram({
        transport: "udp",
        hostname: bindHostname,
        port: 0,
      });
      let closed = false;
      const closeSocket = () => {
        if (closed) return;
        closed = true;
        socket.close();
      };
      // Closing the socket is what ends a pending receive.
      signal.addEventListener("abort", closeSocket, { once: true });
      const buffer = receiveBuffers.take();
      try {
        await socket.send(query, target);
        for (;;) {
          const [data, from] = await socket.receive(buffer);
          const peer = from as Deno.NetAddr;
          if (peer.port !== target.port) continue;
          if (addressKey(peer.hostname) !== targetKey) continue;
          const answer = data.length > UDP_MAX_ANSWER
            ? truncatedAnswer(data)
            : data;
          if (answer === undefined) continue;
          if (matchesQuery(expected, answer)) {
            return answer === data ? data.slice() : answer;
          }
        }
      } catch (error) {
        signal.throwIfAborted();
        throw error;
      } finally {
        signal.removeEventListener("abort", closeSocket);
        closeSocket();
        // Every receive into it has ended: the await above settled.
        receiveBuffers.give(buffer);
      }
    },
    close() {
      // Nothing pooled: every exchange closes its own socket.
    },
  };
}

/** One spelling per address, so "::1" and "0:0::1" compare equal. */
function addressKey(address: string): string {
  try {
    const ip = ipaddr.process(address);
    return ip.toString();
  } catch {
    return address;
  }
}

/**
 * Where to bind: a loopback server is asked from loopback (the socket then
 * needs no wider network permission); others from the wildcard address of
 * their family.
 */
export function localAddressFor(address: string): string {
  let ip;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return "0.0.0.0";
  }
  const loopback = ip.range() === "loopback";
  if (ip.kind() === "ipv6") return loopback ? "::1" : "::";
  return loopback ? "127.0.0.1" : "0.0.0.0";
}

/** What fits of an answer cut by our buffer, as a truncated answer (TC=1). */
function truncatedAnswer(data: Uint8Array): Uint8Array | undefined {
  const cut = headerAndQuestion(data);
  if (cut !== undefined) cut[2]! |= 0x02; // TC
  return cut;
}
