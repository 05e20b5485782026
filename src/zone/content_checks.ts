/**
 * What a zone build tells the owners of its record sets: problems (an
 * endpoint that is left out of the zone, or kept but never answered) and
 * warnings (an endpoint served, but not as it was written). The checks here
 * run over the assembled RRsets, after every endpoint has been placed,
 * because they depend on what other endpoints declared.
 */
import { TYPE } from "./content_apex.ts";
import { typeName } from "./format.ts";
import { nameSuffixes } from "./index.ts";
import type { RRSet } from "../dns/rrset.ts";

/**
 * Why an endpoint of a DNSRecordSet is not served: left out of the zone
 * (`Duplicated`, `OutsideZone`, `CNAMEConflict`, `Invalid`), or kept in it
 * but never answered, because a DNAME or a zone cut above or beside it
 * decides every query that would reach it (`Occluded`).
 */
export type RecordSetProblemReason =
  | "Duplicated"
  | "OutsideZone"
  | "CNAMEConflict"
  | "Invalid"
  | "Occluded";

/**
 * Why an endpoint is served other than as written: `TTLMismatch`, its TTL
 * differs from another record of its RRset and the lowest is served.
 */
export type RecordSetWarningReason = "TTLMismatch";

/** A DNSRecordSet, by namespace and name. */
export interface RecordSetRef {
  namespace: string;
  name: string;
}

/** What a build found about one endpoint, for the record set's status conditions. */
export interface RecordSetFinding<Reason extends string> {
  recordSet: RecordSetRef;
  reason: Reason;
  message: string;
  /** Index into spec.endpoints. */
  endpoint: number;
}

/** One endpoint of a DNSRecordSet that is not served (see {@linkcode RecordSetProblemReason}). */
export type RecordSetProblem = RecordSetFinding<RecordSetProblemReason>;

/** One endpoint served, but not as written; the record set is still served. */
export type RecordSetWarning = RecordSetFinding<RecordSetWarningReason>;

/** An assembled RRset and the endpoints that declared it. */
export interface DeclaredRRSet {
  rrset: RRSet;
  /** The DNSRecordSet that declared it; undefined for the DNSZone's own SOA and NS. */
  recordSet: RecordSetRef | undefined;
  /** Each endpoint that went into the RRset, with the TTL it asked for. */
  endpoints: { index: number; ttl: number }[];
}

/** "namespace/name", as messages name a record set. */
export function formatRecordSetRef(ref: RecordSetRef): string {
  return `${ref.namespace}/${ref.name}`;
}

/**
 * RFC 2181 §5.2: the records of an RRset share one TTL, and an RRset whose
 * TTLs differ is to be treated as if all had the lowest. The assembly serves
 * the lowest; this warns each endpoint that asked for another one.
 */
export function ttlMismatches(declared: DeclaredRRSet[]): RecordSetWarning[] {
  const warnings: RecordSetWarning[] = [];
  for (const { rrset, recordSet, endpoints } of declared) {
    if (recordSet === undefined) continue;
    const lowest = endpoints.find((e) => e.ttl === rrset.ttl);
    if (lowest === undefined) continue;
    for (const { index, ttl } of endpoints) {
      if (ttl === rrset.ttl) continue;
      warnings.push({
        recordSet,
        reason: "TTLMismatch",
        endpoint: index,
        message: `${rrset.name} ${
          typeName(rrset.type)
        }: TTL ${ttl} differs from TTL ${rrset.ttl} at endpoints[${lowest.index}]; the records of an RRset share one TTL, so all are served with the lowest, ${rrset.ttl} (RFC 2181 §5.2)`,
      });
    }
  }
  return warnings;
}

/**
 * RRsets that no query reaches (RFC 6672 §2.3), found the way lookup.ts
 * walks down from the apex, where the first zone cut or DNAME decides:
 * data below a DNAME (queries for it follow the DNAME), and a DNAME beside
 * an NS below the apex (the NS makes the name a zone cut, and the DNAME
 * belongs at the child's apex). Data below a zone cut is glue or occluded
 * by design, and left alone. The records stay in the zone, as they are
 * served today; their record sets are told that they are never answered.
 */
export function occludedRRSets(
  owners: ReadonlyMap<string, ReadonlyMap<number, DeclaredRRSet>>,
  zoneName: string,
): RecordSetProblem[] {
  // Most zones have no DNAME: nothing to walk.
  if (![...owners.values()].some((types) => types.has(TYPE.DNAME))) return [];
  const problems: RecordSetProblem[] = [];
  for (const [owner, types] of owners) {
    if (owner === zoneName) continue;
    const above = decidingAncestor(owners, owner, zoneName);
    if (above?.kind === "dname") {
      const why = `is below the DNAME at ${above.owner}${
        declaredBy(above.rrset)
      } and is never answered: queries for it follow the DNAME (RFC 6672 §2.3)`;
      for (const declared of types.values()) {
        problems.push(...occluded(declared, why));
      }
    } else if (above === undefined && types.has(TYPE.NS)) {
      const dname = types.get(TYPE.DNAME);
      if (dname === undefined) continue;
      const why = `is beside the NS${
        declaredBy(types.get(TYPE.NS)!)
      } and is never answered: below the apex an NS makes ${owner} a zone cut, so the DNAME belongs at the apex of the child zone (RFC 6672 §2.3)`;
      problems.push(...occluded(dname, why));
    }
  }
  return problems;
}

/** The first zone cut or DNAME strictly above `owner`, walking down from the apex. */
function decidingAncestor(
  owners: ReadonlyMap<string, ReadonlyMap<number, DeclaredRRSet>>,
  owner: string,
  zoneName: string,
):
  | { kind: "cut" | "dname"; owner: string; rrset: DeclaredRRSet }
  | undefined {
  // nameSuffixes spells ancestors as the index keys owners (`*` leftmost).
  const suffixes = nameSuffixes(owner);
  const apexAt = suffixes.indexOf(zoneName);
  for (let i = apexAt; i >= 1; i--) {
    const name = suffixes[i]!;
    const types = owners.get(name);
    if (types === undefined) continue;
    const ns = types.get(TYPE.NS);
    if (name !== zoneName && ns !== undefined) {
      return { kind: "cut", owner: name, rrset: ns };
    }
    const dname = types.get(TYPE.DNAME);
    if (dname !== undefined) {
      return { kind: "dname", owner: name, rrset: dname };
    }
  }
  return undefined;
}

function declaredBy(declared: DeclaredRRSet): string {
  return declared.recordSet === undefined
    ? ""
    : ` (DNSRecordSet ${formatRecordSetRef(declared.recordSet)})`;
}

function occluded(declared: DeclaredRRSet, why: string): RecordSetProblem[] {
  const { rrset, recordSet, endpoints } = declared;
  if (recordSet === undefined) return [];
  return endpoints.map(({ index }) => ({
    recordSet,
    reason: "Occluded",
    endpoint: index,
    message: `${rrset.name} ${typeName(rrset.type)} ${why}`,
  }));
}
