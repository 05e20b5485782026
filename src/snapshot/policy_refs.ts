/**
 * A Policy object as the data plane reads it (PolicyData): references to
 * ClientGroups and BlockLists turned into "namespace/name" keys of the
 * policy's own namespace, lists sorted into block and allow by their mode,
 * durations in seconds.
 */
import type { Policy } from "../api/v1alpha1/policy.ts";
import { parseDuration } from "../config/duration.ts";
import { unknownUpstreamGroup } from "../config/schema_resolver.ts";
import type { PolicyData } from "../blocking/blocking_snapshot.ts";

/** What a Policy may refer to. */
export interface PolicyTargets {
  /** Every existing BlockList key ("namespace/name") and its mode. */
  listModes: ReadonlyMap<string, "block" | "allow">;
  /** The names in `upstreams.groups`; unchecked when absent. */
  upstreamGroups?: readonly string[];
}

/**
 * Resolves `policy`'s references. A reference to a list that does not exist
 * is left out and reported through `warn` (the policy still applies with the
 * rest). An upstream group that does not exist is reported and kept: the
 * clients' forwarded queries are answered SERVFAIL, as the policy says to
 * send them nowhere else, and the warning says why.
 */
export function resolvePolicy(
  policy: Policy,
  targets: PolicyTargets,
  warn: (message: string) => void,
): PolicyData {
  const { listModes, upstreamGroups } = targets;
  const ns = policy.metadata.namespace ?? "";
  const key = `${ns}/${policy.metadata.name}`;
  // Stored objects are validated, so spec is there; typed optional.
  const spec = policy.spec ?? { allowOnly: false, priority: 0 };
  const blockLists: string[] = [];
  const allowLists: string[] = [];
  const refer = (ref: string, asAllow: boolean) => {
    const listKey = `${ns}/${ref}`;
    const mode = listModes.get(listKey);
    if (mode === undefined) {
      warn(
        `Policy "${key}" refers to BlockList "${listKey}", which does not exist; it is left out`,
      );
      return;
    }
    const target = asAllow || mode === "allow" ? allowLists : blockLists;
    if (!target.includes(listKey)) target.push(listKey);
  };
  for (const ref of spec.blockListRefs ?? []) refer(ref, false);
  for (const ref of spec.allowListRefs ?? []) refer(ref, true);
  const data: PolicyData = {
    key,
    priority: spec.priority,
    groups: (spec.clientGroupRefs ?? []).map((ref) => `${ns}/${ref}`),
    blockLists,
    allowLists,
    allowOnly: spec.allowOnly,
  };
  if (spec.schedule !== undefined) data.schedule = spec.schedule;
  if (spec.upstreamGroup !== undefined) {
    data.upstreamGroup = spec.upstreamGroup;
    const problem = upstreamGroups === undefined
      ? undefined
      : unknownUpstreamGroup(spec.upstreamGroup, upstreamGroups);
    if (problem !== undefined) {
      warn(
        `Policy "${key}" upstreamGroup ${problem}; its clients' forwarded queries are answered SERVFAIL`,
      );
    }
  }
  if (spec.blockMode !== undefined) data.blockMode = spec.blockMode;
  if (spec.customIPs !== undefined) data.customIPs = spec.customIPs;
  if (spec.blockTTL !== undefined) {
    data.blockTTL = Math.round((parseDuration(spec.blockTTL) ?? 0) / 1000);
  }
  if (spec.queryLog !== undefined) data.queryLog = spec.queryLog;
  for (const field of NOT_APPLIED_YET) {
    if (spec[field] !== undefined) {
      warn(
        `Policy "${key}" sets ${field}, which this version does not apply yet; it is ignored`,
      );
    }
  }
  return data;
}

/** Policy fields the API accepts ahead of the catalogue that gives them meaning. */
const NOT_APPLIED_YET = [
  "blockedServices",
  "blockedCategories",
  "allowedServices",
  "safeSearch",
] as const;
