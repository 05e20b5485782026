/**
 * A minimal DNS client for interop tests: real UDP and TCP queries to a
 * server on loopback, encoded and decoded with dns-packet. It never consults
 * the system resolver; the target is always an address and a port.
 */
import dnsPacket from "dns-packet";
import { Buffer } from "node:buffer";
import { typeCode } from "../dns/rdata_text.ts";

/** One resource record as dns-packet decodes it. */
export interface DecodedRecord {
  name: string;
  type: string;
  class: string;
  ttl: number;
  // deno-lint-ignore no-explicit-any -- dns-packet ships no types; rdata shape varies by type
  data: any;
  /** OPT only. */
  udpPayloadSize?: number;
  flags?: number;
}

/** A response as dns-packet decodes it (the fields the tests read). */
export interface DecodedResponse {
  id: number;
  opcode: string;
  rcode: string;
  flag_aa: boolean;
  flag_tc: boolean;
  flag_rd: boolean;
  flag_ra: boolean;
  questions: { name: string; type: string; class: string }[];
  answers: DecodedRecord[];
  authorities: DecodedRecord[];
  additionals: DecodedRecord[];
}

/** Loopback addresses the tests may talk to. */
export type LoopbackAddress = "127.0.0.1" | "::1";

/** How to send one query. */
export interface QueryOptions {
  /** @default false (UDP) */
  tcp?: boolean;
  /** true adds OPT with a 1232-octet payload size; @default false */
  edns?: boolean | { udpSize: number; do: boolean };
  /** @default "127.0.0.1" */
  address?: LoopbackAddress;
  /** Numeric opcode (0 QUERY, 4 NOTIFY, 5 UPDATE, …); @default 0 */
  opcode?: number;
  /** @default "IN" */
  class?: "IN" | "CH" | "HS" | "ANY";
  /** @default a random 16-bit id */
  id?: number;
  /** @default true */
  rd?: boolean;
  /** @default 2000 */
  timeoutMs?: number;
  /**
   * Sign with a TSIG record for a key no server here knows (`key.`,
   * hmac-sha256, a made-up MAC, Time Signed and Original ID fixed so every
   * server's BADKEY answer echoes the same): "last" as RFC 8945 wants it,
   * "first" ahead of the OPT record (needs `edns`), which is FORMERR.
   */
  tsig?: "last" | "first";
  /**
   * The UDP source address, to query as another client: any of 127.0.0.0/8
   * the test may bind (deno.json's test task allows 127.0.0.2 and .3).
   * @default the target address
   */
  from?: string;
}

const RD_FLAG = 1 << 8;
const DO_FLAG = 1 << 15;

/** Type codes dns-packet has a mnemonic for (the rest go as UNKNOWN_<code>). */
const PACKET_TYPE_NAMES: Record<number, string> = {
  1: "A",
  2: "NS",
  5: "CNAME",
  6: "SOA",
  12: "PTR",
  15: "MX",
  16: "TXT",
  28: "AAAA",
  33: "SRV",
  35: "NAPTR",
  39: "DNAME",
  43: "DS",
  44: "SSHFP",
  52: "TLSA",
  252: "AXFR",
  255: "ANY",
  257: "CAA",
};

/** A qtype as dns-packet wants it: its mnemonic, or UNKNOWN_<code>. */
function packetType(qtype: string): string {
  const upper = qtype.toUpperCase();
  const code = Object.entries(PACKET_TYPE_NAMES).find(([, n]) => n === upper)
    ?.[0] ?? typeCode(upper);
  if (code === undefined) {
    throw new Error(`Cannot encode query: unknown qtype "${qtype}"`);
  }
  return PACKET_TYPE_NAMES[Number(code)] ?? `UNKNOWN_${code}`;
}

/** Encodes a query message. */
export function queryMessage(
  qname: string,
  qtype: string,
  opts: QueryOptions = {},
): Uint8Array {
  const edns = opts.edns === true ? { udpSize: 1232, do: false } : opts.edns;
  const flags = ((opts.opcode ?? 0) << 11) | (opts.rd === false ? 0 : RD_FLAG);
  const message = new Uint8Array(dnsPacket.encode({
    type: "query",
    id: opts.id ?? Math.floor(Math.random() * 65536),
    flags,
    questions: [{
      name: qname,
      type: packetType(qtype),
      class: opts.class ?? "IN",
    }],
    additionals: edns
      ? [{
        type: "OPT",
        name: ".",
        udpPayloadSize: edns.udpSize,
        flags: edns.do ? DO_FLAG : 0,
      }]
      : [],
  }));
  return opts.tsig === undefined ? message : withTsig(message, opts.tsig);
}

/** Owner `key.`, TYPE TSIG, CLASS ANY, TTL 0, then RDLENGTH 61 and the RDATA. */
// deno-fmt-ignore
const TSIG_RECORD = new Uint8Array([
  3, 0x6b, 0x65, 0x79, 0, 0, 250, 0, 255, 0, 0, 0, 0, 0, 61,
  // hmac-sha256.
  11, 0x68, 0x6d, 0x61, 0x63, 0x2d, 0x73, 0x68, 0x61, 0x32, 0x35, 0x36, 0,
  // Time Signed (48 bits), Fudge 300, MAC Size 32
  0, 0, 0x6b, 0x0d, 0x9a, 0x00, 0x01, 0x2c, 0, 32,
  ...new Array(32).fill(0xab),
  // Original ID 0x1234, Error 0, Other Len 0
  0x12, 0x34, 0, 0, 0, 0,
]);

/** `message` with TSIG_RECORD added last, or ahead of its OPT record. */
function withTsig(message: Uint8Array, where: "last" | "first"): Uint8Array {
  const arcount = (message[10]! << 8) | message[11]!;
  if (where === "first" && arcount !== 1) {
    throw new Error('tsig: "first" needs exactly one OPT record (edns)');
  }
  const optLength = where === "first" ? 11 : 0; // an OPT without options
  const body = message.subarray(0, message.length - optLength);
  const out = new Uint8Array(message.length + TSIG_RECORD.length);
  out.set(body);
  out.set(TSIG_RECORD, body.length);
  out.set(message.subarray(body.length), body.length + TSIG_RECORD.length);
  out[10] = (arcount + 1) >> 8;
  out[11] = (arcount + 1) & 0xff;
  return out;
}

/** Decodes a response message. */
export function decodeResponse(bytes: Uint8Array): DecodedResponse {
  return dnsPacket.decode(Buffer.from(bytes)) as DecodedResponse;
}

/** Sends one query and decodes the answer; throws when none arrives in time. */
export async function query(
  port: number,
  qname: string,
  qtype: string,
  opts: QueryOptions = {},
): Promise<DecodedResponse> {
  const id = opts.id ?? Math.floor(Math.random() * 65536);
  const message = queryMessage(qname, qtype, { ...opts, id });
  const reply = await exchange(port, message, opts);
  if (reply === null) {
    throw new Error(
      `No answer from ${opts.address ?? "127.0.0.1"} port ${port} over ${
        opts.tcp ? "TCP" : "UDP"
      } for "${qname}" ${qtype}`,
    );
  }
  return decodeResponse(reply);
}

/**
 * Sends arbitrary bytes (malformed queries) and returns the raw reply, or
 * null when the server stays silent until the timeout.
 */
export function sendRaw(
  port: number,
  bytes: Uint8Array,
  tcp = false,
  address: LoopbackAddress = "127.0.0.1",
): Promise<Uint8Array | null> {
  return exchange(port, bytes, { tcp, address, timeoutMs: 1000 });
}

async function exchange(
  port: number,
  message: Uint8Array,
  opts: QueryOptions,
): Promise<Uint8Array | null> {
  const address = opts.address ?? "127.0.0.1";
  const timeoutMs = opts.timeoutMs ?? 2000;
  return opts.tcp
    ? await exchangeTcp(address, port, message, timeoutMs)
    : await exchangeUdp(address, port, message, timeoutMs, opts.from);
}

/** Closes `resource` after `ms`, which makes a pending read reject. */
function closeAfter(resource: { close(): void }, ms: number) {
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    resource.close();
  }, ms);
  return {
    get fired() {
      return fired;
    },
    [Symbol.dispose]() {
      clearTimeout(timer);
      if (!fired) resource.close();
    },
  };
}

async function exchangeUdp(
  hostname: LoopbackAddress,
  port: number,
  message: Uint8Array,
  timeoutMs: number,
  from: string = hostname,
): Promise<Uint8Array | null> {
  const socket = Deno.listenDatagram({
    transport: "udp",
    hostname: from,
    port: 0,
  });
  using deadline = closeAfter(socket, timeoutMs);
  try {
    await socket.send(message, { transport: "udp", hostname, port });
    while (true) {
      const [reply] = await socket.receive();
      // A stray datagram with another id is not our answer (ids are random).
      if (
        message.length < 2 || reply.length < 2 ||
        (reply[0] === message[0] && reply[1] === message[1])
      ) return reply;
    }
  } catch (error) {
    if (deadline.fired) return null;
    throw error;
  }
}

async function exchangeTcp(
  hostname: LoopbackAddress,
  port: number,
  message: Uint8Array,
  timeoutMs: number,
): Promise<Uint8Array | null> {
  const conn = await Deno.connect({ hostname, port });
  using deadline = closeAfter(conn, timeoutMs);
  try {
    const framed = new Uint8Array(message.length + 2);
    new DataView(framed.buffer).setUint16(0, message.length);
    framed.set(message, 2);
    await writeAll(conn, framed);
    const head = await readExactly(conn, 2);
    if (head === null) return null;
    return await readExactly(conn, (head[0]! << 8) | head[1]!);
  } catch (error) {
    if (deadline.fired) return null;
    throw error;
  }
}

/** A query for `name`/`type`/`qclass` with this ID (RD set), as wire bytes. */
export function buildQuery(
  id: number,
  name: string,
  type = "A",
  qclass: QueryOptions["class"] = "IN",
): Uint8Array {
  return queryMessage(name, type, { id, class: qclass });
}

/** The parts of an answer the listener tests look at. */
export interface AnswerRecords {
  id: number;
  name: string;
  /** Answer records as "TYPE data" ("A 192.0.2.1", "TXT 3"). */
  records: string[];
}

/** An answer's ID, question name and records as "TYPE data" lines. */
export function answerRecords(bytes: Uint8Array): AnswerRecords {
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

/** Sends one UDP query and waits for its answer; throws after `timeoutMs`. */
export async function udpExchange(
  hostname: string,
  port: number,
  query: Uint8Array,
  timeoutMs = 2000,
): Promise<Uint8Array> {
  const reply = await exchangeUdp(
    hostname as LoopbackAddress,
    port,
    query,
    timeoutMs,
  );
  if (reply === null) throw new Error(`timed out after ${timeoutMs} ms`);
  return reply;
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
