/**
 * NSD's additional-section processing and its RFC 8482 choice for ANY,
 * measured against NSD 4.6.1 (see README.md).
 */
import { TYPE } from "./content_apex.ts";
import {
  type IndexedZone,
  lowerFqdn,
  nameSuffixes,
  wildcardBelow,
  type ZoneNode,
} from "./index.ts";
import { type AnswerState, place } from "./answer_state.ts";
import type { RRSet } from "../dns/rrset.ts";

/** Types NSD prefers for ANY: small and popular. */
const ANY_PREFERRED = new Set<number>([
  TYPE.A,
  TYPE.AAAA,
  TYPE.SOA,
  TYPE.MX,
  TYPE.PTR,
]);
/** Types NSD picks for ANY only when nothing else is there. */
const ANY_LAST_RESORT = new Set<number>([
  TYPE.DNSKEY,
  TYPE.RRSIG,
  TYPE.NSEC,
  TYPE.NSEC3,
  TYPE.NSEC3PARAM,
]);

/**
 * The one RRset NSD returns for ANY: the first preferred type in zone-file
 * order, else the last other type, else the last DNSSEC type.
 */
export function pickAnyRRSet(node: ZoneNode): RRSet {
  let normal: RRSet | undefined;
  let lastResort: RRSet | undefined;
  for (const rrset of node.rrsets) {
    if (ANY_PREFERRED.has(rrset.type)) return rrset;
    if (ANY_LAST_RESORT.has(rrset.type)) lastResort = rrset;
    else normal = rrset;
  }
  return normal ?? lastResort ?? node.rrsets[0]!;
}

/** The names whose addresses an RRset asks for, and whether glue may answer. */
function additionalTargets(
  rrset: RRSet,
): { names: string[]; allowGlue: boolean } | undefined {
  switch (rrset.type) {
    case TYPE.NS:
      return {
        names: rrset.rdata.flatMap((r) => r.type === "NS" ? [r.target] : []),
        allowGlue: true,
      };
    case TYPE.MX:
      return {
        names: rrset.rdata.flatMap((r) => r.type === "MX" ? [r.exchange] : []),
        allowGlue: false,
      };
    case TYPE.SRV:
      return {
        names: rrset.rdata.flatMap((r) => r.type === "SRV" ? [r.target] : []),
        allowGlue: false,
      };
    case TYPE.SVCB:
    case TYPE.HTTPS:
      // RFC 9460 §4.1: the TargetName's addresses belong in the additional
      // section (Knot adds them; NSD does not). A "." target (the owner
      // itself) adds nothing, as in Knot.
      return {
        names: rrset.rdata.flatMap((r) =>
          r.type === "SVCB" || r.type === "HTTPS" ? [r.target] : []
        ),
        allowGlue: false,
      };
  }
  return undefined;
}

/**
 * The node holding a target's addresses inside one zone, a matching wildcard
 * included; undefined outside the zone, and for names at or below a zone
 * cut unless glue is allowed.
 */
function addressNode(
  zone: IndexedZone,
  target: string,
  allowGlue: boolean,
): ZoneNode | undefined {
  const suffixes = nameSuffixes(target);
  const apexAt = suffixes.indexOf(zone.name);
  if (apexAt < 0) return undefined;
  let encloser = zone.apex;
  for (let i = apexAt - 1; i >= 0; i--) {
    const node = zone.nodes.get(suffixes[i]!);
    if (node === undefined) break;
    if (node.cut && !allowGlue) return undefined;
    encloser = node;
  }
  if (encloser.name === target) return encloser;
  return zone.nodes.get(wildcardBelow(encloser.name));
}

/**
 * Adds A and AAAA of in-zone NS, MX, SRV, SVCB and HTTPS targets (NSD: data from the same
 * zone only; MX and SRV never use glue below a cut). With
 * nameserverAddressesOnly (NSD's minimal-responses) only NS targets count.
 */
export function addAdditional(
  state: AnswerState,
  zone: IndexedZone,
  rrset: RRSet,
): void {
  if (state.nameserverAddressesOnly && rrset.type !== TYPE.NS) return;
  const targets = additionalTargets(rrset);
  if (targets === undefined) return;
  for (const raw of targets.names) {
    const target = lowerFqdn(raw);
    if (target === ".") continue;
    const node = addressNode(zone, target, targets.allowGlue);
    if (node === undefined) continue;
    const a = node.byType.get(TYPE.A);
    const aaaa = node.byType.get(TYPE.AAAA);
    if (a !== undefined) {
      place(state, state.additionalA, { ...a, name: target });
    }
    if (aaaa !== undefined) {
      place(state, state.additionalAAAA, { ...aaaa, name: target });
    }
  }
}
