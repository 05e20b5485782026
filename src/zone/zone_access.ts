/**
 * Who may ask a zone's questions, or transfer it: a zone policy's access
 * mode (`policy.queryAccess`, `policy.zoneTransfer`; Technitium's six) with
 * its access list, compiled once per snapshot into a test of one client
 * address.
 *
 * - `deny`, `allow`: nobody, everybody.
 * - `allowOnlyPrivate`: addresses no one routes on the internet: RFC 1918
 *   (10/8, 172.16/12, 192.168/16), shared address space (100.64/10, RFC
 *   6598), loopback, link-local, and IPv6 unique local (fc00::/7).
 * - `allowOnlyZoneNameServers`: the addresses of the zone's own name
 *   servers (what the caller found for the zone's NS names).
 * - `useNetworkACL`: the access list, in order, the first entry that
 *   matches deciding; `!` before an entry refuses what it matches; no
 *   match refuses (BIND's address_match_list).
 * - `zoneNameServersAndACL`: the name servers, and whom the list allows.
 *
 * IPv4-mapped IPv6 clients (::ffff:192.0.2.1) count as the IPv4 address.
 */
import type { AccessMode } from "../api/v1alpha1/dnszone.ts";
import {
  maskV4,
  maskV6,
  type NumericAddress,
  type NumericPrefix,
  parseNumericAddress,
  parseNumericPrefix,
} from "../dns/numeric_address.ts";

/** Whether a client (its address as text) may. */
export type AccessTest = (client: string) => boolean;

const PRIVATE = [
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "::1/128",
  "fc00::/7",
  "fe80::/10",
].map((text) => parseNumericPrefix(text)!);

/**
 * The test of `mode` with `acl` (entries as the schema checks them:
 * addresses or CIDRs, `!` to refuse) and the zone's name server
 * addresses. An entry or address that does not parse matches nothing.
 */
export function compileAccess(
  mode: AccessMode,
  acl: readonly string[] = [],
  nameServers: readonly string[] = [],
): AccessTest {
  switch (mode) {
    case "deny":
      return () => false;
    case "allow":
      return () => true;
    case "allowOnlyPrivate":
      return (client) => inAny(client, PRIVATE);
    case "allowOnlyZoneNameServers":
      return nameServerTest(nameServers);
    case "useNetworkACL":
      return aclTest(acl);
    case "zoneNameServersAndACL": {
      const servers = nameServerTest(nameServers);
      const list = aclTest(acl);
      return (client) => servers(client) || list(client);
    }
  }
}

/** First match wins; `!` refuses; no match refuses. */
function aclTest(acl: readonly string[]): AccessTest {
  const entries = acl.flatMap((text) => {
    const refuse = text.startsWith("!");
    const prefix = parseNumericPrefix(refuse ? text.slice(1) : text);
    return prefix === undefined ? [] : [{ prefix, refuse }];
  });
  return (client) => {
    const address = parseNumericAddress(client);
    if (address === undefined) return false;
    for (const { prefix, refuse } of entries) {
      if (covers(prefix, address)) return !refuse;
    }
    return false;
  };
}

function nameServerTest(nameServers: readonly string[]): AccessTest {
  const prefixes = nameServers.flatMap((text) => {
    const address = parseNumericAddress(text);
    return address === undefined
      ? []
      : [{ ...address, length: address.v4 ? 32 : 128 } as NumericPrefix];
  });
  return (client) => inAny(client, prefixes);
}

function inAny(client: string, prefixes: readonly NumericPrefix[]): boolean {
  const address = parseNumericAddress(client);
  return address !== undefined && prefixes.some((p) => covers(p, address));
}

function covers(prefix: NumericPrefix, address: NumericAddress): boolean {
  if (prefix.v4 !== address.v4) return false;
  return prefix.v4
    ? maskV4(address.value as number, prefix.length) === prefix.value
    : maskV6(address.value as bigint, prefix.length) === prefix.value;
}
