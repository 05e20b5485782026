/**
 * EDNS Client Subnet (RFC 7871): whether a client's option is well formed,
 * and which option a client may be given back. What to send upstream is
 * the upstream stage's business (src/stages/upstream/client_subnet.ts).
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
 * none. `answered` is the option sent upstream for this query with the
 * SCOPE the upstream answered for it (0 when it gave none). It is undefined
 * when none was sent (`upstreams.ecs` strip, or a client without an
 * option), and then the client gets none, as from a server without ECS
 * (RFC 7871 §7.2.1).
 *
 * A client that sent an option gets one back (§7.2.2: a forwarder needs it
 * for its own cache) with its own FAMILY, SOURCE PREFIX-LENGTH and ADDRESS,
 * or it would drop the whole answer (§7.3); only SCOPE is ours. The subnet
 * sent may be shorter than the client's (§7.1.1), so SCOPE is the
 * upstream's cut to the prefix sent: the answer was chosen for that prefix,
 * and that is how widely our own cache shares it.
 */
export function clientSubnetEcho(
  query: QueryInfo,
  answered: Uint8Array | undefined,
): Uint8Array | undefined {
  if (answered === undefined) return undefined;
  const asked = queryClientSubnet(query);
  if (asked === undefined || !coversClientSubnet(answered, asked)) {
    return undefined;
  }
  const echo = asked.slice();
  echo[3] = Math.min(answered[3]!, answered[2]!);
  return echo;
}

/**
 * True when `outer` names `inner`'s subnet or a shorter prefix of it: same
 * FAMILY, SOURCE PREFIX-LENGTH no longer, ADDRESS equal over it. What is
 * sent upstream for a client's option always covers it; anything else (an
 * entry from an older version, a bug) is no answer about that subnet.
 */
function coversClientSubnet(outer: Uint8Array, inner: Uint8Array): boolean {
  if (!isClientSubnet(outer) || !isClientSubnet(inner)) return false;
  if (outer[0] !== inner[0] || outer[1] !== inner[1]) return false;
  const prefix = outer[2]!;
  if (prefix > inner[2]!) return false;
  const whole = prefix >> 3;
  for (let i = 4; i < 4 + whole; i++) {
    if (outer[i] !== inner[i]) return false;
  }
  const spare = prefix & 7;
  if (spare === 0) return true;
  const mask = (0xff << (8 - spare)) & 0xff;
  return (outer[4 + whole]! & mask) === (inner[4 + whole]! & mask);
}

/** Why `data` is not a valid ECS option in a query, or undefined (RFC 7871 §6). */
export function clientSubnetProblem(data: Uint8Array): string | undefined {
  if (data.length < 4) return "client subnet option shorter than 4 octets";
  const family = (data[0]! << 8) | data[1]!;
  const prefix = data[2]!;
  const max = family === 1 ? 32 : family === 2 ? 128 : -1;
  if (max < 0) return `client subnet family ${family} is not 1 or 2`;
  if (prefix > max) return `client subnet prefix /${prefix} exceeds /${max}`;
  if (data[3] !== 0) return "client subnet scope is not 0 in a query";
  const octets = Math.ceil(prefix / 8);
  if (data.length !== 4 + octets) {
    return `client subnet address has ${
      data.length - 4
    } octets, /${prefix} needs ${octets}`;
  }
  const spare = octets * 8 - prefix;
  if (octets > 0 && (data[3 + octets]! & ((1 << spare) - 1)) !== 0) {
    return "client subnet address has bits set beyond its prefix";
  }
  return undefined;
}
