/**
 * Authoritative lookup (RFC 1034 §4.3.2) the way NSD 4.6 answers: zone
 * cuts, DNAME (RFC 6672), exact match, wildcards (RFC 4592), CNAME chains
 * across local primary zones, NODATA and NXDOMAIN with the negative SOA
 * (RFC 2308 §5), and NSD's additional-section and ANY rules. See README.md
 * for where NSD and Knot differ and which one we follow.
 */
import {
  isSubdomainOf,
  MAX_NAME_OCTETS,
  nameWireOctets,
  splitLabels,
} from "../dns/name.ts";
import { TYPE } from "./content_apex.ts";
import {
  findZone,
  type IndexedZone,
  lowerFqdn,
  nameSuffixes,
  wildcardBelow,
  type ZoneIndex,
  type ZoneNode,
} from "./index.ts";
import {
  type AnswerState,
  place,
  type ZoneAnswerKind,
} from "./answer_state.ts";
import { addAdditional, pickAnyRRSet } from "./lookup_additional.ts";
import type { RRSet } from "../dns/rrset.ts";

/** Most CNAME and DNAME records one answer chains through (a loop guard). */
export const MAX_CHAIN_LINKS = 20;

/** Response codes the lookup produces. */
export const RCODE = { NOERROR: 0, NXDOMAIN: 3, YXDOMAIN: 6 } as const;

/** What the authoritative stage puts on the wire. */
export interface ZoneAnswer {
  /**
   * The outcome of the last name looked up: "answer" (data, a CNAME chain
   * that leaves local zones, or a loop), "nodata", "nxdomain", "referral"
   * (a zone cut; after a CNAME the answer section is not empty), "forward".
   */
  kind: ZoneAnswerKind;
  rcode: number;
  aa: boolean;
  answer: RRSet[];
  authority: RRSet[];
  additional: RRSet[];
  /** The zone that matched the query name (lowercase FQDN). */
  zone: string;
  /** Set when kind is forward. */
  upstreamGroup?: string;
  /** A CNAME/DNAME chain ended at a name no local primary zone holds. */
  chainLeftLocalZones?: boolean;
  /**
   * A referral: how many leading additional RRsets are in-domain glue,
   * which must all fit or the answer sets TC (RFC 9471 §3).
   */
  requiredAdditional?: number;
}

/**
 * Options for {@linkcode lookup}. The defaults are kudurru's answers: Knot's
 * minimal authority section with the additional data of both NSD and Knot.
 */
export interface LookupOptions {
  /**
   * Put the zone's apex NS in the authority section of positive answers, as
   * NSD does by default. Knot and modern BIND leave it out: it makes every
   * answer bigger and resolvers do not need it.
   * @default false
   */
  apexNsInAuthority?: boolean;
  /**
   * Which additional-section addresses to add: "targets" (A/AAAA of in-zone
   * NS, MX and SRV targets, NSD's and Knot's default) or "nameservers" (NS
   * targets only, NSD's `minimal-responses: yes`).
   * @default "targets"
   */
  additional?: "targets" | "nameservers";
}

function withOwner(rrset: RRSet, owner: string): RRSet {
  return rrset.name === owner ? rrset : { ...rrset, name: owner };
}

function negative(state: AnswerState, zone: IndexedZone, rcode: number): void {
  state.rcode = rcode;
  state.kind = rcode === RCODE.NXDOMAIN ? "nxdomain" : "nodata";
  if (zone.negativeSoa !== undefined) {
    place(state, state.authority, zone.negativeSoa);
  }
}

function referral(state: AnswerState, zone: IndexedZone, cut: ZoneNode): void {
  const ns = cut.byType.get(TYPE.NS)!;
  place(state, state.authority, ns);
  addAdditional(state, zone, ns);
  // NSD: a referral reached through a CNAME keeps AA from the first answer.
  if (state.links === 0) state.aa = false;
  state.kind = "referral";
  state.cut = cut.name;
}

/** Follows a CNAME or DNAME target into whichever local zone holds it. */
function follow(state: AnswerState, target: string): void {
  state.links++;
  // The record that brought us here is the MAX_CHAIN_LINKS-th: answer with the chain so far.
  if (state.links >= MAX_CHAIN_LINKS) return;
  const name = lowerFqdn(target);
  const suffixes = nameSuffixes(name);
  const zone = zoneForQuery(state.index, suffixes, state.qtype);
  if (zone === undefined || zone.kind === "forward") {
    state.chainLeft = true;
    return;
  }
  resolve(state, zone, name, suffixes);
}

function answerNode(
  state: AnswerState,
  zone: IndexedZone,
  node: ZoneNode,
  owner: string,
): void {
  if (node.rrsets.length === 0) return negative(state, zone, RCODE.NOERROR);
  state.kind = "answer";
  state.rcode = RCODE.NOERROR;
  if (state.qtype === TYPE.ANY) {
    // RFC 8482 §4.1: one RRset, chosen as NSD chooses it; no NS in authority.
    const rrset = withOwner(pickAnyRRSet(node), owner);
    place(state, state.answer, rrset);
    addAdditional(state, zone, rrset);
    return;
  }
  const direct = node.byType.get(state.qtype);
  if (direct !== undefined) {
    const rrset = withOwner(direct, owner);
    place(state, state.answer, rrset);
    addAdditional(state, zone, rrset);
    addApexNs(state, zone);
    return;
  }
  const cname = node.byType.get(TYPE.CNAME);
  if (cname === undefined) return negative(state, zone, RCODE.NOERROR);
  // A CNAME already in the answer means a loop: stop with what we have.
  if (!place(state, state.answer, withOwner(cname, owner))) return;
  const target = cname.rdata[0];
  if (target?.type === "CNAME") follow(state, target.target);
}

/** NSD puts the apex NS in the authority section of positive answers, except for DS and DNSKEY. */
function addApexNs(state: AnswerState, zone: IndexedZone): void {
  if (!state.apexNsInAuthority || zone.ns === undefined) return;
  if (state.qtype === TYPE.DS || state.qtype === TYPE.DNSKEY) return;
  if (place(state, state.authority, zone.ns)) {
    addAdditional(state, zone, zone.ns);
  }
}

/** RFC 6672 §2.2: substitute the DNAME owner suffix, answer DNAME + synthesised CNAME, go on. */
function followDname(
  state: AnswerState,
  node: ZoneNode,
  name: string,
): void {
  const dname = node.byType.get(TYPE.DNAME)!;
  state.kind = "answer";
  state.rcode = RCODE.NOERROR;
  if (!place(state, state.answer, dname)) return;
  const target = dname.rdata[0];
  if (target?.type !== "DNAME") return;
  const keep = splitLabels(name).length - splitLabels(node.name).length;
  const prefix = splitLabels(name).slice(0, keep).join(".");
  const newName = lowerFqdn(
    target.target === "." ? `${prefix}.` : `${prefix}.${target.target}`,
  );
  // RFC 6672 §2.2: YXDOMAIN only for a result too long; its labels are the
  // query's own (a "*" label is a name like any other here).
  const octets = nameWireOctets(newName);
  if (octets === undefined || octets > MAX_NAME_OCTETS) {
    state.rcode = RCODE.YXDOMAIN;
    return;
  }
  const synthesised: RRSet = {
    name,
    type: TYPE.CNAME,
    ttl: dname.ttl,
    rdata: [{ type: "CNAME", target: newName }],
  };
  place(state, state.answer, synthesised);
  // A CNAME query is answered by the CNAME itself (NSD and Knot stop here).
  if (state.qtype !== TYPE.CNAME) follow(state, newName);
}

/** Looks a name up inside one zone; `suffixes` are the name's suffixes, longest first. */
function resolve(
  state: AnswerState,
  zone: IndexedZone,
  name: string,
  suffixes: string[],
): void {
  const apexAt = suffixes.indexOf(zone.name);
  let encloser = zone.apex;
  // Walk down from the apex: the first cut or DNAME on the way decides.
  for (let i = apexAt; i >= 0; i--) {
    const node = i === apexAt ? zone.apex : zone.nodes.get(suffixes[i]!);
    if (node === undefined) break;
    encloser = node;
    const exact = i === 0;
    if (node.cut && !(exact && state.qtype === TYPE.DS)) {
      return referral(state, zone, node);
    }
    if (!exact && node.byType.has(TYPE.DNAME)) {
      return followDname(state, node, name);
    }
  }
  if (encloser.name === name) return answerNode(state, zone, encloser, name);
  const wildcard = zone.nodes.get(wildcardBelow(encloser.name));
  if (wildcard !== undefined) return answerNode(state, zone, wildcard, name);
  negative(state, zone, RCODE.NXDOMAIN);
}

/**
 * Longest-suffix zone match; a DS query for the apex of a zone whose parent
 * is also a local primary zone goes to the parent (RFC 4035 §3.1.4.1).
 */
function zoneForQuery(index: ZoneIndex, suffixes: string[], qtype: number) {
  const zone = findZone(index, suffixes);
  if (qtype !== TYPE.DS || zone === undefined || zone.name !== suffixes[0]) {
    return zone;
  }
  const parent = findZone(index, suffixes, 1);
  return parent?.kind === "primary" ? parent : zone;
}

/**
 * Answers a query from the index; undefined when no zone covers the name.
 * The query name is presentation text in any case; owners come back
 * lowercase (wildcard-synthesised owners are the lowercased query name).
 */
export function lookup(
  index: ZoneIndex,
  qname: string,
  qtype: number,
  options: LookupOptions = {},
): ZoneAnswer | undefined {
  const name = lowerFqdn(qname);
  const suffixes = nameSuffixes(name);
  const zone = zoneForQuery(index, suffixes, qtype);
  if (zone === undefined) return undefined;
  const base = { answer: [], authority: [], additional: [], zone: zone.name };
  if (zone.kind === "forward") {
    return {
      ...base,
      kind: "forward",
      rcode: RCODE.NOERROR,
      aa: false,
      upstreamGroup: zone.zone.upstreamGroup,
    };
  }
  const state: AnswerState = {
    index,
    qtype,
    apexNsInAuthority: options.apexNsInAuthority ?? false,
    nameserverAddressesOnly: options.additional === "nameservers",
    answer: [],
    authority: [],
    additionalA: [],
    additionalAAAA: [],
    placed: new Set(),
    rcode: RCODE.NOERROR,
    aa: true,
    kind: "answer",
    links: 0,
    chainLeft: false,
  };
  resolve(state, zone, name, suffixes);
  const result: ZoneAnswer = {
    kind: state.kind,
    rcode: state.rcode,
    aa: state.aa,
    answer: state.answer,
    authority: state.authority,
    // NSD writes A before AAAA so IPv4 addresses survive truncation.
    additional: [...state.additionalA, ...state.additionalAAAA],
    zone: zone.name,
  };
  if (state.kind === "referral" && state.cut !== undefined) {
    const glue = referralGlue(state, state.cut);
    result.additional = glue.additional;
    result.requiredAdditional = glue.required;
  }
  if (state.chainLeft) {
    result.chainLeftLocalZones = true;
    result.kind = "answer";
  }
  return result;
}

/**
 * A referral's glue, as Knot orders it: by name server, A then AAAA, the
 * in-domain ones (at or below the cut) first. Those are required: when they
 * do not all fit, the answer sets TC so the resolver asks again over TCP
 * (RFC 9471 §3); sibling glue after them is optional.
 */
function referralGlue(
  state: AnswerState,
  cut: string,
): { additional: RRSet[]; required: number } {
  const byName = new Map<string, RRSet[]>();
  for (const rrset of [...state.additionalA, ...state.additionalAAAA]) {
    const held = byName.get(rrset.name);
    if (held === undefined) byName.set(rrset.name, [rrset]);
    else held.push(rrset);
  }
  const inDomain: RRSet[] = [];
  const sibling: RRSet[] = [];
  for (const [name, rrsets] of byName) {
    // By labels: `x\.sub.zone.` ends with ".sub.zone." but is a sibling.
    const below = isSubdomainOf(name, cut);
    (below ? inDomain : sibling).push(...rrsets);
  }
  return { additional: [...inDomain, ...sibling], required: inDomain.length };
}
