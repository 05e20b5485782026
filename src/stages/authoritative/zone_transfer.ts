/**
 * Zone transfers out (AXFR, RFC 5936; IXFR, RFC 1995): who may transfer a
 * zone, and the answer of many messages that carries it over TCP.
 *
 * - The question must name the apex of a primary zone served here, else
 *   NOTAUTH (as NSD and Knot answer).
 * - The zone's `zoneTransfer` mode and `transferACL` must admit the client
 *   (zone_access.ts); when `transferTSIGKeyRefs` names keys, the query must
 *   also be signed with one of them. Else REFUSED, as BIND and Knot answer.
 * - IXFR is answered with the whole zone in AXFR form, which RFC 1995 §4
 *   allows a server that does not keep the differences.
 * - The zone is sent from the snapshot the query arrived on, whatever
 *   serial lands while it is sent: the SOA that opens the answer closes it.
 */
import { RCODE, TYPE } from "../../dns/wire/constants.ts";
import { encodeResponse } from "../../dns/wire/response.ts";
import { TsigStreamSigner } from "../../dns/tsig/tsig.ts";
import type { RRSet } from "../../dns/rrset.ts";
import type { AnswerStream } from "../../pipeline/handler.ts";
import type { Request } from "../../pipeline/request.ts";
import { answer, type Response } from "../../pipeline/response.ts";
import type { IndexedZone, ZoneIndex } from "../../zone/index.ts";
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

/** The answer to an AXFR or IXFR query. */
export function zoneTransfer(index: ZoneIndex, req: Request): Response {
  const zone = index.zones.get(req.qname);
  if (zone?.kind !== "primary" || zone.soa === undefined) {
    return answer(req, "authoritative", "notauth", RCODE.NOTAUTH);
  }
  req.zone = zone.name;
  if (!mayTransfer(index, zone, req) || req.client.streams === undefined) {
    return answer(req, "authoritative", "refused", RCODE.REFUSED);
  }
  return {
    stream: transferStream(req, zone),
    status: "authoritative",
    stage: "authoritative",
    cacheable: false,
  };
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

/**
 * The zone's records as messages: the SOA, every other record in the
 * order the zone holds them (canonical), the SOA again (RFC 5936 §2.2);
 * the question in the first message only (§2.2.1); each message signed
 * when the query was (RFC 8945 §5.3.1).
 */
function transferStream(req: Request, zone: IndexedZone): AnswerStream {
  const soa = zone.soa!;
  const rrsets = zone.content.rrsets;
  const signer = req.tsig === undefined ? undefined : new TsigStreamSigner(
    req.tsig.key,
    { now: Math.floor(Date.now() / 1000), requestMac: req.tsig.mac },
  );
  const room = TRANSFER_MESSAGE_OCTETS -
    (req.query.tsig === undefined
      ? 0
      : req.query.tsig.end - req.query.tsig.start);
  const records = zoneRecords(soa, rrsets);
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

  return {
    async next() {
      if (done) return undefined;
      const batch = carry;
      take(batch, RECORDS_PER_TRY);
      const message = encodeResponse({
        id: req.query.id,
        opcode: req.query.opcode,
        rcode: RCODE.NOERROR,
        aa: true,
        ...(first && req.query.question && { question: req.query.question }),
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
      return signer === undefined ? message : await signer.sign(message, done);
    },
  };
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
