/**
 * A zone's `policy.queryAccess` applied to the queries for its names: the
 * zone that holds a name (the longest match, primary or forward) decides
 * whether the client may ask. A snapshot where every zone lets anyone ask
 * has no QueryAccess at all, so the common case costs one comparison.
 *
 * The zone's name servers (for `allowOnlyZoneNameServers` and
 * `zoneNameServersAndACL`) are the addresses of its apex NS targets found
 * in the zones served here: glue, or the A/AAAA of a name in any local
 * zone. A name server whose address is held only elsewhere is not known.
 */
import { EDNS_OPTION, RCODE, TYPE } from "../../dns/wire/constants.ts";
import { EDE, extendedError } from "../../dns/wire/extended_error.ts";
import { OUR_UDP_PAYLOAD_SIZE } from "../../pipeline/answer_encoding.ts";
import type { Request } from "../../pipeline/request.ts";
import { answer, type Response } from "../../pipeline/response.ts";
import {
  findZone,
  type IndexedForwardZone,
  type IndexedZone,
  nameSuffixes,
  type ZoneIndex,
} from "../../zone/index.ts";
import { type AccessTest, compileAccess } from "../../zone/zone_access.ts";

/** Verdicts kept per zone, by client address, before the map is cleared. */
const MAX_VERDICTS = 4096;

interface CompiledZone {
  test: AccessTest;
  /** Client address → whether it may query. */
  verdicts: Map<string, boolean>;
}

/** The query access of one snapshot's zones. */
export class QueryAccess {
  readonly #index: ZoneIndex;
  readonly #compiled = new Map<string, CompiledZone | null>();

  private constructor(index: ZoneIndex) {
    this.#index = index;
  }

  /** The access of `index`'s zones; undefined when anyone may ask any. */
  static of(index: ZoneIndex): QueryAccess | undefined {
    for (const zone of index.zones.values()) {
      if (queryAccessOf(zone) !== "allow") return new QueryAccess(index);
    }
    return undefined;
  }

  /**
   * REFUSED with an Extended DNS Error 18 (Prohibited, RFC 8914 §4.19) when
   * the zone holding the query's name does not let its client ask, as BIND
   * and Technitium refuse (no AA, no records); undefined when it may.
   */
  refusal(req: Request): Response | undefined {
    const zone = findZone(this.#index, nameSuffixes(req.qname));
    if (zone === undefined) return undefined;
    const compiled = this.#compile(zone);
    if (compiled === null) return undefined;
    const address = req.client.address;
    let allowed = compiled.verdicts.get(address);
    if (allowed === undefined) {
      allowed = compiled.test(address);
      if (compiled.verdicts.size >= MAX_VERDICTS) compiled.verdicts.clear();
      compiled.verdicts.set(address, allowed);
    }
    if (allowed) return undefined;
    req.zone = zone.name;
    const res = answer(req, "authoritative", "refused", RCODE.REFUSED);
    if (req.query.edns !== undefined) {
      res.message!.edns = {
        udpSize: OUR_UDP_PAYLOAD_SIZE,
        options: [{
          code: EDNS_OPTION.EDE,
          data: extendedError(
            EDE.PROHIBITED,
            `queries for ${zone.name} are not allowed from this address`,
          ),
        }],
      };
    }
    res.cacheable = false;
    return res;
  }

  /** The zone's test, made on first use; null when anyone may ask. */
  #compile(zone: IndexedZone | IndexedForwardZone): CompiledZone | null {
    let compiled = this.#compiled.get(zone.name);
    if (compiled !== undefined) return compiled;
    const access = zone.kind === "primary"
      ? zone.content.access
      : zone.zone.access;
    compiled = access === undefined || access.queryAccess === "allow" ? null : {
      test: compileAccess(
        access.queryAccess,
        access.queryACL,
        zone.kind === "primary" ? nameServerAddresses(this.#index, zone) : [],
      ),
      verdicts: new Map(),
    };
    this.#compiled.set(zone.name, compiled);
    return compiled;
  }
}

function queryAccessOf(zone: IndexedZone | IndexedForwardZone) {
  const access = zone.kind === "primary"
    ? zone.content.access
    : zone.zone.access;
  return access?.queryAccess ?? "allow";
}

/** The addresses of `zone`'s apex NS targets held in the local zones. */
export function nameServerAddresses(
  index: ZoneIndex,
  zone: IndexedZone,
): string[] {
  const addresses: string[] = [];
  for (const ns of zone.ns?.rdata ?? []) {
    if (ns.type !== "NS") continue;
    const target = ns.target.toLowerCase();
    const holder = findZone(index, nameSuffixes(target));
    if (holder?.kind !== "primary") continue;
    const node = holder.nodes.get(target);
    for (const type of [TYPE.A, TYPE.AAAA]) {
      for (const rdata of node?.byType.get(type)?.rdata ?? []) {
        if (rdata.type === "A" || rdata.type === "AAAA") {
          addresses.push(rdata.address);
        }
      }
    }
  }
  return addresses;
}
