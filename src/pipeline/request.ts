/**
 * One query on its way through the chain: what arrived, from whom, the
 * snapshot it is answered from, and the fields stages fill for later ones.
 */
import type { EdnsOption, QueryInfo } from "../dns/wire/query.ts";
import type { ClientInfo } from "./handler.ts";
import type { Snapshot } from "./snapshot.ts";
import type { TsigKey } from "../dns/tsig/tsig.ts";
import type { PolicyDecision } from "../blocking/blocking_snapshot.ts";

/** Why a query could not be parsed; the ingress stage decides what to do. */
export type MalformedReason =
  /** Shorter than the 12-octet header: nothing to answer to. */
  | "no_header"
  /** A header, then garbage: FORMERR. */
  | "bad_message";

/** The node answering, for CHAOS, NSID and the health check. */
export interface NodeIdentity {
  name: string;
  version: string;
}

/** A query in flight. Stages may set the fields marked "filled by". */
export interface Request {
  /** The query as received (do not modify: memo hits copy from it). */
  readonly bytes: Uint8Array;
  /**
   * The parsed query. When `malformed` is set this holds the header only
   * (no question, no EDNS), or zeros when there was no header.
   */
  readonly query: QueryInfo;
  readonly malformed?: { reason: MalformedReason; message: string };
  readonly client: ClientInfo;
  /** `Date.now()` when the query arrived. */
  readonly received: number;
  /**
   * The snapshot in force when the query arrived, read once: a swap while
   * the query is in flight does not change what it is answered from.
   * Undefined before the first snapshot.
   */
  readonly snapshot: Snapshot | undefined;
  readonly node: NodeIdentity;
  /**
   * The server is stopping (lameduck): the health check fails so load
   * balancers move away; everything else is answered as usual.
   */
  readonly lameduck: boolean;
  /**
   * Asked to explain what would happen (the API's "why"), not to answer a
   * client: nothing is forwarded, counted or logged.
   */
  readonly explain: boolean;
  /** The question name in lowercase ("" without a question). */
  readonly qname: string;
  /**
   * The largest answer this client takes: 512 over UDP without EDNS,
   * the clamped EDNS payload size with it, 65535 over TCP.
   */
  readonly maxSize: number;
  /** Filled by identify: the ClientGroups this client belongs to ("namespace/name", or "default" without a snapshot). */
  groups: string[];
  /** Filled by identify: the policies that apply to this query, when the snapshot has blocking data. */
  policy?: PolicyDecision;
  /** Filled by authoritative: the zone that covers the name. */
  zone?: string;
  /**
   * Set by ingress when the query's TSIG checked out (RFC 8945 §5.2): the
   * key, and the query's MAC, which the answer's TSIG covers.
   */
  tsig?: { key: TsigKey & { ref: string }; mac: Uint8Array };
  /** Filled by authoritative (forward zones) or a Policy: who to ask. */
  upstreamGroup?: string;
  /**
   * EDNS options every answer carries (ingress adds NSID when asked). Only
   * sent when the query had an OPT record.
   */
  answerOptions: EdnsOption[];
  /**
   * Filled by the log stage: how long the chain took (ms), which the query
   * log reuses (a `performance.now()` is an op, ~0.1 µs). -1 until then.
   */
  elapsedMs: number;
}
