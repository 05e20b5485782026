/**
 * EDNS Client Subnet (RFC 7871) in answers: which option a client may be
 * given back. What to send upstream is the upstream stage's business
 * (src/stages/upstream/client_subnet.ts).
 */
import { EDNS_OPTION } from "./constants.ts";
import type { QueryInfo } from "./query.ts";

/** The ECS option data of `query`, if it carried one. */
export function queryClientSubnet(query: QueryInfo): Uint8Array | undefined {
  return query.edns?.options.find((o) => o.code === EDNS_OPTION.CLIENT_SUBNET)
    ?.data;
}

/**
 * True when `data` holds together as ECS option data in an answer: FAMILY
 * 1 (IPv4) or 2 (IPv6), SOURCE PREFIX-LENGTH within it, and ADDRESS as
 * many octets as that prefix needs (RFC 7871 §6). SCOPE may be anything.
 */
export function isClientSubnet(data: Uint8Array): boolean {
  if (data.length < 4) return false;
  const family = (data[0]! << 8) | data[1]!;
  const max = family === 1 ? 32 : family === 2 ? 128 : -1;
  const source = data[2]!;
  return max > 0 && source <= max && data.length === 4 + Math.ceil(source / 8);
}

/**
 * True when two ECS options name the same subnet: FAMILY, SOURCE
 * PREFIX-LENGTH and ADDRESS equal, SCOPE PREFIX-LENGTH aside (it is 0 in a
 * query and the server's choice in an answer).
 */
export function sameClientSubnet(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length || a.length < 4) return false;
  for (let i = 0; i < a.length; i++) {
    if (i !== 3 && a[i] !== b[i]) return false;
  }
  return true;
}

/**
 * The ECS option to give the client that sent `query`, or undefined for
 * none: `answered` (an upstream's option, its SCOPE as set there) when it
 * names the subnet the client itself sent. RFC 7871 §7.2.1: FAMILY, SOURCE
 * PREFIX-LENGTH and ADDRESS must be the query's, or the client drops the
 * whole answer (§7.3). An answer about another subnet (`upstreams.ecs`
 * `add` replaced the client's option) gets none, which tells the client
 * the same as SCOPE 0.
 */
export function clientSubnetEcho(
  query: QueryInfo,
  answered: Uint8Array | undefined,
): Uint8Array | undefined {
  if (answered === undefined) return undefined;
  const asked = queryClientSubnet(query);
  return asked !== undefined && sameClientSubnet(asked, answered)
    ? answered
    : undefined;
}
