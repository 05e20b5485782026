/**
 * A scripted secondary for the NOTIFY tests: a UDP socket on loopback port
 * 0 that records every datagram it gets (raw, parsed, and decoded by
 * dns-packet) and answers as the test's script says, with delays. It keeps
 * count of requests not yet answered, so a test can see how many NOTIFYs
 * were outstanding at once. close() releases every timer and the socket.
 */
import dnsPacket from "dns-packet";
import { Buffer } from "node:buffer";
import type { RRSet } from "../../dns/rrset.ts";
import { CLASS, OPCODE, RCODE, TYPE } from "../../dns/wire/constants.ts";
import { parseQuery, type QueryInfo } from "../../dns/wire/query.ts";
import { encodeResponse } from "../../dns/wire/response.ts";
import type { NotifyTarget } from "../notify_out.ts";

/** One datagram the responder got. */
export interface Received {
  message: Uint8Array;
  info: QueryInfo;
  // deno-lint-ignore no-explicit-any -- dns-packet ships no types
  decoded: any;
  /** performance.now() at arrival. */
  at: number;
}

/** One reply to send. */
export interface ScriptedReply {
  message: Uint8Array;
  /** Wait this long before sending (ms). */
  delayMs?: number;
}

/** The replies to one request (none: silence), maybe computed asynchronously. */
export type Script = (
  request: Received,
  index: number,
) => ScriptedReply[] | Promise<ScriptedReply[]>;

/** A running responder. */
export interface Responder {
  readonly target: NotifyTarget;
  readonly received: Received[];
  /** The most requests that had arrived and were not yet answered, at once. */
  readonly maxOutstanding: number;
  close(): Promise<void>;
}

/** Starts a responder on `hostname` (127.0.0.1 by default). */
export function startResponder(
  script: Script,
  hostname: "127.0.0.1" | "::1" = "127.0.0.1",
): Responder {
  const socket = Deno.listenDatagram({ transport: "udp", hostname, port: 0 });
  const port = (socket.addr as Deno.NetAddr).port;
  const received: Received[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const pending = new Set<Promise<void>>();
  let outstanding = 0;
  let maxOutstanding = 0;
  /** Ends the wait of a delayed reply that close() cancels. */
  const closers = new Set<() => void>();
  let closed = false;

  const send = async (message: Uint8Array, to: Deno.Addr) => {
    if (!closed) await socket.send(message, to).catch(() => {});
  };

  async function answer(request: Received, index: number, from: Deno.Addr) {
    const replies = await script(request, index);
    if (replies.length === 0) return;
    outstanding++;
    maxOutstanding = Math.max(maxOutstanding, outstanding);
    for (const [i, reply] of replies.entries()) {
      // Answered once the last reply goes: counted before it is sent, so
      // the next request the reply lets through finds the count down.
      if (i === replies.length - 1 && reply.delayMs === undefined) {
        outstanding--;
      }
      if (reply.delayMs === undefined) {
        await send(reply.message, from);
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          closers.delete(resolve);
          if (i === replies.length - 1) outstanding--;
          send(reply.message, from).then(resolve);
        }, reply.delayMs);
        timers.add(timer);
        closers.add(resolve);
      });
    }
  }

  const loop = (async () => {
    for (;;) {
      let data, from;
      try {
        [data, from] = await socket.receive();
      } catch {
        return; // closed
      }
      const message = data.slice();
      const request: Received = {
        message,
        info: parseQuery(message),
        decoded: dnsPacket.decode(Buffer.from(message)),
        at: performance.now(),
      };
      received.push(request);
      const work = answer(request, received.length - 1, from).catch(() => {});
      pending.add(work);
      work.finally(() => pending.delete(work));
    }
  })();

  return {
    target: { address: hostname, port },
    received,
    get maxOutstanding() {
      return maxOutstanding;
    },
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const resolve of closers) resolve();
      socket.close();
      await loop;
      await Promise.all(pending);
    },
  };
}

/** The reply to `request` with `rcode`, its header and question echoed; fields overridable. */
export function replyTo(
  request: Received,
  opts: {
    rcode?: number;
    id?: number;
    opcode?: number;
    question?: { name: string; type: number; class: number } | null;
  } = {},
): Uint8Array {
  const question = opts.question === null
    ? undefined
    : opts.question ?? request.info.question;
  return encodeResponse({
    id: opts.id ?? request.info.id,
    opcode: opts.opcode ?? OPCODE.NOTIFY,
    rcode: opts.rcode ?? RCODE.NOERROR,
    aa: true,
    ...(question && { question }),
  }, 512);
}

/** A zone's SOA RRset with `serial`. */
export function soaOf(zone: string, serial: number): RRSet {
  return {
    name: zone,
    type: TYPE.SOA,
    ttl: 3600,
    class: CLASS.IN,
    rdata: [{
      type: "SOA",
      mname: `ns1.${zone}`,
      rname: `hostmaster.${zone}`,
      serial,
      refresh: 3600,
      retry: 600,
      expire: 86400,
      minimum: 300,
    }],
  };
}

/** Resolves once `done()` holds; rejects after `timeoutMs`. */
export async function waitFor(
  done: () => boolean,
  what: string,
  timeoutMs = 3000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) {
      throw new Error(`Timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
