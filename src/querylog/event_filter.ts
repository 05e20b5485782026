/**
 * What the `querylog` settings do to one event before it is stored: the
 * exclusions (exclude.domains, exclude.clients, exclude.sudn) and the
 * privacy mode. Excluded events are not stored and not counted in any
 * rollup: an exclusion means "this never happened, as far as the log is
 * concerned" (Prometheus metrics still count them).
 *
 * An IPv4 client seen on a dual-stack socket ("::ffff:192.0.2.7") is stored
 * as the IPv4 address it is, so it has one spelling in the log.
 *
 * Privacy modes (the schema's names):
 * - full: clients and names as they are;
 * - hideClient: the client stored as "hidden" (port 0) and its groups
 *   left out (a group is often one person's device);
 * - hideDomain: the name stored as "hidden.", and the answer text and the
 *   block rule left out (they name CNAME targets and blocked domains; the
 *   list name stays);
 * - anonymous: both;
 * - anonymized: client addresses truncated to their /24 (IPv4) or /48
 *   (IPv6), the source port dropped (0);
 * - none: no raw events, no per-client and no per-domain rollups; only the
 *   per-status and per-upstream counters.
 */
import ipaddr from "ipaddr.js";
import { toFqdn } from "../dns/name.ts";
import type { QueryEvent } from "../pipeline/query_event.ts";
import type { QueryLogSettings } from "./settings.ts";
import { SPECIAL_USE_SUFFIXES } from "./special_use_names.ts";

/** Memo tables are cleared when they reach this size. */
const MEMO_LIMIT = 100_000;

export interface EventFilter {
  readonly privacy: QueryLogSettings["privacy"];
  /** True when `event` must not be logged at all. */
  excludes(event: QueryEvent): boolean;
  /** True when some names are excluded (nameExcluded can be true). */
  readonly excludesNames: boolean;
  /** True when the question name `qname` excludes an event. */
  nameExcluded(qname: string): boolean;
  /** True when some clients are excluded (clientExcluded can be true). */
  readonly excludesClients: boolean;
  /** True when a client with this address and these groups is excluded. */
  clientExcluded(address: string, groups: readonly string[]): boolean;
  /** The client address as stored under the privacy mode. */
  clientText(address: string): string;
  /** The source port as stored under the privacy mode. */
  port(port: number): number;
  /** The client's groups (joined) as stored under the privacy mode ("" leaves them out). */
  groupsText(groups: string): string;
  /** The question name as stored under the privacy mode. */
  qnameText(qname: string): string;
  /** The answer summary as stored under the privacy mode ("" leaves it out). */
  answerText(answer: string): string;
  /** The block rule as stored under the privacy mode ("" leaves it out). */
  ruleText(rule: string): string;
}

/** What hidden clients and names are stored as. */
export const HIDDEN_CLIENT = "hidden";
export const HIDDEN_NAME = "hidden.";

/** Builds the filter for `settings` (rebuild it when they change). */
export function createEventFilter(settings: QueryLogSettings): EventFilter {
  const suffixes = new Set(settings.exclude.domains.map(normalizeSuffix));
  if (settings.exclude.sudn) {
    for (const s of SPECIAL_USE_SUFFIXES) suffixes.add(s);
  }
  const clients = clientMatcher(settings.exclude.clients);
  const nameMemo = new Map<string, boolean>();
  const anonymousMemo = new Map<string, string>();
  const anonymized = settings.privacy === "anonymized";
  const hideClient = settings.privacy === "hideClient" ||
    settings.privacy === "anonymous";
  const hideDomain = settings.privacy === "hideDomain" ||
    settings.privacy === "anonymous";

  const nameExcluded = (qname: string) => {
    let hit = nameMemo.get(qname);
    if (hit === undefined) {
      hit = hasSuffixIn(qname.toLowerCase(), suffixes);
      if (nameMemo.size >= MEMO_LIMIT) nameMemo.clear();
      nameMemo.set(qname, hit);
    }
    return hit;
  };

  return {
    privacy: settings.privacy,
    excludes(event) {
      if (suffixes.size > 0 && nameExcluded(event.qname)) return true;
      return clients !== undefined &&
        clients(event.clientAddress, event.groups);
    },
    excludesNames: suffixes.size > 0,
    nameExcluded: (qname) => suffixes.size > 0 && nameExcluded(qname),
    excludesClients: clients !== undefined,
    clientExcluded: (address, groups) =>
      clients !== undefined && clients(address, groups),
    clientText(address) {
      if (hideClient) return HIDDEN_CLIENT;
      if (!anonymized) return unmapIPv4(address);
      let text = anonymousMemo.get(address);
      if (text === undefined) {
        text = truncateAddress(address);
        if (anonymousMemo.size >= MEMO_LIMIT) anonymousMemo.clear();
        anonymousMemo.set(address, text);
      }
      return text;
    },
    port: (port) => anonymized || hideClient ? 0 : port,
    groupsText: (groups) => hideClient ? "" : groups,
    qnameText: (qname) => hideDomain ? HIDDEN_NAME : qname,
    answerText: (answer) => hideDomain ? "" : answer,
    ruleText: (rule) => hideDomain ? "" : rule,
  };
}

/** "Example.COM" / ".example.com" / "*.example.com" → "example.com.". */
export function normalizeSuffix(domain: string): string {
  let text = domain.trim().toLowerCase().replace(/^\*?\./, "");
  if (!text.endsWith(".")) text += ".";
  return text;
}

/**
 * True when `name` is one of `suffixes` or below one (on label boundaries).
 * Only an unescaped dot ends a label: `x\.apple.com.` is the label
 * "x.apple" under com., not a name under apple.com. (a query can carry a
 * dot inside a label, and must not hide from the log that way).
 */
function hasSuffixIn(name: string, suffixes: ReadonlySet<string>): boolean {
  const fqdn = toFqdn(name);
  if (suffixes.has(fqdn) || suffixes.has(".")) return true;
  for (let i = 0; i < fqdn.length - 1; i++) {
    if (fqdn[i] === "\\") i++; // the escaped character is never a separator
    else if (fqdn[i] === "." && suffixes.has(fqdn.slice(i + 1))) return true;
  }
  return false;
}

/**
 * exclude.clients: addresses and CIDR prefixes match the client address;
 * anything else is a client group, matched against "namespace/name" or the
 * bare name of each group the client is in.
 */
function clientMatcher(
  entries: readonly string[],
): ((address: string, groups: readonly string[]) => boolean) | undefined {
  if (entries.length === 0) return undefined;
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  const groups = new Set<string>();
  for (const entry of entries) {
    const text = entry.trim();
    if (ipaddr.isValidCIDR(text)) {
      const [addr, bits] = ipaddr.parseCIDR(text);
      ranges.push(asRange(addr, bits));
    } else if (ipaddr.isValid(text)) {
      const addr = ipaddr.process(text);
      ranges.push([addr, addr.kind() === "ipv4" ? 32 : 128]);
    } else {
      groups.add(text);
    }
  }
  const memo = new Map<string, boolean>();
  const addressExcluded = (address: string) => {
    let hit = memo.get(address);
    if (hit === undefined) {
      hit = inRanges(address, ranges);
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(address, hit);
    }
    return hit;
  };
  return (address, clientGroups) =>
    (ranges.length > 0 && addressExcluded(address)) ||
    (groups.size > 0 &&
      clientGroups.some((g) =>
        groups.has(g) || groups.has(g.slice(g.indexOf("/") + 1))
      ));
}

/** An IPv4-mapped IPv6 prefix becomes its IPv4 prefix. */
function asRange(
  addr: ipaddr.IPv4 | ipaddr.IPv6,
  bits: number,
): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  if (addr.kind() === "ipv6" && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    return [(addr as ipaddr.IPv6).toIPv4Address(), Math.max(0, bits - 96)];
  }
  return [addr, bits];
}

function inRanges(
  address: string,
  ranges: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][],
): boolean {
  if (!ipaddr.isValid(address)) return false;
  const addr = ipaddr.process(address);
  return ranges.some(([range, bits]) =>
    range.kind() === addr.kind() && addr.match(range, bits)
  );
}

/** "::ffff:192.0.2.7" → "192.0.2.7"; anything else as is. */
export function unmapIPv4(address: string): string {
  if (!/ffff:/i.test(address) || !ipaddr.IPv6.isValid(address)) return address;
  const addr = ipaddr.IPv6.parse(address);
  return addr.isIPv4MappedAddress() ? addr.toIPv4Address().toString() : address;
}

/** 192.0.2.77 → 192.0.2.0; 2001:db8:1:2::5 → 2001:db8:1::; else as is. */
export function truncateAddress(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const addr = ipaddr.process(address);
  if (addr.kind() === "ipv4") {
    const [a, b, c] = (addr as ipaddr.IPv4).octets;
    return `${a}.${b}.${c}.0`;
  }
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 3);
  return new ipaddr.IPv6([...parts, 0, 0, 0, 0, 0]).toString();
}
