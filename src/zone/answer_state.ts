/**
 * The state of one answer while lookup follows a chain through zones:
 * sections being filled and the RRsets already placed.
 */
import type { ZoneIndex } from "./index.ts";
import type { RRSet } from "../dns/rrset.ts";

/** See ZoneAnswer.kind in lookup.ts. */
export type ZoneAnswerKind =
  | "answer"
  | "nodata"
  | "nxdomain"
  | "referral"
  | "forward";

/** The answer being assembled while a chain is followed. */
export interface AnswerState {
  index: ZoneIndex;
  qtype: number;
  apexNsInAuthority: boolean;
  nameserverAddressesOnly: boolean;
  answer: RRSet[];
  authority: RRSet[];
  additionalA: RRSet[];
  additionalAAAA: RRSet[];
  /** owner|type of every RRset placed in any section (NSD adds an RRset once). */
  placed: Set<string>;
  rcode: number;
  aa: boolean;
  kind: ZoneAnswerKind;
  links: number;
  chainLeft: boolean;
  /** The delegation point of a referral (lowercase FQDN). */
  cut?: string;
}

/** Places an RRset unless it is already in the message; false when it was. */
export function place(
  state: AnswerState,
  section: RRSet[],
  rrset: RRSet,
): boolean {
  const key = `${rrset.name}|${rrset.type}`;
  if (state.placed.has(key)) return false;
  state.placed.add(key);
  section.push(rrset);
  return true;
}
