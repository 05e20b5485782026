/**
 * The special-use zones a DNS server answers itself without asking anyone
 * (RFC 6761, RFC 7686, RFC 6303, RFC 7793): which names they hold. The local
 * stage synthesises their answers; the upstream stage never takes an
 * upstream's word for a name in them; the query log can leave them out.
 */

/** How a special zone answers names below its apex. */
export type SpecialZoneKind =
  /** RFC 6761 §6.3: every name answers A 127.0.0.1 and AAAA ::1. */
  | "loopback"
  /** Nothing exists below the apex: NXDOMAIN. */
  | "empty";

/** The 31 zero nibbles between an IPv6 reverse name's last label and `ip6.arpa.`. */
export const ZERO_NIBBLES = Array(31).fill("0").join(".");

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

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
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
