/**
 * The special-use zones the local stage answers without asking anyone, and
 * the records it synthesises for them.
 */
import { TYPE } from "../../dns/wire/mod.ts";
import type { RRSet } from "../../zone/types.ts";

/** How a special zone answers names below its apex. */
export type SpecialZoneKind =
  /** RFC 6761 §6.3: every name answers A 127.0.0.1 and AAAA ::1. */
  | "loopback"
  /** Nothing exists below the apex: NXDOMAIN. */
  | "empty";

const ZERO_NIBBLES = Array(31).fill("0").join(".");

/**
 * The zones and their kinds. RFC 6761 (localhost, invalid), RFC 7686
 * (onion), the RFC 6303 locally-served reverse zones and the RFC 7793
 * shared-address-space ones (both in the IANA "Locally-Served DNS Zones"
 * registry), all lowercase.
 */
export const SPECIAL_ZONES: ReadonlyMap<string, SpecialZoneKind> = new Map(
  [
    ["localhost.", "loopback"],
    ["invalid.", "empty"],
    ["onion.", "empty"],
    ...[
      "10.in-addr.arpa.",
      ...range(16, 31).map((n) => `${n}.172.in-addr.arpa.`),
      "168.192.in-addr.arpa.",
      "0.in-addr.arpa.",
      "127.in-addr.arpa.",
      "254.169.in-addr.arpa.",
      "2.0.192.in-addr.arpa.",
      "100.51.198.in-addr.arpa.",
      "113.0.203.in-addr.arpa.",
      "255.255.255.255.in-addr.arpa.",
      ...range(64, 127).map((n) => `${n}.100.in-addr.arpa.`),
      `0.${ZERO_NIBBLES}.ip6.arpa.`, // ::/128
      `1.${ZERO_NIBBLES}.ip6.arpa.`, // ::1/128
      "d.f.ip6.arpa.", // fd00::/8 (ULA)
      "8.e.f.ip6.arpa.", // fe80::/10 (link-local)
      "9.e.f.ip6.arpa.",
      "a.e.f.ip6.arpa.",
      "b.e.f.ip6.arpa.",
      "8.b.d.0.1.0.0.2.ip6.arpa.", // 2001:db8::/32 (documentation)
    ].map((zone) => [zone, "empty"] as const),
  ] as const,
);

/** The top-level labels of the special zones: every name inside one ends so. */
const SPECIAL_ENDINGS: readonly string[] = [
  ...new Set(
    [...SPECIAL_ZONES.keys()].map((zone) =>
      zone.slice(zone.lastIndexOf(".", zone.length - 2) + 1)
    ),
  ),
];

/**
 * Names with a PTR of their own inside an empty zone: the loopback
 * addresses point back to localhost, as Unbound answers them.
 */
export const LOOPBACK_PTR: ReadonlyMap<string, string> = new Map([
  ["1.0.0.127.in-addr.arpa.", "localhost."],
  [`1.${ZERO_NIBBLES}.ip6.arpa.`, "localhost."],
]);

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

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

/**
 * The special zone `name` (lowercase) falls in, if any, with the longest
 * match first. Walks the parents of `name` on unescaped dots.
 */
export function findSpecialZone(name: string): string | undefined {
  // Almost every query is for an ordinary name: reject it on its ending
  // before walking its parents (which makes a string per label).
  if (!SPECIAL_ENDINGS.some((ending) => name.endsWith(ending))) {
    return undefined;
  }
  for (const suffix of selfAndParents(name)) {
    if (SPECIAL_ZONES.has(suffix)) return suffix;
  }
  return undefined;
}

/** `a.b.c.` → `a.b.c.`, `b.c.`, `c.`, `.`; escaped dots do not split. */
export function* selfAndParents(name: string): Generator<string> {
  if (name === ".") {
    yield ".";
    return;
  }
  let start = 0;
  for (let i = 0; i < name.length; i++) {
    if (name[i] === "\\") {
      i++;
    } else if (name[i] === ".") {
      yield name.slice(start);
      start = i + 1;
    }
  }
  yield ".";
}
