/**
 * What the status of a DNSZone or DNSRecordSet should be, given the zone's
 * build. Pure functions: the reconciler compares their result with the stored
 * status and writes only the difference.
 */
import type {
  DNSRecordSet,
  DNSRecordSetStatus,
} from "../api/v1alpha1/dnsrecordset.ts";
import type { DNSZone, DNSZoneStatus } from "../api/v1alpha1/dnszone.ts";
import { unknownUpstreamGroup } from "../config/schema_resolver.ts";
import type {
  ZoneBuildOutcome,
  ZoneProblem,
  ZoneWarning,
} from "../snapshot/zone_build_cache.ts";
import {
  type ConditionVerdict,
  removeConditions,
  setCondition,
} from "./conditions.ts";
import { nextSerial } from "./serial.ts";
import { serialGreater } from "../dns/serial_number.ts";

/** Condition types a record set gets for each problem reason. */
export const PROBLEM_CONDITION_TYPES: ReadonlySet<string> = new Set([
  "Duplicated",
  "OutsideZone",
  "CNAMEConflict",
  "Invalid",
  "Occluded",
]);

/**
 * Condition types a record set gets for each warning reason: served, but
 * not as written; its Ready condition stays True.
 */
export const WARNING_CONDITION_TYPES: ReadonlySet<string> = new Set([
  "TTLMismatch",
]);

/** Longest condition message we write; a record set may have 1,000 endpoints. */
const MAX_MESSAGE = 1024;

/** Where a record set's zone stands, as the reconciler found it. */
export type RecordSetZone =
  | { kind: "missing"; zoneRef: string }
  | { kind: "notPrimary"; zoneRef: string; type: string }
  | { kind: "failed"; zoneRef: string }
  /** The zone does not serve this record set (another object serves its name, its selector). */
  | { kind: "refused"; reason: string; message: string }
  | {
    kind: "primary";
    zoneName: string;
    problems: readonly ZoneProblem[];
    warnings: readonly ZoneWarning[];
  };

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function clip(message: string): string {
  return message.length <= MAX_MESSAGE
    ? message
    : message.slice(0, MAX_MESSAGE - 1) + "…";
}

function generationOf(obj: DNSZone | DNSRecordSet): number {
  return obj.metadata.generation ?? 0;
}

/** The serial and content a zone name was last served with. */
export interface ServedZone {
  serial: number;
  contentHash: string;
}

/**
 * The status a primary zone should have. The serial moves (to
 * nextSerial(prev, now)) only when the content hash changed or no serial was
 * ever stamped; a generation change alone only moves observedGeneration.
 *
 * `lastServed` is what the zone's name was served with before, perhaps by
 * another DNSZone object (the name passed to this one, or the zone was
 * deleted and created again): a serial below it, or equal to it with other
 * content, would tell secondaries nothing changed, so it moves past it.
 */
export function primaryZoneStatus(
  zone: DNSZone,
  outcome: ZoneBuildOutcome,
  now: Date,
  lastServed?: ServedZone,
): DNSZoneStatus {
  const status: DNSZoneStatus = { ...zone.status };
  const generation = generationOf(zone);
  status.observedGeneration = generation;
  if (!outcome.ok) {
    status.conditions = setCondition(status.conditions, {
      type: "Ready",
      status: "False",
      reason: "BuildFailed",
      message: clip(messageOf(outcome.error)),
      observedGeneration: generation,
    }, now);
    return status;
  }
  const { contentHash, recordCount } = outcome.build;
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (contentHash !== status.contentHash || status.serial === undefined) {
    status.serial = nextSerial(status.serial, nowSeconds);
  }
  if (
    lastServed !== undefined &&
    (serialGreater(lastServed.serial, status.serial) ||
      (lastServed.serial === status.serial &&
        lastServed.contentHash !== contentHash))
  ) {
    status.serial = nextSerial(lastServed.serial, nowSeconds);
  }
  status.contentHash = contentHash;
  status.recordCount = recordCount;
  status.conditions = setCondition(status.conditions, {
    type: "Ready",
    status: "True",
    reason: "Serving",
    message: `Serving ${recordCount} records`,
    observedGeneration: generation,
  }, now);
  return status;
}

/**
 * The status of a primary zone another, older DNSZone object serves the name
 * of (zone_owner.ts): not served, so Ready is False; its serial is kept.
 */
export function shadowedZoneStatus(
  zone: DNSZone,
  owner: string,
  now: Date,
): DNSZoneStatus {
  return withReady(zone, {
    status: "False",
    reason: "ZoneConflict",
    message: clip(
      `${zone.spec?.zoneName} is served by the older DNSZone "${owner}"; delete one of the two`,
    ),
  }, now);
}

/**
 * The status a forward zone should have. A zone naming a group that is not
 * in `upstreamGroups` (the names in `upstreams.groups`) is not Ready: its
 * queries are answered SERVFAIL, and the status is where an operator looks
 * for why. Without `upstreamGroups` the group is not checked.
 */
export function forwardZoneStatus(
  zone: DNSZone,
  now: Date,
  upstreamGroups?: readonly string[],
): DNSZoneStatus {
  const group = zone.spec?.forward?.upstreamGroup ?? "";
  const problem = upstreamGroups === undefined
    ? undefined
    : unknownUpstreamGroup(group, upstreamGroups);
  if (problem !== undefined) {
    return withReady(zone, {
      status: "False",
      reason: "UnknownUpstreamGroup",
      message: clip(
        `spec.forward.upstreamGroup ${problem}; queries for ${zone.spec?.zoneName} are answered SERVFAIL`,
      ),
    }, now);
  }
  return withReady(zone, {
    status: "True",
    reason: "Forwarding",
    message: `Forwarding to upstream group "${group}"`,
  }, now);
}

/** The zone's status with observedGeneration moved and Ready set to `ready`. */
function withReady(
  zone: DNSZone,
  ready: { status: "True" | "False"; reason: string; message: string },
  now: Date,
): DNSZoneStatus {
  const generation = generationOf(zone);
  return {
    ...zone.status,
    observedGeneration: generation,
    conditions: setCondition(zone.status?.conditions, {
      type: "Ready",
      ...ready,
      observedGeneration: generation,
    }, now),
  };
}

/**
 * One condition per problem (or warning) reason, naming each endpoint and
 * what it clashes with.
 */
function findingConditions(
  problems: readonly (ZoneProblem | ZoneWarning)[],
  generation: number,
): ConditionVerdict[] {
  const byReason = new Map<string, string[]>();
  for (const p of problems) {
    const list = byReason.get(p.reason) ?? [];
    list.push(`endpoints[${p.endpoint}]: ${p.message}`);
    byReason.set(p.reason, list);
  }
  return [...byReason].map(([reason, messages]) => ({
    type: reason,
    status: "True",
    reason,
    message: clip(messages.join("; ")),
    observedGeneration: generation,
  }));
}

function readyVerdict(
  where: RecordSetZone,
  generation: number,
): ConditionVerdict {
  const base = { type: "Ready", observedGeneration: generation };
  switch (where.kind) {
    case "missing":
      return {
        ...base,
        status: "False",
        reason: "ZoneNotFound",
        message: `DNSZone "${where.zoneRef}" does not exist`,
      };
    case "notPrimary":
      return {
        ...base,
        status: "False",
        reason: "ZoneNotPrimary",
        message:
          `DNSZone "${where.zoneRef}" is a ${where.type} zone; only primary zones serve record sets`,
      };
    case "failed":
      return {
        ...base,
        status: "False",
        reason: "ZoneNotReady",
        message: `DNSZone "${where.zoneRef}" cannot be built; see its status`,
      };
    case "refused":
      return {
        ...base,
        status: "False",
        reason: where.reason,
        message: clip(where.message),
      };
    case "primary": {
      const first = where.problems[0];
      if (first === undefined) {
        return {
          ...base,
          status: "True",
          reason: "Serving",
          message: `Served in zone ${where.zoneName}`,
        };
      }
      const endpoints = new Set(where.problems.map((p) => p.endpoint)).size;
      return {
        ...base,
        status: "False",
        reason: first.reason,
        message: `${endpoints} endpoint(s) are not served; see the ${
          [...new Set(where.problems.map((p) => p.reason))].join(", ")
        } condition(s)`,
      };
    }
  }
}

/** The status a record set should have, given where its zone stands. */
export function recordSetStatus(
  rs: DNSRecordSet,
  where: RecordSetZone,
  now: Date,
): DNSRecordSetStatus {
  const generation = generationOf(rs);
  const findings = where.kind === "primary"
    ? [...where.problems, ...where.warnings]
    : [];
  const verdicts = findingConditions(findings, generation);
  const wanted = new Set(verdicts.map((v) => v.type));
  const resolved = new Set(
    [...PROBLEM_CONDITION_TYPES, ...WARNING_CONDITION_TYPES].filter((t) =>
      !wanted.has(t)
    ),
  );
  let conditions = removeConditions(rs.status?.conditions, resolved);
  for (const verdict of verdicts) {
    conditions = setCondition(conditions, verdict, now);
  }
  conditions = setCondition(conditions, readyVerdict(where, generation), now);
  return { ...rs.status, observedGeneration: generation, conditions };
}
