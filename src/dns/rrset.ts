/**
 * Resource record sets as the data plane serves them: RRsets with
 * structured rdata (rdata.ts) plus SOA. Plain data, so a Snapshot can be
 * posted to workers by structured clone.
 */
import type { Rdata } from "./rdata.ts";

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
