/**
 * From a client's ClientGroups to what applies to its query now:
 * the PolicyDecision. A Policy applies when its groups meet the client's and
 * its schedule (if any) is active. Applying policies are ordered by
 * priority (highest first), then key; lists are the union over all of them
 * (allow wins across groups, in the blocking stage); every other setting
 * comes from the first policy that sets it, else the server's defaults.
 */
import type {
  BlockingSnapshot,
  BlockResponse,
  PolicyData,
  PolicyDecision,
} from "../blocking_snapshot.ts";
import { scheduleActive } from "./schedule.ts";

/** The decision for a client in `groups` at `atMs` (frozen: the stage shares it). */
export function decidePolicy(
  groups: readonly string[],
  snapshot: BlockingSnapshot,
  atMs: number,
): PolicyDecision {
  const applying = groups.length === 0
    ? []
    : snapshot.policies.filter((p) =>
      p.groups.some((g) => groups.includes(g)) &&
      (p.schedule === undefined || scheduleActive(p.schedule, atMs))
    ).sort(byPriorityThenKey);

  const blockLists = new Set<string>();
  const allowLists = new Set<string>();
  for (const policy of applying) {
    for (const list of policy.blockLists) blockLists.add(list);
    for (const list of policy.allowLists) allowLists.add(list);
  }
  const first = <K extends keyof PolicyData>(field: K) =>
    applying.find((p) => p[field] !== undefined);

  const decision: PolicyDecision = {
    policies: Object.freeze(applying.map((p) => p.key)) as string[],
    blockLists: Object.freeze([...blockLists]) as string[],
    allowLists: Object.freeze([...allowLists]) as string[],
    // Every policy carries allowOnly (the schema defaults it to false), so
    // the highest one decides.
    allowOnly: applying[0]?.allowOnly ?? false,
    response: responseFor(applying, snapshot.response),
    queryLog: first("queryLog")?.queryLog ?? true,
  };
  const upstreamGroup = first("upstreamGroup")?.upstreamGroup;
  if (upstreamGroup !== undefined) decision.upstreamGroup = upstreamGroup;
  return Object.freeze(decision);
}

function byPriorityThenKey(a: PolicyData, b: PolicyData): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * The answer for blocked names. customIPs travel with the blockMode of the
 * policy that sets one (they belong to the mode that uses them); a policy
 * that sets customIPs alone changes the addresses of the server's mode.
 * The TTL is picked on its own.
 */
function responseFor(
  applying: PolicyData[],
  server: BlockResponse,
): BlockResponse {
  const modeFrom = applying.find((p) => p.blockMode !== undefined);
  const ipsFrom = modeFrom ??
    applying.find((p) => p.customIPs !== undefined);
  const ttlFrom = applying.find((p) => p.blockTTL !== undefined);
  if (ipsFrom === undefined && ttlFrom === undefined) return server;
  return Object.freeze({
    mode: modeFrom?.blockMode ?? server.mode,
    customIPs: ipsFrom === undefined
      ? server.customIPs
      : Object.freeze([...(ipsFrom.customIPs ?? [])]) as string[],
    ttl: ttlFrom?.blockTTL ?? server.ttl,
  });
}
