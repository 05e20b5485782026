/**
 * The lookup structure every DNS worker builds from a snapshot: zones by
 * name (longest-suffix match by walking a name's suffixes), and per zone a
 * Map from lowercase owner name to node, with empty non-terminals and zone
 * cuts marked. Building is linear in the number of RRsets.
 */
import { splitLabels } from "../dns/name.ts";
import { TYPE } from "./content_apex.ts";
import type { RRSet, SoaRdata } from "../dns/rrset.ts";
import type { ForwardZone, ZoneContent } from "./types.ts";

/** One owner name of a primary zone. */
export interface ZoneNode {
  /** Lowercase FQDN. */
  name: string;
  /** The node's RRsets in zone-file order: SOA first, then by type code. Empty for an empty non-terminal. */
  rrsets: RRSet[];
  byType: Map<number, RRSet>;
  /** NS below the apex: a delegation point (zone cut). */
  cut: boolean;
}

/** A primary zone, indexed. */
export interface IndexedZone {
  kind: "primary";
  /** Lowercase FQDN. */
  name: string;
  content: ZoneContent;
  nodes: Map<string, ZoneNode>;
  apex: ZoneNode;
  /** The apex SOA as served in answers (its own TTL). */
  soa: RRSet | undefined;
  /** The SOA for negative answers: TTL = min(SOA TTL, SOA minimum) (RFC 2308 §5). */
  negativeSoa: RRSet | undefined;
  /** The apex NS RRset, for the authority section of positive answers. */
  ns: RRSet | undefined;
}

/** A forward zone, indexed. */
export interface IndexedForwardZone {
  kind: "forward";
  name: string;
  zone: ForwardZone;
}

/** What {@linkcode buildZoneIndex} returns; read-only once built. */
export interface ZoneIndex {
  zones: Map<string, IndexedZone | IndexedForwardZone>;
}

/**
 * A lowercase FQDN and its ancestors, longest first, ending with `.`.
 * Names are written as `readName` writes them, where a star label is `\*`
 * except as the leftmost label: so the ancestor `\*.mid.` of `a.\*.mid.`
 * comes out as the wildcard `*.mid.` a lookup asks for (RFC 4592 §2.2.1).
 */
export function nameSuffixes(name: string): string[] {
  const labels = splitLabels(name);
  const out: string[] = [];
  let rest = ".";
  for (let i = labels.length - 1; i >= 0; i--) {
    const label = labels[i]!;
    const head = label === "\\*" ? "*" : label;
    out.push(rest === "." ? `${head}.` : `${head}.${rest}`);
    rest = rest === "." ? `${label}.` : `${label}.${rest}`;
  }
  out.reverse();
  out.push(".");
  return out;
}

/**
 * The owner of the wildcard directly below `name` (a node name), spelled as
 * the index spells names: a `*` label that stops being leftmost is `\*`,
 * so the wildcard below the wildcard `*.a.` is `*.\*.a.` (RFC 4592 §3.3.1).
 */
export function wildcardBelow(name: string): string {
  if (name === ".") return "*.";
  return name.startsWith("*.") ? `*.\\${name}` : `*.${name}`;
}

/** ASCII-lowercases and adds the trailing dot, like normalizeName but cheaper on the hot path. */
export function lowerFqdn(name: string): string {
  const lower = name.toLowerCase() === name
    ? name
    : name.replace(/[A-Z]+/g, (c) => c.toLowerCase());
  return lower.endsWith(".") ? lower : `${lower}.`;
}

function newNode(name: string): ZoneNode {
  return { name, rrsets: [], byType: new Map(), cut: false };
}

function negativeSoaOf(soa: RRSet | undefined): RRSet | undefined {
  const rdata = soa?.rdata[0] as SoaRdata | undefined;
  if (soa === undefined || rdata === undefined) return undefined;
  return { ...soa, ttl: Math.min(soa.ttl, rdata.minimum) };
}

/** Indexes one primary zone; owners outside the zone are ignored. */
export function indexZone(content: ZoneContent): IndexedZone {
  const zoneName = lowerFqdn(content.name);
  const nodes = new Map<string, ZoneNode>();
  const apex = newNode(zoneName);
  nodes.set(zoneName, apex);
  for (const rrset of content.rrsets) {
    const owner = lowerFqdn(rrset.name);
    const suffixes = nameSuffixes(owner);
    const apexAt = suffixes.indexOf(zoneName);
    if (apexAt < 0) continue;
    let node = nodes.get(owner);
    if (node === undefined) {
      node = newNode(owner);
      nodes.set(owner, node);
      // Ancestors up to the apex exist as empty non-terminals unless they hold data.
      for (let i = 1; i < apexAt; i++) {
        const ancestor = suffixes[i]!;
        if (nodes.has(ancestor)) break;
        nodes.set(ancestor, newNode(ancestor));
      }
    }
    const named = rrset.name === owner ? rrset : { ...rrset, name: owner };
    node.byType.set(rrset.type, named);
    node.rrsets.push(named);
    if (rrset.type === TYPE.NS && node !== apex) node.cut = true;
  }
  for (const node of nodes.values()) {
    node.rrsets.sort((a, b) => zoneFileRank(a.type) - zoneFileRank(b.type));
  }
  const soa = apex.byType.get(TYPE.SOA);
  return {
    kind: "primary",
    name: zoneName,
    content,
    nodes,
    apex,
    soa,
    negativeSoa: negativeSoaOf(soa),
    ns: apex.byType.get(TYPE.NS),
  };
}

/** Zone files start with the SOA; everything else follows by type code. */
function zoneFileRank(type: number): number {
  return type === TYPE.SOA ? -1 : type;
}

/**
 * Each zone content's own index, kept while the content lives: a snapshot
 * that changes one zone, or only block lists or settings, re-indexes none
 * of the others. A worker keeps the content objects of zones that did not
 * change (src/listeners/snapshot_post.ts), so they are found here again;
 * re-indexing a zone of 100,000 records took 200-700 ms, with queries
 * waiting. Contents are never changed once built.
 */
const indexedContents = new WeakMap<ZoneContent, IndexedZone>();

function indexOnce(content: ZoneContent): IndexedZone {
  let zone = indexedContents.get(content);
  if (zone === undefined) {
    zone = indexZone(content);
    indexedContents.set(content, zone);
  }
  return zone;
}

/**
 * Builds the index. When a primary and a forward zone share a name the
 * primary wins; among duplicates the first wins.
 */
export function buildZoneIndex(
  zones: ZoneContent[],
  forwardZones: ForwardZone[],
): ZoneIndex {
  const index: ZoneIndex = { zones: new Map() };
  for (const content of zones) {
    const zone = indexOnce(content);
    const existing = index.zones.get(zone.name);
    if (existing === undefined || existing.kind === "forward") {
      index.zones.set(zone.name, zone);
    }
  }
  const linked = new Set<IndexedZone>();
  for (const zone of index.zones.values()) {
    if (zone.kind === "primary") linkIntoParent(index, zone, linked);
  }
  for (const zone of forwardZones) {
    const name = lowerFqdn(zone.name);
    if (!index.zones.has(name)) {
      index.zones.set(name, { kind: "forward", name, zone });
      linkIntoParent(index, { name }, linked);
    }
  }
  return index;
}

/**
 * Makes a locally served child zone's apex (and the names between it and
 * the parent apex) exist in the nearest local parent zone as empty
 * non-terminals, as NSD's shared name tree does: the parent answers NODATA,
 * not NXDOMAIN, for them (a DS query for the child apex included). Forward
 * zones too: an NXDOMAIN for `b.p.test` would tell a resolver (RFC 8020)
 * that the forwarded `a.b.p.test` does not exist either.
 *
 * The parent's own index is kept unchanged for the next snapshot (its
 * children may differ there): the first child linked into it in this index
 * gets the parent a copy of its nodes (`linked` holds the copies).
 */
function linkIntoParent(
  index: ZoneIndex,
  child: { name: string },
  linked: Set<IndexedZone>,
): void {
  const suffixes = nameSuffixes(child.name);
  for (let i = 1; i < suffixes.length; i++) {
    let parent = index.zones.get(suffixes[i]!);
    if (parent?.kind !== "primary") continue;
    if (!linked.has(parent)) {
      parent = { ...parent, nodes: new Map(parent.nodes) };
      index.zones.set(parent.name, parent);
      linked.add(parent);
    }
    for (let j = 0; j < i; j++) {
      if (parent.nodes.has(suffixes[j]!)) break;
      parent.nodes.set(suffixes[j]!, newNode(suffixes[j]!));
    }
    return;
  }
}

/** The zone with the longest name that is the name or an ancestor of it. */
export function findZone(
  index: ZoneIndex,
  suffixes: string[],
  from = 0,
): IndexedZone | IndexedForwardZone | undefined {
  for (let i = from; i < suffixes.length; i++) {
    const zone = index.zones.get(suffixes[i]!);
    if (zone !== undefined) return zone;
  }
  return undefined;
}
