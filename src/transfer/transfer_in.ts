/**
 * Zone transfers in: a secondary zone's copy fetched from a primary over
 * TCP. The primary's SOA first (is there anything new?), then IXFR (RFC
 * 1995) from the serial held, or AXFR (RFC 5936) when none is held; a
 * primary may answer IXFR with the whole zone (§4), and that is taken too.
 *
 * Every record is checked as it is read, and any problem ends the transfer
 * with a TransferError, the copy held staying as it was (a primary that
 * sends bad data must not damage what is served):
 * - each message: our ID, QR, NOERROR, and, with a key, a TSIG that checks
 *   out over the stream (RFC 8945 §5.3.1; unsigned ones between signed
 *   ones, at most 99);
 * - each record: class IN, an owner at or below the zone, no meta-type,
 *   data that decodes for its type, a TTL below 2^31 (RFC 2181 §8);
 * - the stream: SOA first and last with the same serial, an IXFR's
 *   sequences chaining from the serial held to the new one, every removed
 *   record present, at most `maxRecords` records and `maxBytes` octets;
 * - the serial: newer than the one held (RFC 1982), never backwards.
 */
import { serialGreater } from "../dns/serial_number.ts";
import type { RecordData, RRSet, SoaRdata } from "../dns/rrset.ts";
import { isSubdomainOf, normalizeName } from "../dns/name.ts";
import {
  signMessage,
  type TsigKey,
  TsigStreamCheck,
} from "../dns/tsig/tsig.ts";
import { CLASS, OPCODE, RCODE, TYPE } from "../dns/wire/constants.ts";
import { encodeResponse } from "../dns/wire/response.ts";
import { readName, skipName } from "../dns/wire/read_name.ts";
import { readRdata } from "../dns/wire/rdata_read.ts";
import { rcodeName } from "../dns/wire/rcode_name.ts";
import { frameMessage, FrameReader } from "../dns/wire/tcp_framing.ts";
import { WireFormatError } from "../dns/wire/wire_format_error.ts";
import { canonicalRdataKey } from "../dns/wire/rdata_canonical.ts";
import { randomQueryId } from "../upstream/build_query.ts";

/** Where a secondary zone comes from. */
export interface TransferSource {
  address: string;
  port: number;
  /** Sign the queries and require signed answers. */
  key?: TsigKey;
}

export interface TransferOptions {
  /** The whole exchange, connect to last message. @default 60000 */
  timeoutMs?: number;
  /** @default 2000000 */
  maxRecords?: number;
  /** @default 512 MiB */
  maxBytes?: number;
  /** Seconds since the epoch, for TSIG. @default Date.now()/1000 */
  now?: () => number;
  /** Ends the transfer (the server stops): a TransferError "stopped". */
  signal?: AbortSignal;
}

/** What a transfer brought. */
export type TransferResult =
  | { kind: "current"; serial: number }
  | {
    kind: "transferred";
    /** AXFR, or IXFR (the differences applied to what was held). */
    how: "AXFR" | "IXFR";
    serial: number;
    /** Every RRset of the new copy, the apex SOA first. */
    rrsets: RRSet[];
    records: number;
    messages: number;
    bytes: number;
  };

/** Why a transfer failed: what a status and a log line say. */
export class TransferError extends Error {
  constructor(message: string, readonly reason: string) {
    super(message);
    this.name = "TransferError";
  }
}

const META_TYPES = new Set([
  0,
  TYPE.OPT,
  TYPE.TSIG,
  TYPE.IXFR,
  TYPE.AXFR,
  253,
  TYPE.ANY,
]);
const MAX_TTL = 2 ** 31 - 1;

/** One record as read off the wire. */
interface WireRecord {
  name: string;
  type: number;
  ttl: number;
  rdata: RecordData;
}

/**
 * Brings `zone` up to date from `source`: "current" when the primary's
 * serial is not newer than `held.serial`.
 *
 * @throws {TransferError} on anything but a complete, valid transfer
 */
export async function transferIn(
  zone: string,
  source: TransferSource,
  held: { serial: number; rrsets: readonly RRSet[] } | undefined,
  opts: TransferOptions = {},
): Promise<TransferResult> {
  const apex = normalizeName(zone);
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const signal = opts.signal === undefined
    ? AbortSignal.timeout(timeoutMs)
    : AbortSignal.any([AbortSignal.timeout(timeoutMs), opts.signal]);
  let conn: Deno.TcpConn;
  try {
    conn = await Deno.connect({
      hostname: source.address,
      port: source.port,
      transport: "tcp",
      signal,
    });
  } catch (error) {
    throw new TransferError(
      `cannot connect to ${source.address}:${source.port}: ${
        error instanceof Error ? error.message : String(error)
      }`,
      "unreachable",
    );
  }
  const hangUp = () => conn.close();
  signal.addEventListener("abort", hangUp);
  try {
    const exchange = new Exchange(conn, apex, source, opts);
    const soa = await exchange.soa();
    if (held !== undefined && !serialGreater(soa, held.serial)) {
      if (soa !== held.serial) {
        throw new TransferError(
          `the primary's serial ${soa} is older than ours, ${held.serial} (RFC 1982); keeping ours`,
          "serial_backwards",
        );
      }
      return { kind: "current", serial: soa };
    }
    return await exchange.transfer(held);
  } catch (error) {
    if (error instanceof TransferError) throw error;
    if (opts.signal?.aborted) {
      throw new TransferError("the transfer was stopped", "stopped");
    }
    if (signal.aborted || error instanceof Deno.errors.BadResource) {
      throw new TransferError(
        `no complete answer from ${source.address}:${source.port} within ${timeoutMs} ms`,
        "timeout",
      );
    }
    if (error instanceof WireFormatError) {
      throw new TransferError(
        `malformed message: ${error.message}`,
        "malformed",
      );
    }
    throw new TransferError(
      error instanceof Error ? error.message : String(error),
      "failed",
    );
  } finally {
    signal.removeEventListener("abort", hangUp);
    try {
      conn.close();
    } catch {
      // closed by the timer
    }
  }
}

/** Queries and answers on one connection. */
class Exchange {
  readonly #frames = new FrameReader();
  readonly #buffer = new Uint8Array(65536);
  #pending: Uint8Array[] = [];

  constructor(
    readonly conn: Deno.TcpConn,
    readonly apex: string,
    readonly source: TransferSource,
    readonly opts: TransferOptions,
  ) {}

  #now(): number {
    return Math.floor(this.opts.now?.() ?? Date.now() / 1000);
  }

  /** The primary's serial for the zone. */
  async soa(): Promise<number> {
    const { id, check } = await this.#ask(TYPE.SOA, undefined);
    const message = await this.#next();
    const parsed = this.#parse(message, id);
    await this.#checkTsig(check, message, true);
    const soa = parsed.records.find((r) =>
      r.type === TYPE.SOA && r.name === this.apex
    );
    if (soa === undefined) {
      throw new TransferError(
        "the primary's answer to SOA holds no SOA of the zone",
        "no_soa",
      );
    }
    return (soa.rdata as SoaRdata).serial;
  }

  /** IXFR from `held`, or AXFR; the new copy. */
  async transfer(
    held: { serial: number; rrsets: readonly RRSet[] } | undefined,
  ): Promise<TransferResult> {
    const heldSoa = held?.rrsets.find((r) =>
      r.type === TYPE.SOA && r.name === this.apex
    );
    const ixfr = held !== undefined && heldSoa !== undefined;
    const { id, check } = await this.#ask(
      ixfr ? TYPE.IXFR : TYPE.AXFR,
      ixfr ? heldSoa : undefined,
    );
    const maxRecords = this.opts.maxRecords ?? 2_000_000;
    const maxBytes = this.opts.maxBytes ?? 512 * 1024 * 1024;
    const records: WireRecord[] = [];
    let messages = 0;
    let bytes = 0;
    let finalSerial: number | undefined;
    for (;;) {
      const message = await this.#next();
      messages++;
      bytes += message.length;
      if (bytes > maxBytes) {
        throw new TransferError(
          `the transfer passed ${maxBytes} octets`,
          "too_large",
        );
      }
      const parsed = this.#parse(message, id);
      await this.#checkTsig(check, message, false);
      for (const record of parsed.records) {
        if (records.length >= maxRecords) {
          throw new TransferError(
            `the transfer passed ${maxRecords} records`,
            "too_large",
          );
        }
        records.push(record);
      }
      const first = records[0];
      if (first === undefined) continue;
      if (first.type !== TYPE.SOA || first.name !== this.apex) {
        throw new TransferError(
          "the transfer does not begin with the zone's SOA",
          "malformed",
        );
      }
      finalSerial = (first.rdata as SoaRdata).serial;
      // One SOA alone answers an IXFR when the primary will not send
      // differences over this transport (§4); the SOA query said there is
      // something newer, so the whole zone is asked for next.
      if (ixfr && messages === 1 && parsed.records.length === 1) {
        throw new TransferError(
          "the primary answered IXFR with its SOA alone",
          "ixfr_soa_only",
        );
      }
      const last = records.at(-1)!;
      if (
        records.length > 1 && last.type === TYPE.SOA &&
        last.name === this.apex &&
        (last.rdata as SoaRdata).serial === finalSerial &&
        (!ixfr || closesIxfr(records, finalSerial))
      ) {
        if (check !== undefined && !check.end()) {
          throw new TransferError(
            "the transfer's last message is not signed (RFC 8945 §5.3.1)",
            "tsig",
          );
        }
        break;
      }
    }
    if (held !== undefined && !serialGreater(finalSerial!, held.serial)) {
      throw new TransferError(
        `the transfer's serial ${finalSerial} is not newer than ours, ${held.serial}; keeping ours`,
        "serial_backwards",
      );
    }
    const incremental = ixfr && records.length > 1 &&
      records[1]!.type === TYPE.SOA && records[1]!.name === this.apex;
    const rrsets = incremental
      ? applyIxfr(held!.rrsets, records, held!.serial)
      : axfrRRSets(records);
    return {
      kind: "transferred",
      how: incremental ? "IXFR" : "AXFR",
      serial: finalSerial!,
      rrsets,
      records: rrsets.reduce((n, r) => n + r.rdata.length, 0),
      messages,
      bytes,
    };
  }

  /** Sends a query for the zone; its ID and the check of its answers. */
  async #ask(
    type: number,
    soa: RRSet | undefined,
  ): Promise<{ id: number; check: TsigStreamCheck | undefined }> {
    const id = randomQueryId();
    let query = encodeResponse({
      id,
      opcode: OPCODE.QUERY,
      rcode: RCODE.NOERROR,
      question: { name: this.apex, type, class: CLASS.IN },
      ...(soa !== undefined && { authority: [soa] }),
    }, 65535);
    query[2] = query[2]! & 0x7f; // QR=0
    let check: TsigStreamCheck | undefined;
    const key = this.source.key;
    if (key !== undefined) {
      const signed = await signMessage(query, key, { now: this.#now() });
      query = signed.message;
      check = new TsigStreamCheck(key, signed.mac, () => this.#now());
    }
    const framed = frameMessage(query)!.slice();
    for (let off = 0; off < framed.length;) {
      off += await this.conn.write(framed.subarray(off));
    }
    return { id, check };
  }

  /** The next whole message off the connection. */
  async #next(): Promise<Uint8Array> {
    for (;;) {
      const ready = this.#pending.shift();
      if (ready !== undefined) return ready;
      const n = await this.conn.read(this.#buffer);
      if (n === null) {
        throw new TransferError(
          "the primary closed the connection before the transfer ended",
          "truncated",
        );
      }
      this.#pending = this.#frames.push(this.#buffer.subarray(0, n), 1 << 20)
        .map((m) => m.slice());
      if (this.#frames.malformed) {
        throw new TransferError("a message of length 0", "malformed");
      }
    }
  }

  /** The answer records of a response to query `id`, each checked. */
  #parse(message: Uint8Array, id: number): { records: WireRecord[] } {
    if (message.length < 12) throw new WireFormatError("message too short");
    const view = new DataView(
      message.buffer,
      message.byteOffset,
      message.length,
    );
    if (view.getUint16(0) !== id) {
      throw new TransferError("an answer with another ID", "malformed");
    }
    const flags = view.getUint16(2);
    if ((flags & 0x8000) === 0) {
      throw new TransferError("a message that is not an answer", "malformed");
    }
    const rcode = flags & 0xf;
    if (rcode !== RCODE.NOERROR) {
      throw new TransferError(
        `the primary answered ${rcodeName(rcode)}`,
        rcode === RCODE.REFUSED || rcode === RCODE.NOTAUTH
          ? "refused"
          : "error_rcode",
      );
    }
    const qdcount = view.getUint16(4);
    const ancount = view.getUint16(6);
    let pos = 12;
    for (let i = 0; i < qdcount; i++) pos = skipName(message, pos) + 4;
    const records: WireRecord[] = [];
    for (let i = 0; i < ancount; i++) {
      const owner = readName(message, pos);
      const fixed = owner.end;
      if (fixed + 10 > message.length) {
        throw new WireFormatError("record truncated");
      }
      const type = view.getUint16(fixed);
      const rrclass = view.getUint16(fixed + 2);
      const ttl = view.getUint32(fixed + 4);
      const start = fixed + 10;
      const end = start + view.getUint16(fixed + 8);
      if (end > message.length) throw new WireFormatError("record truncated");
      const name = normalizeName(owner.name);
      if (rrclass !== CLASS.IN) {
        throw new TransferError(
          `a record of ${name} in class ${rrclass}, not IN`,
          "malformed",
        );
      }
      if (META_TYPES.has(type)) {
        throw new TransferError(
          `a record of ${name} of meta-type ${type}`,
          "malformed",
        );
      }
      if (!isSubdomainOf(name, this.apex)) {
        throw new TransferError(
          `a record of ${name}, outside the zone ${this.apex}`,
          "out_of_zone",
        );
      }
      if (ttl > MAX_TTL) {
        throw new TransferError(
          `a record of ${name} with TTL ${ttl}`,
          "malformed",
        );
      }
      let rdata: RecordData;
      try {
        rdata = readRdata(type, message, start, end, true);
      } catch (error) {
        throw new TransferError(
          `a record of ${name} type ${type} whose data does not read: ${
            error instanceof Error ? error.message : String(error)
          }`,
          "malformed",
        );
      }
      records.push({ name, type, ttl, rdata });
      pos = end;
    }
    return { records };
  }

  async #checkTsig(
    check: TsigStreamCheck | undefined,
    message: Uint8Array,
    single: boolean,
  ): Promise<void> {
    if (check === undefined) return;
    const result = await check.next(message);
    if (result.status === "error" || (single && result.status !== "ok")) {
      throw new TransferError(
        `the primary's answer fails its TSIG check${
          result.status === "error" ? ` (error ${result.error})` : ""
        }`,
        "tsig",
      );
    }
  }
}

/**
 * Whether an IXFR answer's `records`, ending in the SOA of `serial`, are
 * all of it: an AXFR-style answer ends at its second SOA; an incremental
 * one's SOAs after the first alternate old and new, so it ends with an odd
 * count of them, the last "new" one having `serial`.
 */
function closesIxfr(records: WireRecord[], serial: number): boolean {
  const second = records[1]!;
  const incremental = second.type === TYPE.SOA && records.length > 2;
  if (!incremental) return true;
  let soas = 0;
  let lastNew: number | undefined;
  for (let i = 1; i < records.length; i++) {
    const r = records[i]!;
    if (r.type !== TYPE.SOA) continue;
    soas++;
    if (soas % 2 === 0) lastNew = (r.rdata as SoaRdata).serial;
  }
  return soas % 2 === 1 && soas >= 3 && lastNew === serial;
}

/** An AXFR's records as RRsets (the closing SOA dropped), SOA first. */
function axfrRRSets(records: WireRecord[]): RRSet[] {
  const body = records.slice(0, -1);
  const soas = body.filter((r) => r.type === TYPE.SOA);
  if (soas.length !== 1) {
    throw new TransferError(
      "the zone holds more than one SOA record",
      "malformed",
    );
  }
  return groupRRSets(body);
}

/**
 * `held` with an IXFR's sequences applied (RFC 1995 §4): each removes its
 * records (which must be there) and adds its own, from the serial held to
 * the last.
 */
function applyIxfr(
  held: readonly RRSet[],
  records: WireRecord[],
  heldSerial: number,
): RRSet[] {
  const present = new Map<string, WireRecord>();
  for (const rrset of held) {
    for (const rdata of rrset.rdata) {
      const record = {
        name: rrset.name,
        type: rrset.type,
        ttl: rrset.ttl,
        rdata,
      };
      present.set(recordKey(record), record);
    }
  }
  let serial = heldSerial;
  let i = 1;
  const end = records.length - 1;
  while (i < end) {
    const oldSoa = records[i]!;
    if (
      oldSoa.type !== TYPE.SOA || (oldSoa.rdata as SoaRdata).serial !== serial
    ) {
      throw new TransferError(
        `an IXFR sequence does not start from serial ${serial}`,
        "malformed",
      );
    }
    i++;
    for (; i < end && records[i]!.type !== TYPE.SOA; i++) {
      const key = recordKey(records[i]!);
      if (!present.delete(key)) {
        throw new TransferError(
          `an IXFR removes a record of ${
            records[i]!.name
          } that the zone does not hold`,
          "malformed",
        );
      }
    }
    const newSoa = records[i];
    if (newSoa === undefined || newSoa.type !== TYPE.SOA || i >= end) {
      throw new TransferError("an IXFR sequence has no new SOA", "malformed");
    }
    const next = (newSoa.rdata as SoaRdata).serial;
    if (!serialGreater(next, serial)) {
      throw new TransferError(
        `an IXFR sequence goes from serial ${serial} to ${next}`,
        "serial_backwards",
      );
    }
    serial = next;
    // The zone's SOA is the new one.
    for (const [key, record] of present) {
      if (record.type === TYPE.SOA) present.delete(key);
    }
    present.set(recordKey(newSoa), newSoa);
    i++;
    for (; i < end && records[i]!.type !== TYPE.SOA; i++) {
      present.set(recordKey(records[i]!), records[i]!);
    }
  }
  return groupRRSets([...present.values()]);
}

function recordKey(r: WireRecord): string {
  return `${r.name} ${r.type} ${canonicalRdataKey(r.rdata)}`;
}

/**
 * Records grouped into RRsets by owner and type, in first-seen order with
 * the SOA first; an RRset takes its lowest TTL (RFC 2181 §5.2).
 */
function groupRRSets(records: WireRecord[]): RRSet[] {
  const byKey = new Map<string, RRSet>();
  for (const r of records) {
    const key = `${r.name} ${r.type}`;
    const rrset = byKey.get(key);
    if (rrset === undefined) {
      byKey.set(key, {
        name: r.name,
        type: r.type,
        ttl: r.ttl,
        rdata: [r.rdata],
      });
    } else {
      rrset.rdata.push(r.rdata);
      rrset.ttl = Math.min(rrset.ttl, r.ttl);
    }
  }
  const rrsets = [...byKey.values()];
  const soa = rrsets.findIndex((r) => r.type === TYPE.SOA);
  if (soa > 0) rrsets.unshift(...rrsets.splice(soa, 1));
  return rrsets;
}
