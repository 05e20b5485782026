/**
 * Extended DNS Errors (RFC 8914): the EDNS option that tells a client why
 * an answer is what it is (blocked, filtered, upstream unreachable).
 */

/** INFO-CODEs we send (RFC 8914 §4). */
export const EDE = {
  /**
   * 0: other; the EXTRA-TEXT says what (we send it when an upstream group
   * has too many queries waiting: RFC 8914 has no code for overload).
   */
  OTHER: 0,
  /** 3: served stale from the cache (RFC 8767) because the upstreams failed. */
  STALE_ANSWER: 3,
  /** 15: blocked by the operator's policy (a block list). */
  BLOCKED: 15,
  /** 17: filtered because the client's policy asked for it (allow-only). */
  FILTERED: 17,
  /** 18: the server's policy does not let this client ask (query access). */
  PROHIBITED: 18,
  /** 22: no upstream answered in time. */
  NO_REACHABLE_AUTHORITY: 22,
  /** 23: the upstreams failed. */
  NETWORK_ERROR: 23,
} as const;

/** The names RFC 8914 §5.2 gives INFO-CODEs 0 to 24, then IANA's later ones. */
const NAMES = [
  "Other Error",
  "Unsupported DNSKEY Algorithm",
  "Unsupported DS Digest Type",
  "Stale Answer",
  "Forged Answer",
  "DNSSEC Indeterminate",
  "DNSSEC Bogus",
  "Signature Expired",
  "Signature Not Yet Valid",
  "DNSKEY Missing",
  "RRSIGs Missing",
  "No Zone Key Bit Set",
  "NSEC Missing",
  "Cached Error",
  "Not Ready",
  "Blocked",
  "Censored",
  "Filtered",
  "Prohibited",
  "Stale NXDOMAIN Answer",
  "Not Authoritative",
  "Not Supported",
  "No Reachable Authority",
  "Network Error",
  "Invalid Data",
  "Signature Expired before Valid",
  "Too Early",
  "Unsupported NSEC3 Iterations Value",
  "Unable to conform to policy",
  "Synthesized",
  "Invalid Query Type",
];

/** The RFC 8914 name of an INFO-CODE ("Blocked"), or "INFO-CODE <n>" for others. */
export function extendedErrorName(infoCode: number): string {
  return NAMES[infoCode] ?? `INFO-CODE ${infoCode}`;
}

const encoder = new TextEncoder();

/** EDE option data: INFO-CODE and EXTRA-TEXT (RFC 8914 §2). */
export function extendedError(infoCode: number, text: string): Uint8Array {
  const extra = encoder.encode(text);
  const data = new Uint8Array(2 + extra.length);
  data[0] = infoCode >> 8;
  data[1] = infoCode & 0xff;
  data.set(extra, 2);
  return data;
}
