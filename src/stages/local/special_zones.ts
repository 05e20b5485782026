/**
 * The records the local stage synthesises for the special-use zones
 * (dns/special_use_zones.ts holds which zones those are).
 */
import { TYPE } from "../../dns/wire/constants.ts";
import { ZERO_NIBBLES } from "../../dns/special_use_zones.ts";
import type { RRSet } from "../../dns/rrset.ts";

/**
 * Names with a PTR of their own inside an empty zone: the loopback
 * addresses point back to localhost, as Unbound answers them.
 */
export const LOOPBACK_PTR: ReadonlyMap<string, string> = new Map([
  ["1.0.0.127.in-addr.arpa.", "localhost."],
  [`1.${ZERO_NIBBLES}.ip6.arpa.`, "localhost."],
]);

/** TTL of every synthesised record and of negative answers (RFC 6303 §3). */
export const SPECIAL_TTL = 10800;

/** `<zone> 10800 IN SOA <zone> . 0 28800 7200 604800 10800` (RFC 6303 §3). */
export function specialSoa(zone: string): RRSet {
  return {
    name: zone,
    type: TYPE.SOA,
    ttl: SPECIAL_TTL,
    rdata: [{
      type: "SOA",
      mname: zone,
      rname: ".",
      serial: 0,
      refresh: 28800,
      retry: 7200,
      expire: 604800,
      minimum: SPECIAL_TTL,
    }],
  };
}

/** `<zone> 10800 IN NS <zone>` (RFC 6303 §3). */
export function specialNs(zone: string): RRSet {
  return {
    name: zone,
    type: TYPE.NS,
    ttl: SPECIAL_TTL,
    rdata: [{ type: "NS", target: zone }],
  };
}
