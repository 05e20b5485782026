/**
 * `address=/<domain>[/<domain>…]/[<ipaddr>]` (dnsmasq(8)): an address for a
 * domain and every name below it, or, with no address, `#`, `0.0.0.0` or
 * `::`, a block. Addresses become an apex record and a wildcard (`d`,
 * `*.d`) in a primary zone for the domain; blocks become lines of an inline
 * domains source (`*.d` matches d and every name below it, docs/blocking.md),
 * answered NXDOMAIN (no address) or with null addresses, as dnsmasq does.
 */
import ipaddr from "ipaddr.js";
import { API_VERSION, type KObject } from "../api/v1alpha1/meta.ts";
import { checkDomainName } from "../dns/name.ts";
import { IMPORT_NAMESPACE } from "./dnsmasq_zones.ts";

/** What one `address=` line means. */
export type AddressLine =
  | { kind: "records"; domains: string[]; type: "A" | "AAAA"; address: string }
  | { kind: "block"; domains: string[]; response: "nxdomain" | "zeroIP" }
  | { kind: "invalid"; reason: string };

/** dnsmasq's null addresses: "#" is both (dnsmasq(8), --address). */
const NULL_ADDRESSES = new Set(["#", "0.0.0.0", "::"]);

/** Parses the value of an `address=` line. */
export function addressLine(raw: string): AddressLine {
  if (!raw.startsWith("/")) {
    return { kind: "invalid", reason: "does not start with /domain/" };
  }
  const parts = raw.split("/");
  const target = parts.pop()!.trim();
  const domains: string[] = [];
  for (const d of parts.slice(1)) {
    if (d === "#") {
      return {
        kind: "invalid",
        reason:
          "/#/ (every domain) has no counterpart: kudurru would answer every name on the Internet with it",
      };
    }
    if (d === "") {
      return {
        kind: "invalid",
        reason: "// (names without a dot) has no counterpart",
      };
    }
    if (d.includes("*")) {
      return {
        kind: "invalid",
        reason: `wildcard domain "${d}" has no counterpart`,
      };
    }
    const name = d.toLowerCase().replace(/^\./, "").replace(/\.$/, "");
    const problem = checkDomainName(name);
    if (problem !== null) {
      return { kind: "invalid", reason: `"${d}" is not a domain: ${problem}` };
    }
    domains.push(name);
  }
  if (domains.length === 0) {
    return { kind: "invalid", reason: "names no domain" };
  }
  if (target === "") return { kind: "block", domains, response: "nxdomain" };
  if (NULL_ADDRESSES.has(target)) {
    return { kind: "block", domains, response: "zeroIP" };
  }
  if (!ipaddr.isValid(target)) {
    return { kind: "invalid", reason: `"${target}" is not an IP address` };
  }
  const type = ipaddr.parse(target).kind() === "ipv4" ? "A" : "AAAA";
  return { kind: "records", domains, type, address: target };
}

/** Names of the block lists and the policy an import of blocks makes. */
export const BLOCK_LIST_NAMES = {
  zeroIP: "dnsmasq-address-null",
  nxdomain: "dnsmasq-address-nxdomain",
} as const;
export const BLOCK_POLICY_NAME = "dnsmasq-address";
/** The ClientGroup every first boot creates (src/objects/bootstrap.ts). */
export const EVERYONE_GROUP = "default";

/**
 * The BlockLists (one per answer) and a Policy applying them to the
 * first-boot ClientGroup "default" (everyone); none when nothing is blocked.
 */
export function blockObjects(
  blocked: Record<"zeroIP" | "nxdomain", string[]>,
): KObject[] {
  const lists: KObject[] = [];
  for (const response of ["zeroIP", "nxdomain"] as const) {
    const domains = [...new Set(blocked[response])].sort();
    if (domains.length === 0) continue;
    lists.push({
      apiVersion: API_VERSION,
      kind: "BlockList",
      metadata: {
        name: BLOCK_LIST_NAMES[response],
        namespace: IMPORT_NAMESPACE,
      },
      spec: {
        mode: "block",
        sources: [{
          inline: domains.map((d) => `*.${d}\n`).join(""),
          format: "domains",
          name: `dnsmasq address= (${response})`,
        }],
        response: { mode: response },
      },
    });
  }
  if (lists.length === 0) return [];
  return [...lists, {
    apiVersion: API_VERSION,
    kind: "Policy",
    metadata: { name: BLOCK_POLICY_NAME, namespace: IMPORT_NAMESPACE },
    spec: {
      clientGroupRefs: [EVERYONE_GROUP],
      blockListRefs: lists.map((l) => l.metadata.name),
    },
  }];
}
