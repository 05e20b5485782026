/**
 * Test fixtures for the DoT and DoH transports: hand-built DNS messages and a
 * scripted DNS-over-TLS server on 127.0.0.1 that answers however a test
 * tells it to and counts connections and queries.
 */

import { frameMessage, FrameReader } from "../dns/wire/tcp_framing.ts";

/** A one-question query for `name` type A, class IN, RD=1. */
export function makeQuery(id: number, name: string): Uint8Array<ArrayBuffer> {
  const labels = name.replace(/\.$/, "").split(".");
  const qname = labels.flatMap((
    l,
  ) => [l.length, ...new TextEncoder().encode(l)]);
  return new Uint8Array([
    id >> 8,
    id & 0xff,
    0x01,
    0x00,
    0,
    1,
    0,
    0,
    0,
    0,
    0,
    0, // header
    ...qname,
    0,
    0,
    1,
    0,
    1, // question: name, A, IN
  ]); // deno-fmt-ignore
}

/** The query turned into an answer (QR=1, RA=1) with one A record. */
export function makeAnswer(
  query: Uint8Array,
  address: string,
): Uint8Array<ArrayBuffer> {
  const answer = new Uint8Array(query.length + 16);
  answer.set(query);
  answer[2] = query[2]! | 0x80;
  answer[3] = 0x80;
  answer[7] = 1; // ANCOUNT
  answer.set([
    0xc0,
    12,
    0,
    1,
    0,
    1,
    0,
    0,
    0,
    60,
    0,
    4, // name pointer, A, IN, TTL 60, length 4
    ...address.split(".").map(Number),
  ], query.length); // deno-fmt-ignore
  return answer;
}

/** The first IPv4 address in an answer made by {@linkcode makeAnswer}. */
export function addressIn(answer: Uint8Array): string {
  return Array.from(answer.subarray(answer.length - 4)).join(".");
}

/** What the scripted server does with one query. */
export type Script = (
  query: Uint8Array,
  info: { connection: number; queryOnConnection: number },
) => Promise<Uint8Array | "close" | "ignore"> | Uint8Array | "close" | "ignore";

/** A running scripted DoT server. */
export interface DotServer extends AsyncDisposable {
  port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Connections the client closed (EOF seen). */
  readonly closedByClient: number;
  close(): Promise<void>;
}

/** Starts a DoT server with `cert`/`key` that answers by `script`. */
export function startDotServer(
  tls: { cert: string; key: string },
  script: Script,
): DotServer {
  const listener = Deno.listenTls({
    hostname: "127.0.0.1",
    port: 0,
    cert: tls.cert,
    key: tls.key,
  });
  const open = new Set<Deno.TlsConn>();
  const loops: Promise<void>[] = [];
  let connections = 0;
  let closedByClient = 0;

  const serve = async (conn: Deno.TlsConn, connection: number) => {
    const frames = new FrameReader();
    const buf = new Uint8Array(4096);
    const answers: Promise<void>[] = [];
    let queryOnConnection = 0;
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) {
          closedByClient++;
          break;
        }
        const messages = frames.push(buf.subarray(0, n));
        if (frames.malformed) break;
        for (const query of messages) {
          const info = { connection, queryOnConnection: ++queryOnConnection };
          answers.push(
            (async () => {
              const reply = await script(query, info);
              if (reply === "close") conn.close();
              else if (reply !== "ignore") {
                await conn.write(frameMessage(reply)!);
              }
            })().catch(() => {}),
          );
        }
      }
    } catch {
      // closed by a "close" reply or by server shutdown
    }
    await Promise.all(answers);
    open.delete(conn);
    try {
      conn.close();
    } catch {
      // already closed
    }
  };

  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        open.add(conn);
        loops.push(serve(conn, ++connections));
      }
    } catch {
      // listener closed
    }
  })();

  const close = async () => {
    try {
      listener.close();
    } catch {
      // already closed
    }
    for (const conn of open) {
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
    await accepting;
    await Promise.all(loops);
  };

  return {
    port: (listener.addr as Deno.NetAddr).port,
    get connections() {
      return connections;
    },
    get closedByClient() {
      return closedByClient;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** A TCP server that accepts connections and never says a word. */
export interface SilentServer extends AsyncDisposable {
  port: number;
}

/** Starts a {@linkcode SilentServer} on 127.0.0.1: handshakes hang on it. */
export function startSilentServer(): SilentServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted: Deno.Conn[] = [];
  const accepting = (async () => {
    try {
      for await (const conn of listener) accepted.push(conn);
    } catch {
      // listener closed
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting;
      for (const conn of accepted) conn.close();
    },
  };
}
