/**
 * Authoritative zone data: building a zone's content from DNSZone and
 * DNSRecordSet objects, indexing zones for the data plane, and answering
 * lookups the way NSD does. See README.md.
 */
export {
  buildZoneContent,
  forwardZoneOf,
  type RecordSetProblem,
  type RecordSetProblemReason,
  type RecordSetWarning,
  type RecordSetWarningReason,
  withSerial,
  type ZoneBuild,
} from "./content.ts";
export {
  buildZoneIndex,
  findZone,
  type IndexedForwardZone,
  type IndexedZone,
  nameSuffixes,
  type ZoneIndex,
  type ZoneNode,
} from "./index.ts";
export {
  lookup,
  type LookupOptions,
  MAX_CHAIN_LINKS,
  RCODE,
  type ZoneAnswer,
} from "./lookup.ts";
export type { ZoneAnswerKind } from "./answer_state.ts";
export { formatRdata, formatRRSet, typeName } from "./format.ts";
export { compareNames } from "./canonical_order.ts";
export type {
  ForwardZone,
  RecordData,
  RRSet,
  SoaRdata,
  ZoneContent,
} from "./types.ts";
