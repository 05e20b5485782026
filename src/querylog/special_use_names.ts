/**
 * The special-use names `querylog.exclude.sudn` keeps out of the log: noise
 * that never leaves the machine or the LAN and says nothing about what
 * people browse. The set, decided here:
 *
 * - every zone the local stage answers itself: localhost., invalid., onion.
 *   (RFC 6761, RFC 7686) and the RFC 6303 / RFC 7793 reverse zones of
 *   private, loopback, link-local, ULA and documentation ranges (the PTR
 *   probes every OS sends for LAN addresses);
 * - local. (mDNS, RFC 6762), home.arpa. (RFC 8375), internal. (ICANN's
 *   private-use TLD, and kudurru's own health.kudurru.internal.), alt.
 *   (RFC 9476), resolver.arpa. (DDR, RFC 9462) and ipv4only.arpa.
 *   (NAT64 discovery, RFC 7050).
 *
 * Not test. nor example.: labs serve real zones under them, and those
 * queries are what people want to see.
 */
import { SPECIAL_ZONES } from "../dns/special_use_zones.ts";

/** Suffixes (lowercase, fully qualified) of the names excluded by sudn. */
export const SPECIAL_USE_SUFFIXES: readonly string[] = [
  ...SPECIAL_ZONES.keys(),
  "local.",
  "home.arpa.",
  "internal.",
  "alt.",
  "resolver.arpa.",
  "ipv4only.arpa.",
];
