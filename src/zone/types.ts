/**
 * One zone's complete content, and a forward zone, as the data plane
 * serves them (their RRsets: src/dns/rrset.ts). These are
 * plain data so a Snapshot can be posted to workers by structured clone.
 */
import type { AccessMode } from "../api/v1alpha1/dnszone.ts";
import type { RRSet } from "../dns/rrset.ts";

/** A primary zone's complete content, ready to index. */
export interface ZoneContent {
  /** Lowercase FQDN, e.g. "example.org." or "." */
  name: string;
  /** The DNSZone object's name, for logs and status. */
  objectName: string;
  serial: number;
  /** Every RRset in the zone, the apex SOA and NS included, sorted by name then type. */
  rrsets: RRSet[];
  /** Who may query and transfer it; absent: anyone may query, no one transfer. */
  access?: ZoneAccessPolicy;
  /** A secondary zone: the addresses of its primaries, whose NOTIFY it takes. */
  primaries?: string[];
  /**
   * Why the zone's names are answered SERVFAIL, never NXDOMAIN: a secondary
   * zone before its first transfer, or past its SOA expire.
   */
  unavailable?: string;
}

/**
 * The access half of a DNSZone's `spec.policy`, as data (compiled into tests
 * of a client address by zone_access.ts).
 */
export interface ZoneAccessPolicy {
  queryAccess: AccessMode;
  queryACL?: string[];
  zoneTransfer: AccessMode;
  transferACL?: string[];
  /** Names of the TSIG keys a transfer must be signed with (any of them). */
  transferTSIGKeyRefs?: string[];
  /** Whom a new serial is told (NOTIFY); absent: no one. */
  notify?: "zoneNameServers" | "specified" | "both";
  /** `address` or `address:port` entries, for `specified` and `both`. */
  notifyTargets?: string[];
}

/** A zone whose names are forwarded to an upstream group (DNSZone type forward). */
export interface ForwardZone {
  name: string;
  objectName: string;
  upstreamGroup: string;
  /** Who may query it; absent: anyone. */
  access?: ZoneAccessPolicy;
}
