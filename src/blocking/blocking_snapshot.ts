/**
 * The blocking part of a Snapshot: compiled lists, ClientGroups and
 * Policies as plain data, the server's blocking settings and the temporary
 * disable. The identify stage turns it into a PolicyDecision per client; the
 * blocking stage applies the decision.
 */
import type { CompiledListData } from "./types.ts";
import type { BlockMode } from "../api/v1alpha1/blocklist.ts";
import type { Client } from "../api/v1alpha1/clientgroup.ts";
import type { Schedule } from "../api/v1alpha1/policy.ts";

export type { BlockMode };

/** How blocked names are answered. */
export interface BlockResponse {
  mode: BlockMode;
  /** Addresses for customIP (IPv4 for A, IPv6 for AAAA). */
  customIPs: string[];
  /** TTL of blocked answers, in seconds. */
  ttl: number;
}

/** A ClientGroup as the identify stage reads it. */
export interface ClientGroupData {
  /** "namespace/name". */
  key: string;
  clients: Client[];
}

/** A Policy as the identify stage reads it; refs resolved to keys. */
export interface PolicyData {
  /** "namespace/name". */
  key: string;
  priority: number;
  /** ClientGroup keys; a policy without groups applies to nobody. */
  groups: string[];
  /** BlockList keys of mode block (missing lists are left out, with a warning). */
  blockLists: string[];
  /** BlockList keys whose rules allow (allowListRefs, and lists of mode allow). */
  allowLists: string[];
  allowOnly: boolean;
  schedule?: Schedule;
  upstreamGroup?: string;
  blockMode?: BlockMode;
  customIPs?: string[];
  /** Seconds. */
  blockTTL?: number;
  queryLog?: boolean;
}

export interface BlockingSnapshot {
  /** `blocking.enabled` from the configuration. */
  enabled: boolean;
  /**
   * Epoch milliseconds until which blocking is switched off (`kudurru
   * blocking disable 5m`); absent or past means on.
   */
  disabledUntil?: number;
  /** The server's answer for blocked names (`blocking.defaultResponse`, `blockTTL`). */
  response: BlockResponse;
  /** Every compiled BlockList, keyed by `CompiledListData.key`. */
  lists: CompiledListData[];
  groups: ClientGroupData[];
  policies: PolicyData[];
}

/**
 * What applies to one client's query at this moment: the union of its
 * groups' active policies (docs/blocking.md). Lists are the union over those
 * policies (allow wins across groups); every other setting comes from the
 * highest-priority active policy that sets it. Shared and immutable: the
 * identify stage memoises decisions per client.
 */
export interface PolicyDecision {
  /** The active policies that applied, highest priority first ("namespace/name"). */
  policies: string[];
  blockLists: string[];
  allowLists: string[];
  allowOnly: boolean;
  response: BlockResponse;
  upstreamGroup?: string;
  /** False when a policy turned the query log off for this client. */
  queryLog: boolean;
}
