/**
 * One zone's complete content, and a forward zone, as the data plane
 * serves them (their RRsets: src/dns/rrset.ts). These are
 * plain data so a Snapshot can be posted to workers by structured clone.
 */
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
}

/** A zone whose names are forwarded to an upstream group (DNSZone type forward). */
export interface ForwardZone {
  name: string;
  objectName: string;
  upstreamGroup: string;
}
