/**
 * EDNS Client Subnet (RFC 7871) for forwarded queries, per
 * `upstreams.ecs.mode`: strip (never send), forward (pass the client's
 * option on), add (the client's option, else one derived from the client's
 * address).
 */
import ipaddr from "ipaddr.js";
import type { Request } from "../../pipeline/request.ts";
import type { UpstreamsSettings } from "../../pipeline/settings.ts";
import { hexOf } from "../../dns/hex.ts";
import {
  clientSubnetProblem,
  queryClientSubnet,
} from "../../dns/wire/client_subnet.ts";
import { EDNS_OPTION } from "../../dns/wire/constants.ts";

/** The ECS option code (RFC 7871 §6). */
export const EDNS_CLIENT_SUBNET = EDNS_OPTION.CLIENT_SUBNET;

const FAMILY_IPV4 = 1;
const FAMILY_IPV6 = 2;

export type EcsSettings = UpstreamsSettings["ecs"];

/** What to send upstream: an option, nothing, or FORMERR for the client. */
export type ClientSubnetDecision =
  | { ok: true; option?: Uint8Array }
  | { ok: false; reason: string };

/**
 * The ECS option to send for `req`.
 *
 * - `strip`: none, whatever the client sent.
 * - A client's own option, in `forward` and `add` alike, is checked (RFC
 *   7871 §7.1.1: a bad one is FORMERR) and honoured: its FAMILY and ADDRESS
 *   at the shorter of its SOURCE PREFIX-LENGTH and ipv4Prefix/ipv6Prefix,
 *   masked (§7.1.1; §7.1.2: never more bits than the client gave). A /0 is
 *   an opt-out and stays /0 (§7.1.2).
 * - `forward`, no option from the client: none.
 * - `add`, no option from the client: the client's address truncated to
 *   ipv4Prefix/ipv6Prefix.
 *
 * `add` sends only globally routable unicast prefixes: loopback, private
 * (RFC 1918, ULA), link-local, CGNAT and documentation addresses tell an
 * authoritative server nothing about where the client is and leak the
 * inside of the network (RFC 7871 §11.1). A client without an option from
 * such an address gets none sent; a client whose own option names such a
 * subnet gets a /0 of its FAMILY sent, so its answer still comes back with
 * an option (§7.2.2) and is cached apart from answers to clients without
 * one.
 */
export function clientSubnetFor(
  req: Request,
  ecs: EcsSettings,
): ClientSubnetDecision {
  if (ecs.mode === "strip") return { ok: true };
  const sent = queryClientSubnet(req.query);
  if (sent !== undefined) {
    const problem = clientSubnetProblem(sent);
    if (problem !== undefined) return { ok: false, reason: problem };
    return { ok: true, option: subnetOfClientOption(sent, ecs) };
  }
  if (ecs.mode === "forward") return { ok: true };
  const option = subnetOfAddress(
    req.client.address,
    ecs.ipv4Prefix,
    ecs.ipv6Prefix,
  );
  return option === undefined ? { ok: true } : { ok: true, option };
}

/**
 * What to send for a client's well-formed option: cut to our maximum for
 * its family and masked; in `add`, a /0 instead of a prefix that is not
 * globally routable unicast.
 */
function subnetOfClientOption(
  option: Uint8Array,
  ecs: EcsSettings,
): Uint8Array {
  const family = (option[0]! << 8) | option[1]!;
  const max = family === FAMILY_IPV4 ? ecs.ipv4Prefix : ecs.ipv6Prefix;
  const prefix = Math.min(option[2]!, max);
  const address = [...option.subarray(4)];
  if (ecs.mode === "add" && prefix > 0 && !isGlobalUnicast(family, address)) {
    return encodeClientSubnet(family, 0, []);
  }
  return encodeClientSubnet(family, prefix, address);
}

/** True when the prefix `address` (its leading octets) is globally routable unicast. */
function isGlobalUnicast(family: number, address: readonly number[]): boolean {
  const octets = new Array<number>(family === FAMILY_IPV4 ? 4 : 16).fill(0);
  for (const [i, octet] of address.entries()) octets[i] = octet;
  return ipaddr.fromByteArray(octets).range() === "unicast";
}

/** The cache scope of a query whose ECS option is malformed: it never hits. */
export const MALFORMED_SUBNET_SCOPE = "malformed";

/**
 * What an answer to `req` depends on besides its question, under the
 * snapshot's `upstreams.ecs`: the ECS option that would be sent upstream,
 * as hex, for the cache key (RFC 7871 §7.3: an answer tailored to one
 * subnet must not reach clients of another). Undefined when none would be
 * sent (strip, or no option for this client), so those answers are shared
 * as before. Keying by the subnet sent rather than by the scope the
 * upstream returns never serves a wrong answer; it only shares less.
 */
export function clientSubnetCacheScope(req: Request): string | undefined {
  const ecs = req.snapshot?.settings?.upstreams?.ecs;
  if (ecs === undefined || ecs.mode === "strip") return undefined;
  const decision = clientSubnetFor(req, ecs);
  if (!decision.ok) return MALFORMED_SUBNET_SCOPE;
  if (decision.option === undefined) return undefined;
  return hexOf(decision.option);
}

/**
 * ECS option data for `address` truncated to its family's prefix length,
 * or undefined when the address is not globally routable unicast.
 */
export function subnetOfAddress(
  address: string,
  ipv4Prefix: number,
  ipv6Prefix: number,
): Uint8Array | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address);
  } catch {
    return undefined;
  }
  if (parsed.range() !== "unicast") return undefined;
  const v4 = parsed.kind() === "ipv4";
  return encodeClientSubnet(
    v4 ? FAMILY_IPV4 : FAMILY_IPV6,
    v4 ? ipv4Prefix : ipv6Prefix,
    parsed.toByteArray(),
  );
}

/** FAMILY, SOURCE PREFIX, SCOPE 0 and the address octets the prefix needs, masked. */
export function encodeClientSubnet(
  family: number,
  prefix: number,
  address: readonly number[],
): Uint8Array {
  const octets = Math.ceil(prefix / 8);
  const out = new Uint8Array(4 + octets);
  out[0] = family >> 8;
  out[1] = family & 0xff;
  out[2] = prefix;
  out[3] = 0;
  for (let i = 0; i < octets; i++) out[4 + i] = address[i] ?? 0;
  const spare = octets * 8 - prefix;
  if (octets > 0 && spare > 0) {
    out[3 + octets] = out[3 + octets]! & (0xff << spare) & 0xff;
  }
  return out;
}
