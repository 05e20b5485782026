/** Minimal DNS clients over real sockets for the listener tests. */
import dnsPacket from "dns-packet";
import { Buffer } from "node:buffer";

/** A query for `name`/`type`/`qclass` with this ID, as wire bytes. */
export function buildQuery(
  id: number,
  name: string,
  type = "A",
  qclass = "IN",
): Uint8Array {
  return new Uint8Array(dnsPacket.encode({
    id,
    type: "query",
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type, class: qclass }],
  }));
}

/** The parts of an answer the tests look at. */
export interface DecodedAnswer {
  id: number;
  name: string;
  /** Answer records as "TYPE data" ("A 192.0.2.1", "TXT 3"). */
  records: string[];
}

export function decodeAnswer(bytes: Uint8Array): DecodedAnswer {
  const m = dnsPacket.decode(Buffer.from(bytes));
  return {
    id: m.id,
    name: m.questions?.[0]?.name ?? "",
    // deno-lint-ignore no-explicit-any
    records: (m.answers ?? []).map((a: any) =>
      `${a.type} ${
        Array.isArray(a.data)
          ? a.data.map((d: Uint8Array) => new TextDecoder().decode(d)).join("")
          : a.data
      }`
    ),
  };
}

/** Rejects after `ms` unless `p` settles first; the timer never leaks. */
export async function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`timed out after ${ms} ms`)),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Sends one UDP query and waits for one answer. */
export async function udpExchange(
  hostname: string,
  port: number,
  query: Uint8Array,
  timeoutMs = 2000,
): Promise<Uint8Array> {
  const sock = Deno.listenDatagram({
    transport: "udp",
    hostname,
    port: 0,
  });
  try {
    await sock.send(query, { transport: "udp", hostname, port });
    const [data] = await within(sock.receive(), timeoutMs);
    return data;
  } finally {
    sock.close();
  }
}

/** Prefixes each message with its 2-byte length, all in one buffer. */
export function frames(...messages: Uint8Array[]): Uint8Array {
  const total = messages.reduce((n, m) => n + 2 + m.length, 0);
  const out = new Uint8Array(total);
  let off = 0;
  for (const m of messages) {
    out[off] = m.length >> 8;
    out[off + 1] = m.length & 0xff;
    out.set(m, off + 2);
    off += 2 + m.length;
  }
  return out;
}

/** Reads exactly `n` bytes; null on a clean EOF before the first byte. */
async function readExactly(
  conn: Deno.Conn,
  n: number,
): Promise<Uint8Array | null> {
  const out = new Uint8Array(n);
  let off = 0;
  while (off < n) {
    const got = await conn.read(out.subarray(off));
    if (got === null) {
      if (off === 0) return null;
      throw new Error(`connection closed after ${off} of ${n} bytes`);
    }
    off += got;
  }
  return out;
}

/** Reads one length-prefixed message; null when the server closed. */
export async function readFrame(conn: Deno.Conn): Promise<Uint8Array | null> {
  const head = await readExactly(conn, 2);
  if (head === null) return null;
  return await readExactly(conn, (head[0]! << 8) | head[1]!);
}

/** Writes every byte (conn.write may write fewer). */
export async function writeAll(conn: Deno.Conn, bytes: Uint8Array) {
  for (let off = 0; off < bytes.length;) {
    off += await conn.write(bytes.subarray(off));
  }
}
