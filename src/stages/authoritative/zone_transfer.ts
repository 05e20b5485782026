/**
 * Zone transfers out (AXFR, RFC 5936; IXFR, RFC 1995): who may transfer a
 * zone, and the answer of many messages that carries it over TCP.
 *
 * - The question must name the apex of a primary zone served here, else
 *   NOTAUTH (as NSD and Knot answer).
 * - The zone's `zoneTransfer` mode and `transferACL` must admit the client
 *   (zone_access.ts); when `transferTSIGKeyRefs` names keys, the query must
 *   also be signed with one of them. Else REFUSED, as BIND and Knot answer.
 * - IXFR (RFC 1995) names the client's serial in an SOA in the authority
 *   section (none: FORMERR). A client as new as the zone gets the current
 *   SOA alone; otherwise the differences since its serial from the zone
 *   journal (src/zone/journal.ts), or, when the journal cannot answer, the
 *   whole zone in AXFR form (§4). Over UDP the answer is the current SOA
 *   alone, which tells a client that is behind to ask over TCP (§2).
 * - The zone is sent from the snapshot the query arrived on, whatever
 *   serial lands while it is sent: the SOA that opens the answer closes it.
 */
import { CLASS, RCODE, TYPE } from "../../dns/wire/constants.ts";
import { encodeResponse } from "../../dns/wire/response.ts";
import { TsigStreamSigner } from "../../dns/tsig/tsig.ts";
import type { RRSet } from "../../dns/rrset.ts";
import type { AnswerStream } from "../../pipeline/handler.ts";
import type { Request } from "../../pipeline/request.ts";
import { answer, type Response } from "../../pipeline/response.ts";
import { serialGreater } from "../../dns/serial_number.ts";
import { skipName } from "../../dns/wire/read_name.ts";
import { WireFormatError } from "../../dns/wire/wire_format_error.ts";
import type { IndexedZone, ZoneIndex } from "../../zone/index.ts";
import type { ZoneJournal } from "../../zone/journal.ts";
import type { ZoneDiff } from "../../zone/zone_diff.ts";
import type { ZoneContent } from "../../zone/types.ts";
import { compileAccess } from "../../zone/zone_access.ts";
import { nameServerAddresses } from "./query_access.ts";

/**
 * A transfer message's size: compression pointers reach the first 16,383
 * octets only (RFC 1035 §4.1.4), so a longer message compresses worse; NSD
 * caps its AXFR messages here too.
 */
export const TRANSFER_MESSAGE_OCTETS = 16383;

/** Records offered to one message; more than fit in TRANSFER_MESSAGE_OCTETS. */
const RECORDS_PER_TRY = 2048;

/** Where IXFR finds a zone's differences: the journal, when it can be read. */
export type JournalLookup = (
  path: string,
) => Pick<ZoneJournal, "since"> | undefined;

/** The answer to an AXFR or IXFR query. */
export function zoneTransfer(
  index: ZoneIndex,
  req: Request,
  journals: JournalLookup,
): Response {
  const zone = index.zones.get(req.qname);
  if (zone?.kind !== "primary" || zone.soa === undefined) {
    return answer(req, "authoritative", "notauth", RCODE.NOTAUTH);
  }
  req.zone = zone.name;
  // A secondary zone without a copy to serve is not passed on either.
  if (zone.content.unavailable !== undefined) {
    return answer(req, "authoritative", "servfail", RCODE.SERVFAIL);
  }
  const ixfr = req.query.question!.type === TYPE.IXFR;
  const since = ixfr ? ixfrSerial(req) : undefined;
  if (ixfr && since === undefined) {
    return answer(req, "authoritative", "formerr", RCODE.FORMERR);
  }
  if (!mayTransfer(index, zone, req)) {
    return answer(req, "authoritative", "refused", RCODE.REFUSED);
  }
  const current = zone.content.serial;
  if (
    since !== undefined &&
    (req.client.streams === undefined || !serialGreater(current, since))
  ) {
    return soaOnly(req, zone.soa);
  }
  if (req.client.streams === undefined) {
    return answer(req, "authoritative", "refused", RCODE.REFUSED);
  }
  const path = req.snapshot?.journalPath;
  const diffs = since === undefined || path === undefined
    ? undefined
    : journals(path)?.since(zone.name, since, current);
  return {
    stream: diffs === undefined
      ? axfrStream(req, zone)
      : ixfrStream(req, diffRecords(zone.soa, diffs)),
    status: "authoritative",
    stage: "authoritative",
    cacheable: false,
  };
}

/** The current SOA alone (RFC 1995 §2, §4). */
function soaOnly(req: Request, soa: RRSet): Response {
  const res = answer(req, "authoritative", "authoritative", RCODE.NOERROR, {
    aa: true,
    answer: [soa],
  });
  res.cacheable = false;
  return res;
}

/**
 * The serial of the SOA an IXFR query carries in its authority section
 * (RFC 1995 §3); undefined when it has none or it is malformed.
 */
export function ixfrSerial(req: Request): number | undefined {
  const { bytes, query } = req;
  if (query.nscount !== 1 || query.ancount !== 0) return undefined;
  try {
    const fixed = skipName(bytes, query.questionEnd);
    if (fixed + 10 > bytes.length) return undefined;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    if (view.getUint16(fixed) !== TYPE.SOA) return undefined;
    const rdata = fixed + 10;
    const end = rdata + view.getUint16(fixed + 8);
    const serialAt = skipName(bytes, skipName(bytes, rdata));
    if (serialAt + 20 !== end || end > bytes.length) return undefined;
    return view.getUint32(serialAt);
  } catch (error) {
    if (error instanceof WireFormatError) return undefined;
    throw error;
  }
}

function mayTransfer(
  index: ZoneIndex,
  zone: IndexedZone,
  req: Request,
): boolean {
  const access = zone.content.access;
  if (access === undefined) return false;
  const admitted = compileAccess(
    access.zoneTransfer,
    access.transferACL,
    nameServerAddresses(index, zone),
  );
  if (!admitted(req.client.address)) return false;
  const refs = access.transferTSIGKeyRefs ?? [];
  return refs.length === 0 ||
    (req.tsig !== undefined && refs.includes(req.tsig.key.ref));
}

/** One message of a transfer, and whether it is the last. */
interface Made {
  message: Uint8Array;
  last: boolean;
}

/**
 * Packs `records` into messages of at most `room` octets, one per call,
 * as many records as fit (whole records; TC never set): the question in
 * the first only (RFC 5936 §2.2.1). Undefined after the last.
 */
function messageMaker(
  records: Iterator<RRSet>,
  header: {
    id: number;
    opcode: number;
    question: { name: string; type: number; class: number } | undefined;
  },
  room: number,
): () => Made | undefined {
  /** Records taken from `records` and not yet sent. */
  let carry: RRSet[] = [];
  let exhausted = false;
  let first = true;
  let done = false;

  function take(batch: RRSet[], limit: number): void {
    while (!exhausted && batch.length < limit) {
      const record = records.next();
      if (record.done) exhausted = true;
      else batch.push(record.value);
    }
  }

  return () => {
    if (done) return undefined;
    const batch = carry;
    take(batch, RECORDS_PER_TRY);
    const message = encodeResponse({
      id: header.id,
      opcode: header.opcode,
      rcode: RCODE.NOERROR,
      aa: true,
      ...(first && header.question && { question: header.question }),
      answer: batch,
    }, room);
    first = false;
    const written = message[6]! << 8 | message[7]!;
    if (written === 0) {
      throw new RangeError(
        `a record of ${batch[0]!.name} does not fit in a transfer message`,
      );
    }
    message[2]! &= ~0x02; // TC: what did not fit goes in the next message
    carry = batch.slice(written);
    take(carry, 1); // whether this message is the last
    done = carry.length === 0;
    return { message, last: done };
  };
}

/**
 * A zone's AXFR messages, encoded once per snapshot's content and kept for
 * every transfer of it (a secondary's first pull after a NOTIFY, and any
 * other): made one at a time as transfers ask for them, so encoding never
 * holds the listener up for the whole zone. About 25 octets a record.
 * The first message carries the question as AXFR in lowercase; a transfer
 * copies the client's question over it (same length: the same name).
 */
class EncodedZone {
  readonly messages: Made[] = [];
  readonly #make: () => Made | undefined;

  constructor(zone: IndexedZone) {
    this.#make = messageMaker(
      zoneRecords(zone.soa!, zone.content.rrsets),
      {
        id: 0,
        opcode: 0,
        question: { name: zone.name, type: TYPE.AXFR, class: CLASS.IN },
      },
      TRANSFER_MESSAGE_OCTETS,
    );
  }

  /** Message `i`, made now if need be; undefined past the last. */
  get(i: number): Made | undefined {
    while (this.messages.length <= i) {
      if (this.messages.at(-1)?.last) return undefined;
      const made = this.#make();
      if (made === undefined) return undefined;
      this.messages.push(made);
    }
    return this.messages[i];
  }
}

const encodedZones = new WeakMap<ZoneContent, EncodedZone>();

/** Messages made between two yields to other work. */
const MESSAGES_PER_TURN = 8;

/**
 * Encodes the AXFR messages of every zone of `index` that someone may
 * transfer, a few messages at a time with other work (queries) between,
 * so the first transfer of a new serial copies instead of encoding (a
 * zone of 100,000 records takes ~0.3 s to encode). Zones whose content is
 * unchanged keep what they had.
 */
export async function prepareTransfers(index: ZoneIndex): Promise<void> {
  for (const zone of index.zones.values()) {
    if (
      zone.kind !== "primary" || zone.soa === undefined ||
      zone.content.unavailable !== undefined ||
      (zone.content.access?.zoneTransfer ?? "deny") === "deny"
    ) continue;
    const encoded = encodedZone(zone);
    for (let i = 0; encoded.get(i) !== undefined; i++) {
      if (i % MESSAGES_PER_TURN === MESSAGES_PER_TURN - 1) {
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    }
  }
}

function encodedZone(zone: IndexedZone): EncodedZone {
  let encoded = encodedZones.get(zone.content);
  if (encoded === undefined) {
    encoded = new EncodedZone(zone);
    encodedZones.set(zone.content, encoded);
  }
  return encoded;
}

/**
 * The whole zone as this request's answer: the kept messages, each copied
 * with the request's ID, the first with its question; signed when the
 * query was (RFC 8945 §5.3.1).
 */
function axfrStream(req: Request, zone: IndexedZone): AnswerStream {
  const encoded = encodedZone(zone);
  const signer = signerFor(req);
  const question = req.bytes.subarray(12, req.query.questionEnd);
  let i = 0;
  return {
    async next() {
      const made = encoded.get(i);
      if (made === undefined) return undefined;
      const message = made.message.slice();
      message[0] = req.query.id >>> 8;
      message[1] = req.query.id & 0xff;
      if (i === 0) message.set(question, 12);
      i++;
      return signer === undefined
        ? message
        : await signer.sign(message, made.last);
    },
  };
}

/** An IXFR's differences as this request's answer (not kept: small). */
function ixfrStream(req: Request, records: Iterator<RRSet>): AnswerStream {
  const signer = signerFor(req);
  const make = messageMaker(records, {
    id: req.query.id,
    opcode: req.query.opcode,
    question: req.query.question,
  }, TRANSFER_MESSAGE_OCTETS);
  return {
    async next() {
      const made = make();
      if (made === undefined) return undefined;
      return signer === undefined
        ? made.message
        : await signer.sign(made.message, made.last);
    },
  };
}

function signerFor(req: Request): TsigStreamSigner | undefined {
  return req.tsig === undefined ? undefined : new TsigStreamSigner(
    req.tsig.key,
    { now: Math.floor(Date.now() / 1000), requestMac: req.tsig.mac },
  );
}

/**
 * An IXFR's records (RFC 1995 §4): the current SOA, then per difference
 * the old SOA, the records removed, the new SOA, the records added; the
 * current SOA again.
 */
function* diffRecords(soa: RRSet, diffs: ZoneDiff[]): Generator<RRSet> {
  yield soa;
  for (const diff of diffs) {
    yield diff.fromSoa;
    yield* singles(diff.removed);
    yield diff.toSoa;
    yield* singles(diff.added);
  }
  yield soa;
}

function* singles(rrsets: RRSet[]): Generator<RRSet> {
  for (const rrset of rrsets) {
    for (const rdata of rrset.rdata) yield { ...rrset, rdata: [rdata] };
  }
}

/** Each record of the zone as an RRset of one record: SOA, the rest, SOA. */
function* zoneRecords(soa: RRSet, rrsets: RRSet[]): Generator<RRSet> {
  yield soa;
  for (const rrset of rrsets) {
    if (rrset === soa || (rrset.type === TYPE.SOA && rrset.name === soa.name)) {
      continue;
    }
    for (const rdata of rrset.rdata) yield { ...rrset, rdata: [rdata] };
  }
  yield soa;
}
