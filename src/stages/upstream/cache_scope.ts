/**
 * What the cache must know about where a forwarded query goes (local and
 * conditional answers are never cached), decided before the
 * upstream stage runs:
 *
 * - a conditional entry or a forward zone other than the root: the
 *   answer comes from a server the operator pointed that domain at (an
 *   office's AD, a lab's DNS), so it is never cached, and never answered
 *   from an entry stored before the rule existed;
 * - a Policy's upstream group (a family filter for some clients): cached,
 *   but only for that group, so no client gets another group's answer;
 * - the default group, or the root forward zone `.` (the catch-all of every
 *   bootstrap): cached and shared;
 * - plus the ECS option sent upstream, when `upstreams.ecs` sends one.
 */
import type { Request } from "../../pipeline/request.ts";
import { clientSubnetCacheScope } from "./client_subnet.ts";
import { type Route, routeQuery } from "./routing.ts";

/**
 * The cache scope of `req`: false when its answer must not come from, nor
 * go into, the cache; otherwise what its cache key adds to the question
 * ("" when nothing). Without `upstreams` settings there is no upstream to
 * tell apart.
 */
export function upstreamCacheScope(req: Request): string | false {
  const upstreams = req.snapshot?.settings?.upstreams;
  if (upstreams === undefined) return "";
  const route = routeQuery(req, upstreams);
  if (!isCacheableRoute(route)) return false;
  const subnet = clientSubnetCacheScope(req);
  // Encoded: a key holds no spaces (cache_key.ts), a group name may.
  const group = route.rule === "policy"
    ? `group=${encodeURIComponent(route.group)}`
    : "";
  if (subnet === undefined) return group;
  return group === "" ? `ecs=${subnet}` : `${group},ecs=${subnet}`;
}

/** True unless the route is a conditional entry or a forward zone below the root. */
export function isCacheableRoute(route: Route): boolean {
  if (route.rule === "conditional") return false;
  return route.rule !== "forward_zone" || route.suffix === ".";
}
