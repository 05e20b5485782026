/**
 * Scripted in-process upstream servers for the upstream tests: UDP and TCP
 * servers on loopback port 0 whose replies a test writes as a function of
 * the query, with delays, wrong IDs, other source sockets, TC=1, and
 * connection counting. Every timer and socket is released by close().
 */
import { TYPE } from "../../dns/wire/constants.ts";
import { parseQuery, type QueryInfo } from "../../dns/wire/query.ts";
import { encodeResponse } from "../../dns/wire/response.ts";
import { frameMessage, FrameReader } from "../../dns/wire/tcp_framing.ts";
import type { UpstreamsSettings } from "../../pipeline/settings.ts";
import type { StrategyName } from "../strategies.ts";
import type { UpstreamRequest } from "../types.ts";

/** One reply to send for a query. */
export interface ScriptedReply {
  message: Uint8Array;
  /** Wait this long before sending (ms). */
  delayMs?: number;
  /** UDP: send from a second socket (another source port). */
  fromOtherSocket?: boolean;
}

/** Decides the replies to a query: none (silence), one, or several in order. */
export type Script = (query: QueryInfo) => ScriptedReply[];

/** What a scripted server saw. */
export interface SeenQuery {
  query: QueryInfo;
  /** The client's source port. */
  port: number;
}

/** A running scripted server. */
export interface ScriptedServer {
  hostname: string;
  port: number;
  seen: SeenQuery[];
  /** TCP: connections accepted so far. */
  connections: number;
  /** TCP: closes every accepted connection (the listener stays). */
  dropConnections(): void;
  close(): Promise<void>;
}

/** A reply to `query` answering its question. */
export function answer(
  query: QueryInfo,
  opts: {
    rcode?: number;
    tc?: boolean;
    a?: string[];
    aaaa?: string[];
    ttl?: number;
    id?: number;
    name?: string;
  } = {},
): Uint8Array {
  const question = query.question!;
  const name = opts.name ?? question.name;
  const ttl = opts.ttl ?? 300;
  const answerSets = [];
  if (opts.a) {
    answerSets.push({
      name,
      type: TYPE.A,
      ttl,
      rdata: opts.a.map((address) => ({ type: "A" as const, address })),
    });
  }
  if (opts.aaaa) {
    answerSets.push({
      name,
      type: TYPE.AAAA,
      ttl,
      rdata: opts.aaaa.map((address) => ({ type: "AAAA" as const, address })),
    });
  }
  return encodeResponse({
    id: opts.id ?? query.id,
    opcode: query.opcode,
    rcode: opts.rcode ?? 0,
    tc: opts.tc ?? false,
    rd: true,
    ra: true,
    question: { ...question, name },
    answer: answerSets,
  }, 65535);
}

/**
 * An error answer to `query` with no question section (QDCOUNT=0), as some
 * servers send FORMERR, REFUSED or SERVFAIL.
 */
export function errorWithoutQuestion(
  query: QueryInfo,
  rcode: number,
): Uint8Array {
  return encodeResponse({
    id: query.id,
    opcode: query.opcode,
    rcode,
    rd: true,
    ra: true,
  }, 65535);
}

/** A UDP server on loopback port 0 that replies as `script` says. */
export function startUdpUpstream(
  script: Script,
  opts: { hostname?: string; port?: number } = {},
): ScriptedServer {
  const hostname = opts.hostname ?? "127.0.0.1";
  const socket = Deno.listenDatagram({
    transport: "udp",
    hostname,
    port: opts.port ?? 0,
  });
  const other = Deno.listenDatagram({ transport: "udp", hostname, port: 0 });
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const sends = new Set<Promise<unknown>>();
  const seen: SeenQuery[] = [];
  const send = (reply: ScriptedReply, to: Deno.Addr) => {
    const from = reply.fromOtherSocket ? other : socket;
    const sent = from.send(reply.message, to).catch(() => undefined);
    sends.add(sent);
    sent.finally(() => sends.delete(sent));
  };
  const loop = (async () => {
    try {
      for await (const [data, from] of socket) {
        const query = parseQuery(data);
        seen.push({ query, port: (from as Deno.NetAddr).port });
        for (const reply of script(query)) {
          if (!reply.delayMs) {
            send(reply, from);
            continue;
          }
          const timer = setTimeout(() => {
            timers.delete(timer);
            send(reply, from);
          }, reply.delayMs);
          timers.add(timer);
        }
      }
    } catch {
      // closed
    }
  })();
  return {
    hostname,
    port: (socket.addr as Deno.NetAddr).port,
    seen,
    connections: 0,
    dropConnections() {},
    async close() {
      for (const timer of timers) clearTimeout(timer);
      await Promise.all([...sends]);
      socket.close();
      other.close();
      await loop;
    },
  };
}

/**
 * A TCP server on loopback port 0: reads framed queries and writes the
 * script's replies (in the order they become due, so pipelined answers may
 * come back out of order). `closeAfterAnswer` closes each connection after
 * its first reply, as a server that does not keep connections open.
 */
export function startTcpUpstream(
  script: Script,
  opts: { hostname?: string; port?: number; closeAfterAnswer?: boolean } = {},
): ScriptedServer {
  const hostname = opts.hostname ?? "127.0.0.1";
  const listener = Deno.listen({ hostname, port: opts.port ?? 0 });
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const conns = new Set<Deno.Conn>();
  const handlers = new Set<Promise<void>>();
  const writes = new Set<Promise<void>>();
  const server: ScriptedServer = {
    hostname,
    port: listener.addr.port,
    seen: [],
    connections: 0,
    dropConnections() {
      for (const conn of conns) closeQuietly(conn);
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      listener.close();
      server.dropConnections();
      await accepting;
      await Promise.all([...handlers, ...writes]);
    },
  };

  async function serve(conn: Deno.Conn): Promise<void> {
    const frames = new FrameReader();
    const buf = new Uint8Array(4096);
    const write = async (message: Uint8Array) => {
      try {
        await conn.write(frameMessage(message)!);
        if (opts.closeAfterAnswer) closeQuietly(conn);
      } catch {
        // the client went away
      }
    };
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) break;
        const messages = frames.push(buf.subarray(0, n));
        if (frames.malformed) break;
        for (const data of messages) {
          const query = parseQuery(data);
          server.seen.push({
            query,
            port: (conn.remoteAddr as Deno.NetAddr).port,
          });
          for (const reply of script(query)) {
            const timer = setTimeout(() => {
              timers.delete(timer);
              const written = write(reply.message);
              writes.add(written);
              written.finally(() => writes.delete(written));
            }, reply.delayMs ?? 0);
            timers.add(timer);
          }
        }
      }
    } catch {
      // closed
    } finally {
      closeQuietly(conn);
      conns.delete(conn);
    }
  }

  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        server.connections++;
        conns.add(conn);
        const handler = serve(conn);
        handlers.add(handler);
        handler.finally(() => handlers.delete(handler));
      }
    } catch {
      // closed
    }
  })();
  return server;
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}

/** The `upstreams` settings with these groups and nothing else. */
export function upstreamSettings(
  groups: Record<
    string,
    {
      servers: string[];
      strategy?: StrategyName;
      /** Milliseconds. */
      timeout?: number;
      maxInFlight?: number;
    }
  >,
  bootstrap: string[] = [],
  maxInFlight = 500,
): UpstreamsSettings {
  const filled: UpstreamsSettings["groups"] = {};
  for (const [name, g] of Object.entries(groups)) {
    filled[name] = {
      servers: g.servers,
      strategy: g.strategy ?? "parallel_best",
      timeout: g.timeout ?? 500,
      maxInFlight: g.maxInFlight ?? 200,
    };
  }
  return {
    groups: filled,
    maxInFlight,
    bootstrap,
    conditional: {},
    ecs: { mode: "strip", ipv4Prefix: 24, ipv6Prefix: 56 },
  };
}

/** A forwarded question for `name` (A unless told). */
export function question(name: string, type: number = TYPE.A): UpstreamRequest {
  return { name, type, class: 1, dnssecOk: false, checkingDisabled: false };
}

/** A deterministic uniform [0, 1) source (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** "udp://127.0.0.1:5353" for a scripted server. */
export function urlOf(scheme: string, server: ScriptedServer): string {
  const host = server.hostname.includes(":")
    ? `[${server.hostname}]`
    : server.hostname;
  return `${scheme}://${host}:${server.port}`;
}
