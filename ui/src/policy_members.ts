/**
 * The members of a ClientGroup (src/api/v1alpha1/clientgroup.ts): which
 * matcher a typed member is (an address, a network, a MAC, a client ID, a
 * host name glob or a display-name glob), how each reads, and an address
 * inside the group to ask "why" with.
 */
import type { Client } from "./lists_objects.ts";
import { strings } from "./strings.ts";

export const MEMBER_KINDS = [
  "ip",
  "cidr",
  "mac",
  "clientID",
  "hostname",
  "nameGlob",
] as const;
export type MemberKind = (typeof MEMBER_KINDS)[number];

const IPV4_RE =
  /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const MAC_RE = /^[0-9a-fA-F]{2}([:-][0-9a-fA-F]{2}){5}$/;
const CLIENT_ID_RE = /^[a-z0-9]([a-z0-9-]{0,62})$/;
const HOSTNAME_GLOB_RE = /^[A-Za-z0-9*?_.\-[\]]+$/;

export function isIPv4(text: string): boolean {
  return IPV4_RE.test(text);
}

/** IPv6 as the URL parser reads a bracketed host (zone ids are not members). */
export function isIPv6(text: string): boolean {
  if (!text.includes(":") || !/^[0-9a-fA-F:.]+$/.test(text)) return false;
  try {
    new URL(`http://[${text}]/`);
    return true;
  } catch {
    return false;
  }
}

export function isIP(text: string): boolean {
  return isIPv4(text) || isIPv6(text);
}

export function isCidr(text: string): boolean {
  const [address, prefix, extra] = text.split("/");
  if (address === undefined || prefix === undefined || extra !== undefined) {
    return false;
  }
  if (!/^\d{1,3}$/.test(prefix)) return false;
  const bits = Number(prefix);
  if (isIPv4(address)) return bits <= 32;
  return isIPv6(address) && bits <= 128;
}

/** The matcher a member uses (the schema allows exactly one). */
export function memberKind(client: Client): MemberKind | undefined {
  return MEMBER_KINDS.find((k) => client[k] !== undefined);
}

export function memberValue(client: Client): string {
  const kind = memberKind(client);
  return kind === undefined ? "" : client[kind] ?? "";
}

/** What "automatic" reads typed text as: an address, a network, a MAC, else a host name. */
export function guessKind(text: string): MemberKind {
  const t = text.trim();
  if (isIP(t)) return "ip";
  if (t.includes("/")) return "cidr";
  if (MAC_RE.test(t)) return "mac";
  return "hostname";
}

/** Why `value` is not a member of `kind`, or undefined when it is. */
export function memberProblem(
  kind: MemberKind,
  value: string,
): string | undefined {
  const t = strings.groups.memberProblems;
  switch (kind) {
    case "ip":
      return isIP(value) ? undefined : t.ip;
    case "cidr":
      return isCidr(value) ? undefined : t.cidr;
    case "mac":
      return MAC_RE.test(value) ? undefined : t.mac;
    case "clientID":
      return CLIENT_ID_RE.test(value) ? undefined : t.clientID;
    case "hostname":
      return value.length <= 253 && HOSTNAME_GLOB_RE.test(value)
        ? undefined
        : t.hostname;
    case "nameGlob":
      return value.length >= 1 && value.length <= 253 ? undefined : t.nameGlob;
  }
}

/**
 * The member for typed text: `kind` "auto" guesses. `label` becomes the
 * member's name. Answers the member or why not.
 */
export function parseMember(
  kind: MemberKind | "auto",
  text: string,
  label = "",
): { member: Client } | { error: string } {
  const value = text.trim();
  if (value === "") return { error: strings.groups.memberProblems.empty };
  const chosen = kind === "auto" ? guessKind(value) : kind;
  const problem = memberProblem(chosen, value);
  if (problem !== undefined) return { error: problem };
  const name = label.trim();
  return { member: { [chosen]: value, ...(name !== "" && { name }) } };
}

/** Two members match the same clients the same way. */
export function sameMember(a: Client, b: Client): boolean {
  const kind = memberKind(a);
  return kind !== undefined && kind === memberKind(b) &&
    a[kind]!.toLowerCase() === b[kind]!.toLowerCase();
}

/**
 * An address inside the group, to ask "why" with: its first `ip`, else a
 * host of its first network (the first after the network's own address,
 * for IPv4 networks with room for one). Members without an address
 * (MACs, names, client IDs) give none.
 */
export function probeAddress(
  clients: readonly Client[],
): string | undefined {
  const ip = clients.find((c) => c.ip !== undefined)?.ip;
  if (ip !== undefined) return ip;
  const cidr = clients.find((c) => c.cidr !== undefined)?.cidr;
  if (cidr === undefined) return undefined;
  const [address = "", prefixText = ""] = cidr.split("/");
  const prefix = Number(prefixText);
  if (isIPv4(address)) {
    if (prefix > 30) return address;
    const value = address.split(".").reduce((n, o) => n * 256 + Number(o), 0);
    const size = 2 ** (32 - prefix);
    const host = Math.floor(value / size) * size + 1;
    return [24, 16, 8, 0].map((s) => Math.floor(host / 2 ** s) % 256).join(
      ".",
    );
  }
  return address.endsWith("::") ? `${address}1` : address;
}
