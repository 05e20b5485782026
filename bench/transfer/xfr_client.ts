/**
 * A zone-transfer client for the benchmark: sends one AXFR (RFC 5936) or
 * IXFR (RFC 1995) query over TCP to a loopback port and reads the
 * length-prefixed messages (RFC 1035 §4.2.2) until the closing SOA,
 * counting messages, octets and records without decoding the records.
 * The split into frames and the end-of-transfer rule are pure (FrameSplitter,
 * TransferReader) so they can be tested without a server.
 */
import { serialGreater } from "../../src/dns/serial_number.ts";
import { TYPE, typeName } from "../../src/dns/wire/constants.ts";
import { readName } from "../../src/dns/wire/read_name.ts";

const HEADER_OCTETS = 12;

/** Splits a TCP byte stream into DNS messages (2-octet length prefix). */
export class FrameSplitter {
  #pending = new Uint8Array(0);

  /** The messages completed by `chunk`, as views valid until the next push. */
  push(chunk: Uint8Array): Uint8Array[] {
    let buf = chunk;
    if (this.#pending.length > 0) {
      buf = new Uint8Array(this.#pending.length + chunk.length);
      buf.set(this.#pending);
      buf.set(chunk, this.#pending.length);
    }
    const out: Uint8Array[] = [];
    let at = 0;
    while (at + 2 <= buf.length) {
      const length = (buf[at]! << 8) | buf[at + 1]!;
      if (at + 2 + length > buf.length) break;
      out.push(buf.subarray(at + 2, at + 2 + length));
      at += 2 + length;
    }
    // Copied: the caller may reuse `chunk`'s buffer for the next read.
    this.#pending = buf.slice(at);
    return out;
  }

  /** Octets of an unfinished message held back. */
  get pendingOctets(): number {
    return this.#pending.length;
  }
}

/**
 * The offset after the owner name at `at`, stopping at a compression
 * pointer without following it (the walk needs lengths, not names).
 */
function skipOwner(bytes: Uint8Array, at: number): number {
  for (let pos = at; pos < bytes.length;) {
    const len = bytes[pos]!;
    if (len === 0) return pos + 1;
    if ((len & 0xc0) === 0xc0) return pos + 2;
    pos += len + 1;
  }
  throw new Error("name runs past the end of the message");
}

/** Whether the name at `at` ends in a compression pointer. */
function endsInPointer(bytes: Uint8Array, at: number): boolean {
  let pos = at;
  while (bytes[pos]! !== 0 && (bytes[pos]! & 0xc0) !== 0xc0) {
    pos += bytes[pos]! + 1;
  }
  return bytes[pos]! !== 0;
}

/** The SOA serial in the RDATA at `rdata` (two names, then the serial). */
function soaSerial(bytes: Uint8Array, rdata: number): number {
  const at = skipOwner(bytes, skipOwner(bytes, rdata));
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.length)
    .getUint32(at);
}

/** What arrived of one transfer so far. */
export interface TransferTally {
  messages: number;
  /** DNS message octets, without the TCP length prefixes. */
  messageOctets: number;
  /** TCP payload octets: messageOctets + 2 per message. */
  wireOctets: number;
  /** Answer records, SOAs included. */
  records: number;
  /** The serial of the opening SOA. */
  serial?: number;
  /** "axfr": full zone; "ixfr": differences; "soa": the current SOA alone. */
  form?: "axfr" | "ixfr" | "soa";
}

/**
 * Follows the answer records of an AXFR or IXFR and says when the
 * transfer is complete:
 * - AXFR (RFC 5936 §2.2): SOA, the zone, the SOA again.
 * - IXFR (RFC 1995 §4): SOA (current), then per difference the old SOA,
 *   the records removed, the new SOA, the records added, and the current
 *   SOA again; the last difference's new SOA also has the current serial,
 *   so only an SOA that would open a removal section can close it. An
 *   IXFR answered with a second record other than an SOA is in AXFR form;
 *   a lone SOA no newer than the client's serial means "up to date".
 */
export class TransferReader {
  readonly tally: TransferTally = {
    messages: 0,
    messageOctets: 0,
    wireOctets: 0,
    records: 0,
  };
  #done = false;
  #index = 0;
  /** In an incremental answer, whether the next records are removals. */
  #removing = false;

  constructor(
    readonly qtype: "AXFR" | "IXFR",
    readonly clientSerial?: number,
  ) {}

  get done(): boolean {
    return this.#done;
  }

  /** Takes one message; throws on an error rcode or records after the end. */
  add(msg: Uint8Array): void {
    if (msg.length < HEADER_OCTETS) {
      throw new Error("message shorter than a header");
    }
    if (this.#done) throw new Error("a message after the closing SOA");
    const rcode = msg[3]! & 0x0f;
    if (rcode !== 0) throw new Error(`the server answered rcode ${rcode}`);
    this.tally.messages++;
    this.tally.messageOctets += msg.length;
    this.tally.wireOctets += msg.length + 2;
    const qdcount = (msg[4]! << 8) | msg[5]!;
    const ancount = (msg[6]! << 8) | msg[7]!;
    let at = HEADER_OCTETS;
    for (let q = 0; q < qdcount; q++) at = skipOwner(msg, at) + 4;
    for (let r = 0; r < ancount; r++) {
      if (this.#done) throw new Error("records after the closing SOA");
      at = skipOwner(msg, at);
      if (at + 10 > msg.length) throw new Error("record runs past the message");
      const type = (msg[at]! << 8) | msg[at + 1]!;
      const rdlength = (msg[at + 8]! << 8) | msg[at + 9]!;
      const rdata = at + 10;
      at = rdata + rdlength;
      if (at > msg.length) throw new Error("RDATA runs past the message");
      this.tally.records++;
      this.#record(type === TYPE.SOA ? soaSerial(msg, rdata) : undefined);
    }
    // A lone SOA no newer than the client's: nothing to transfer (§4).
    if (
      this.#index === 1 && this.qtype === "IXFR" &&
      this.clientSerial !== undefined &&
      !serialGreater(this.tally.serial!, this.clientSerial)
    ) {
      this.tally.form = "soa";
      this.#done = true;
    }
  }

  /** One answer record: `serial` when it is an SOA. */
  #record(serial: number | undefined): void {
    const index = this.#index++;
    if (index === 0) {
      if (serial === undefined) {
        throw new Error("the answer does not open with an SOA");
      }
      this.tally.serial = serial;
      return;
    }
    if (index === 1) {
      if (this.qtype === "IXFR" && serial !== undefined) {
        this.tally.form = "ixfr";
        this.#removing = true;
        return;
      }
      this.tally.form = "axfr";
    }
    if (serial === undefined) return;
    if (this.tally.form === "axfr") {
      this.#done = true;
    } else if (this.#removing) {
      this.#removing = false;
    } else if (serial === this.tally.serial) {
      this.#done = true;
    } else {
      this.#removing = true;
    }
  }
}

/** The labels of `name` in wire form (no compression). */
function encodeName(name: string): number[] {
  const out: number[] = [];
  for (const label of name.replace(/\.$/, "").split(".")) {
    if (label === "") continue;
    const octets = new TextEncoder().encode(label);
    out.push(octets.length, ...octets);
  }
  out.push(0);
  return out;
}

/**
 * An AXFR or IXFR query for `zone`; an IXFR carries `serial` in an SOA in
 * its authority section (RFC 1995 §3), with root MNAME and RNAME as dig
 * and kdig send it.
 */
export function transferQuery(
  zone: string,
  qtype: "AXFR" | "IXFR",
  id: number,
  serial?: number,
): Uint8Array {
  const ixfr = qtype === "IXFR";
  if (ixfr && serial === undefined) throw new Error("IXFR needs a serial");
  const header = [id >> 8, id & 0xff, 0, 0, 0, 1, 0, 0, 0, ixfr ? 1 : 0, 0, 0];
  const code = ixfr ? TYPE.IXFR : TYPE.AXFR;
  const question = [...encodeName(zone), code >> 8, code & 0xff, 0, 1];
  const authority = ixfr
    ? [
      0xc0,
      0x0c, // the question's name
      0,
      TYPE.SOA,
      0,
      1,
      0,
      0,
      0,
      0,
      0,
      22, // type, class IN, TTL 0, RDLENGTH
      0,
      0, // MNAME and RNAME: the root
      serial! >>> 24,
      (serial! >> 16) & 0xff,
      (serial! >> 8) & 0xff,
      serial! & 0xff,
      ...new Array(16).fill(0), // refresh, retry, expire, minimum
    ]
    : [];
  return new Uint8Array([...header, ...question, ...authority]);
}

/** One pulled transfer. */
export interface TransferResult extends TransferTally {
  /** From before the connect to the closing SOA. */
  seconds: number;
  /** The messages themselves, when asked to keep them. */
  kept?: Uint8Array[];
}

/**
 * Pulls one AXFR or IXFR of `zone` from 127.0.0.1:`port`; throws when it
 * does not complete within `timeoutMs` or the connection closes early.
 */
export async function pullTransfer(
  port: number,
  zone: string,
  opts: {
    qtype: "AXFR" | "IXFR";
    serial?: number;
    timeoutMs?: number;
    keep?: boolean;
  },
): Promise<TransferResult> {
  const query = transferQuery(
    zone,
    opts.qtype,
    Math.floor(Math.random() * 65536),
    opts.serial,
  );
  const framed = new Uint8Array(query.length + 2);
  framed[0] = query.length >> 8;
  framed[1] = query.length & 0xff;
  framed.set(query, 2);
  const reader = new TransferReader(opts.qtype, opts.serial);
  const splitter = new FrameSplitter();
  const kept: Uint8Array[] = [];
  const began = performance.now();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    conn.close();
  }, opts.timeoutMs ?? 120_000);
  try {
    for (let off = 0; off < framed.length;) {
      off += await conn.write(framed.subarray(off));
    }
    const buf = new Uint8Array(256 * 1024);
    while (!reader.done) {
      const n = await conn.read(buf);
      if (n === null) {
        throw new Error(
          `the server closed the connection after ${reader.tally.messages} messages, ${reader.tally.records} records`,
        );
      }
      for (const msg of splitter.push(buf.subarray(0, n))) {
        reader.add(msg);
        if (opts.keep) kept.push(msg.slice());
      }
    }
    const seconds = (performance.now() - began) / 1000;
    if (splitter.pendingOctets > 0) {
      throw new Error(`${splitter.pendingOctets} octets after the closing SOA`);
    }
    return { ...reader.tally, seconds, ...(opts.keep && { kept }) };
  } catch (error) {
    if (timedOut) {
      throw new Error(
        `${opts.qtype} of ${zone} from port ${port} did not finish in ${
          opts.timeoutMs ?? 120_000
        } ms (${reader.tally.records} records so far)`,
      );
    }
    throw error;
  } finally {
    clearTimeout(timer);
    if (!timedOut) conn.close();
  }
}

/**
 * Each message's layout, one line per part, to compare two servers'
 * answers octet by octet: header, question, then per answer record its
 * owner (and whether it ends in a compression pointer), type, TTL, RDATA
 * length and whole size, and the SOA serial or the address it carries.
 */
export function describeMessages(messages: Uint8Array[]): string[] {
  const lines: string[] = [];
  messages.forEach((msg, m) => {
    const view = new DataView(msg.buffer, msg.byteOffset, msg.length);
    const qdcount = view.getUint16(4);
    const ancount = view.getUint16(6);
    const nscount = view.getUint16(8);
    const arcount = view.getUint16(10);
    lines.push(
      `  message ${m + 1}: ${msg.length} octets, flags 0x${
        view.getUint16(2).toString(16).padStart(4, "0")
      }, QD ${qdcount} AN ${ancount} NS ${nscount} AR ${arcount}`,
    );
    let at = HEADER_OCTETS;
    for (let q = 0; q < qdcount; q++) {
      const start = at;
      const { name } = readName(msg, at);
      at = skipOwner(msg, at);
      const type = typeName(view.getUint16(at));
      at += 4;
      lines.push(`    question ${name} ${type}: ${at - start} octets`);
    }
    for (let r = 0; r < ancount + nscount + arcount; r++) {
      const start = at;
      const { name } = readName(msg, at);
      const ownerEnd = skipOwner(msg, at);
      const pointer = endsInPointer(msg, start);
      const type = view.getUint16(ownerEnd);
      const ttl = view.getUint32(ownerEnd + 4);
      const rdlength = view.getUint16(ownerEnd + 8);
      const rdata = ownerEnd + 10;
      at = rdata + rdlength;
      const detail = type === TYPE.SOA
        ? ` serial ${soaSerial(msg, rdata)}`
        : type === TYPE.A
        ? ` ${[...msg.subarray(rdata, rdata + 4)].join(".")}`
        : "";
      const section = r < ancount
        ? "answer"
        : r < ancount + nscount
        ? "authority"
        : "additional";
      lines.push(
        `    ${section} ${name} ${typeName(type)} TTL ${ttl}${detail}: ${
          at - start
        } octets (owner ${ownerEnd - start}${
          pointer ? ", compressed" : ""
        }, RDATA ${rdlength})`,
      );
    }
  });
  return lines;
}

/** Answer records by type over `messages`, e.g. "4 SOA, 3334 AAAA, 2 A". */
export function countTypes(messages: Uint8Array[]): string {
  const counts = new Map<string, number>();
  for (const msg of messages) {
    const view = new DataView(msg.buffer, msg.byteOffset, msg.length);
    let at = HEADER_OCTETS;
    for (let q = 0; q < view.getUint16(4); q++) at = skipOwner(msg, at) + 4;
    for (let r = 0; r < view.getUint16(6); r++) {
      at = skipOwner(msg, at);
      const type = typeName(view.getUint16(at));
      counts.set(type, (counts.get(type) ?? 0) + 1);
      at += 10 + view.getUint16(at + 8);
    }
  }
  return [...counts].map(([type, n]) => `${n} ${type}`).join(", ");
}
