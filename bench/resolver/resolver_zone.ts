/**
 * The cache-hit benchmark's zone: `bench.test.` with one A record (TTL 3600,
 * so nothing expires during a run) on each of ~1,000 names, served by NSD
 * behind every resolver, and the dnsperf query file that asks each name once.
 */

/** The zone NSD is authoritative for. */
export const RESOLVER_ZONE = "bench.test.";

/** How many A names the zone holds unless told otherwise. */
export const RESOLVER_NAMES = 1_000;

/** TTL of every record: far longer than any run, so every timed query is a hit. */
export const RESOLVER_TTL = 3600;

/** The i-th name, fully qualified: `h0.bench.test.`, `h1.bench.test.`, … */
export function resolverName(i: number): string {
  return `h${i}.${RESOLVER_ZONE}`;
}

/** The i-th name's address, in the RFC 2544 benchmarking range 198.18.0.0/15. */
export function resolverAddress(i: number): string {
  return `198.${18 + ((i >> 16) & 1)}.${(i >> 8) & 255}.${i & 255}`;
}

/** The address the wildcard `*.miss` answers every cache-miss name with. */
export const MISS_ADDRESS = "198.19.255.254";

/** The i-th cache-miss name, under the wildcard: `m0.miss.bench.test.`, … */
export function missName(i: number): string {
  return `m${i}.miss.${RESOLVER_ZONE}`;
}

/**
 * The zone file NSD loads: SOA, NS, `names` A records, and a wildcard
 * `*.miss` so any number of distinct names (the cache-miss run) get an A.
 */
export function resolverZoneText(names = RESOLVER_NAMES): string {
  const lines = [
    `$ORIGIN ${RESOLVER_ZONE}`,
    `$TTL ${RESOLVER_TTL}`,
    "@    IN SOA ns1 hostmaster 1 3600 900 1209600 300",
    "@    IN NS  ns1",
    "ns1  IN A   192.0.2.53",
    `*.miss IN A ${MISS_ADDRESS}`,
  ];
  for (let i = 0; i < names; i++) {
    lines.push(`h${i} IN A ${resolverAddress(i)}`);
  }
  return lines.join("\n") + "\n";
}

/** dnsperf input: each name once, A, in zone order. */
export function resolverQueryFile(names = RESOLVER_NAMES): string {
  const lines: string[] = [];
  for (let i = 0; i < names; i++) lines.push(`${resolverName(i)} A`);
  return lines.join("\n") + "\n";
}

/** dnsperf input for the cache-miss run: `count` distinct names under `*.miss`. */
export function missQueryFile(count: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push(`${missName(i)} A`);
  return lines.join("\n") + "\n";
}
