/**
 * The local stage (docs/design.md#stage-order): special-use names answered here
 * and never forwarded: localhost (RFC 6761 §6.3), invalid (RFC 6761 §6.4),
 * onion (RFC 7686) and the locally-served reverse zones (RFC 6303, RFC 7793). A
 * configured zone at or below a special zone covering the name wins: the query
 * passes on to authoritative (or upstream, for a forward zone or an
 * `upstreams.conditional` entry such as "10.in-addr.arpa.": internal-ad).
 */
import { RCODE, TYPE } from "../../dns/wire/constants.ts";
import type { Request } from "../../pipeline/request.ts";
import {
  answer,
  type AnswerSections,
  type Response,
} from "../../pipeline/response.ts";
import type { Snapshot } from "../../pipeline/snapshot.ts";
import type { Next, Stage } from "../../pipeline/stage.ts";
import { normalizeDomain } from "../../pipeline/settings.ts";
import type { RRSet } from "../../dns/rrset.ts";
import {
  findSpecialZone,
  selfAndParents,
  SPECIAL_ZONES,
} from "../../dns/special_use_zones.ts";
import {
  LOOPBACK_PTR,
  SPECIAL_TTL,
  specialNs,
  specialSoa,
} from "./special_zones.ts";

/** Creates the local stage. */
export function createLocalStage(): Stage {
  const configuredBySnapshot = new WeakMap<Snapshot, Set<string>>();

  function configuredZones(snapshot: Snapshot): Set<string> {
    let names = configuredBySnapshot.get(snapshot);
    if (names === undefined) {
      const conditional = Object.keys(
        snapshot.settings?.upstreams.conditional ?? {},
      );
      names = new Set([
        ...[...snapshot.zones, ...snapshot.forwardZones].map((z) =>
          z.name.toLowerCase()
        ),
        // Spelled as the upstream stage routes them, or a ".10.in-addr.arpa"
        // entry would route there but be answered NXDOMAIN here first.
        ...conditional.map(normalizeDomain),
      ]);
      configuredBySnapshot.set(snapshot, names);
    }
    return names;
  }

  return {
    name: "local",
    serve(req: Request, next: Next) {
      const zone = findSpecialZone(req.qname);
      if (zone === undefined) return next(req);
      // Before the first snapshot we cannot know whether a configured zone
      // covers the name, and NXDOMAIN for a name we may serve is worse than
      // SERVFAIL: pass on (authoritative answers SERVFAIL without a snapshot).
      if (req.snapshot === undefined) return next(req);
      if (
        coveredByConfiguredZone(req.qname, zone, configuredZones(req.snapshot))
      ) {
        return next(req);
      }
      return specialAnswer(req, zone);
    },
  };
}

/** True when a configured zone covers `name` and sits at or below `special`. */
function coveredByConfiguredZone(
  name: string,
  special: string,
  configured: Set<string>,
): boolean {
  for (const suffix of selfAndParents(name)) {
    if (configured.has(suffix)) return true;
    if (suffix === special) return false; // anything above loses to the special zone
  }
  return false;
}

function specialAnswer(req: Request, zone: string): Response {
  const qtype = req.query.question!.type;
  const owner = req.query.question!.name;
  if (req.qname === zone && (qtype === TYPE.SOA || qtype === TYPE.NS)) {
    const rrset = qtype === TYPE.SOA ? specialSoa(zone) : specialNs(zone);
    return localAnswer(req, RCODE.NOERROR, {
      answer: [{ ...rrset, name: owner }],
    });
  }
  const records = SPECIAL_ZONES.get(zone) === "loopback"
    ? loopbackRecords(owner, qtype)
    : ptrRecords(req.qname, owner, qtype);
  if (records !== undefined) {
    return localAnswer(req, RCODE.NOERROR, { answer: records });
  }
  const exists = req.qname === zone || SPECIAL_ZONES.get(zone) === "loopback" ||
    LOOPBACK_PTR.has(req.qname);
  // Negative answers carry the SOA so resolvers can cache them (RFC 2308).
  return localAnswer(req, exists ? RCODE.NOERROR : RCODE.NXDOMAIN, {
    authority: [specialSoa(zone)],
  });
}

/** RFC 6761 §6.3: loopback addresses for address queries, NODATA otherwise. */
function loopbackRecords(owner: string, qtype: number): RRSet[] | undefined {
  const a: RRSet = {
    name: owner,
    type: TYPE.A,
    ttl: SPECIAL_TTL,
    rdata: [{ type: "A", address: "127.0.0.1" }],
  };
  const aaaa: RRSet = {
    name: owner,
    type: TYPE.AAAA,
    ttl: SPECIAL_TTL,
    rdata: [{ type: "AAAA", address: "::1" }],
  };
  if (qtype === TYPE.A) return [a];
  if (qtype === TYPE.AAAA) return [aaaa];
  if (qtype === TYPE.ANY) return [a, aaaa];
  return undefined;
}

function ptrRecords(
  name: string,
  owner: string,
  qtype: number,
): RRSet[] | undefined {
  const target = LOOPBACK_PTR.get(name);
  if (target === undefined || (qtype !== TYPE.PTR && qtype !== TYPE.ANY)) {
    return undefined;
  }
  return [{
    name: owner,
    type: TYPE.PTR,
    ttl: SPECIAL_TTL,
    rdata: [{ type: "PTR", target }],
  }];
}

function localAnswer(
  req: Request,
  rcode: number,
  sections: AnswerSections,
): Response {
  return {
    ...answer(req, "local", "local_record", rcode, { aa: true, ...sections }),
    cacheable: false,
  };
}
