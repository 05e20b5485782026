/**
 * Where a forwarded query goes: forward zones and
 * conditional-forwarding entries by longest suffix, then the client's
 * Policy, then `default`.
 */
import { findSpecialZone } from "../../dns/special_use_zones.ts";
import type { Request } from "../../pipeline/request.ts";
import { zoneIndexOf } from "../../pipeline/snapshot_zones.ts";
import { findZone, nameSuffixes } from "../../zone/index.ts";
import {
  normalizeDomain,
  type UpstreamsSettings,
} from "../../pipeline/settings.ts";

export { normalizeDomain };

/** The group every query no other rule routes goes to. */
export const DEFAULT_GROUP = "default";

/** Which rule picked the group; for tests, the README and the query log. */
export type RouteRule = "forward_zone" | "conditional" | "policy" | "default";

/** The group a query goes to, and why. */
export interface Route {
  group: string;
  rule: RouteRule;
  /** The matching forward zone or conditional domain (lowercase FQDN). */
  suffix?: string;
}

/** Conditional entries keyed by lowercase FQDN ("corp.example."). */
export type ConditionalTable = ReadonlyMap<string, string>;

/**
 * Normalises `upstreams.conditional` (see normalizeDomain): keys lowercased,
 * with a trailing dot added and one leading dot dropped, so "Corp.Example",
 * ".corp.example" and "corp.example." are one entry. When two spellings
 * collide the later one wins, as in a YAML map.
 */
export function compileConditional(
  conditional: Readonly<Record<string, string>>,
): ConditionalTable {
  const table = new Map<string, string>();
  for (const [domain, group] of Object.entries(conditional)) {
    table.set(normalizeDomain(domain), group);
  }
  return table;
}

const tables = new WeakMap<object, ConditionalTable>();

/** The compiled table of `upstreams`, built once per settings object. */
function conditionalOf(upstreams: UpstreamsSettings): ConditionalTable {
  let table = tables.get(upstreams.conditional);
  if (table === undefined) {
    table = compileConditional(upstreams.conditional);
    tables.set(upstreams.conditional, table);
  }
  return table;
}

/**
 * The group for `req`. One rule, longest suffix wins across forward zones
 * and conditional entries together:
 *
 * 1. the longest of: the forward zone the authoritative stage matched
 *    (`req.zone` + `req.upstreamGroup`) and the longest conditional entry
 *    that is a suffix of the name. The forward zone wins a tie (the same
 *    name in both): a DNSZone object is the more deliberate statement.
 *    The bootstrap's root forward zone `.` is the shortest suffix there is,
 *    so every conditional entry beats it, as an operator expects.
 * 2. the upstream group of the client's Policy (`req.policy`, set by the
 *    identify stage). It beats the root forward zone `.`, which is the
 *    catch-all every bootstrap has, and loses to every longer suffix;
 * 3. `default`.
 *
 * `req.upstreamGroup` without `req.zone` (nothing sets that today) counts as
 * a match at the root: below every conditional entry, above `default`.
 */
export function routeQuery(req: Request, upstreams: UpstreamsSettings): Route {
  return routeName(req.qname, req, req.policy?.upstreamGroup, upstreams);
}

/** The forward zone the zone index matched for a name, if any. */
export interface ForwardZoneMatch {
  /** The forward zone (or the zone that covers the name). */
  zone?: string | undefined;
  /** Set when a forward zone matched: its group. */
  upstreamGroup?: string | undefined;
}

/** routeQuery's rule for any name: see there. */
export function routeName(
  qname: string,
  forwardZone: ForwardZoneMatch,
  policyGroup: string | undefined,
  upstreams: UpstreamsSettings,
): Route {
  const zone = forwardZone.upstreamGroup === undefined
    ? undefined
    : normalizeDomain(forwardZone.zone ?? ".");
  const conditional = longestConditional(
    qname,
    conditionalOf(upstreams),
    zone === undefined ? -1 : labelCount(zone),
  );
  if (conditional !== undefined) return conditional;
  if (zone !== undefined && (zone !== "." || policyGroup === undefined)) {
    return {
      group: forwardZone.upstreamGroup!,
      rule: "forward_zone",
      suffix: zone,
    };
  }
  if (policyGroup !== undefined) return { group: policyGroup, rule: "policy" };
  return { group: DEFAULT_GROUP, rule: "default" };
}

/**
 * Whether the group `route` picked for `req` may speak for `name`, a name
 * its answer's CNAME or DNAME chain led to. Not for a special-use name or
 * a name in one of our primary zones (we answer those ourselves), nor for
 * a name another group is asked about: a conditional group for
 * `corp.example.` is trusted with `corp.example.` only, and the default
 * group not with names routed to a conditional group. Each answers for
 * its own names, as Unbound scrubs a forward zone's answers.
 */
export function speaksFor(
  req: Request,
  upstreams: UpstreamsSettings,
  route: Route,
  name: string,
): boolean {
  if (findSpecialZone(name) !== undefined) return false;
  const zone = req.snapshot === undefined
    ? undefined
    : findZone(zoneIndexOf(req.snapshot), nameSuffixes(name));
  if (zone?.kind === "primary") return false;
  const match = zone?.kind === "forward"
    ? { zone: zone.name, upstreamGroup: zone.zone.upstreamGroup }
    : {};
  return routeName(name, match, req.policy?.upstreamGroup, upstreams).group ===
    route.group;
}

/**
 * The longest conditional entry that is a suffix of `qname` and has more
 * than `minLabels` labels, walking from the full name towards the root.
 */
export function longestConditional(
  qname: string,
  table: ConditionalTable,
  minLabels = -1,
): Route | undefined {
  if (table.size === 0) return undefined;
  let suffix = normalizeDomain(qname);
  let labels = labelCount(suffix);
  while (labels > minLabels) {
    const group = table.get(suffix);
    if (group !== undefined) return { group, rule: "conditional", suffix };
    if (suffix === ".") return undefined;
    suffix = parentOf(suffix);
    labels--;
  }
  return undefined;
}

/** Labels of a lowercase FQDN; escaped dots (`\.`) do not split. */
function labelCount(name: string): number {
  if (name === ".") return 0;
  let count = 0;
  for (let i = 0; i < name.length; i++) {
    if (name[i] === "\\") i++;
    else if (name[i] === ".") count++;
  }
  return count;
}

function parentOf(name: string): string {
  for (let i = 0; i < name.length; i++) {
    if (name[i] === "\\") i++;
    else if (name[i] === ".") {
      return i + 1 === name.length ? "." : name.slice(i + 1);
    }
  }
  return ".";
}
