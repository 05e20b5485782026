/**
 * The record model the data plane serves: RRsets with structured rdata
 * (src/dns/rdata.ts) plus SOA, and one zone's complete content. These are
 * plain data so a Snapshot can be posted to workers by structured clone.
 */
import type { Rdata } from "../dns/rdata.ts";

/** Start of authority (RFC 1035 §3.3.13); built from DNSZone.spec.soa and status.serial. */
export interface SoaRdata {
  type: "SOA";
  mname: string;
  rname: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
}

/** Record data of anything the server can put in an answer. */
export type RecordData = Rdata | SoaRdata;

/**
 * One RRset. `name` is the owner as a fully qualified presentation name in
 * lowercase (escapes kept); `type` is the numeric RR type.
 */
export interface RRSet {
  name: string;
  type: number;
  ttl: number;
  rdata: RecordData[];
  /** @default 1 (IN); 3 (CH) for the CHAOS answers of the ingress stage. */
  class?: number;
}

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
