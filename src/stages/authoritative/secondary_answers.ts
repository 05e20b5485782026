/**
 * What the authoritative stage answers for secondary zones besides their
 * data: NOTIFY from their primaries (RFC 1996), and SERVFAIL while a zone
 * has no copy to serve (before its first transfer, or past its expire).
 */
import { EDNS_OPTION, OPCODE, RCODE } from "../../dns/wire/constants.ts";
import { EDE, extendedError } from "../../dns/wire/extended_error.ts";
import { OUR_UDP_PAYLOAD_SIZE } from "../../pipeline/answer_encoding.ts";
import type { Request } from "../../pipeline/request.ts";
import { answer, type Response } from "../../pipeline/response.ts";
import {
  findZone,
  type IndexedZone,
  nameSuffixes,
  type ZoneIndex,
} from "../../zone/index.ts";

/**
 * The answer to a NOTIFY: NOERROR with AA (§4.7) when it names a
 * secondary zone and comes from one of its primaries, which are then told
 * (`onNotify`); REFUSED from anyone else or for any other zone, so a
 * stranger cannot make us transfer.
 */
export function notifyAnswer(
  index: ZoneIndex,
  req: Request,
  onNotify: ((zone: string, from: string) => void) | undefined,
): Response {
  const zone = index.zones.get(req.qname);
  const from = unmapped(req.client.address);
  if (
    zone?.kind !== "primary" || zone.content.primaries === undefined ||
    !zone.content.primaries.includes(from)
  ) {
    return answer(req, "authoritative", "refused", RCODE.REFUSED);
  }
  req.zone = zone.name;
  if (!req.explain) onNotify?.(zone.name, from);
  const res = answer(req, "authoritative", "authoritative", RCODE.NOERROR, {
    aa: true,
  });
  res.message!.opcode = OPCODE.NOTIFY;
  res.cacheable = false;
  return res;
}

/** ::ffff:192.0.2.1 as 192.0.2.1, as primaries are written. */
function unmapped(address: string): string {
  return address.startsWith("::ffff:") && address.includes(".")
    ? address.slice(7)
    : address;
}

/** The zones of a snapshot that are not answered. */
export class UnavailableZones {
  readonly #index: ZoneIndex;

  private constructor(index: ZoneIndex) {
    this.#index = index;
  }

  /** Undefined when every zone is served. */
  static of(index: ZoneIndex): UnavailableZones | undefined {
    for (const zone of index.zones.values()) {
      if (zone.kind === "primary" && zone.content.unavailable !== undefined) {
        return new UnavailableZones(index);
      }
    }
    return undefined;
  }

  /**
   * SERVFAIL, with an Extended DNS Error saying why, when the zone that
   * holds the name is not answered: a resolver then tries another server
   * rather than cache a denial (RFC 1035 §4.3.5 on an expired zone).
   */
  answer(req: Request): Response | undefined {
    const zone = findZone(this.#index, nameSuffixes(req.qname));
    if (zone?.kind !== "primary") return undefined;
    const why = (zone as IndexedZone).content.unavailable;
    if (why === undefined) return undefined;
    req.zone = zone.name;
    const res = answer(req, "authoritative", "servfail", RCODE.SERVFAIL);
    if (req.query.edns !== undefined) {
      res.message!.edns = {
        udpSize: OUR_UDP_PAYLOAD_SIZE,
        options: [{
          code: EDNS_OPTION.EDE,
          data: extendedError(EDE.OTHER, `zone ${zone.name} is ${why}`),
        }],
      };
    }
    res.cacheable = false;
    return res;
  }
}
