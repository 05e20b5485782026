/**
 * How the UI groups the answer statuses of the query log (the server's
 * list: src/pipeline/status.ts) for charts and colours.
 */
import { strings } from "./strings.ts";

export const STATUS_GROUPS = [
  "blocked",
  "cached",
  "forwarded",
  "local",
  "failed",
] as const;
export type StatusGroup = (typeof STATUS_GROUPS)[number];

/** How each group is named, from the string catalogue. */
export const STATUS_GROUP_LABELS: Record<StatusGroup, string> =
  strings.statusGroups;

/** The group of one status. */
export function statusGroup(status: string): StatusGroup {
  if (status.startsWith("blocked")) return "blocked";
  if (status.startsWith("cached")) return "cached";
  if (status === "forwarded") return "forwarded";
  if (
    status === "authoritative" || status === "local_record" ||
    status === "rewritten" || status === "chaos" || status === "health"
  ) {
    return "local";
  }
  return "failed";
}

/** The CSS class of a status in tables. */
export function statusClass(status: string): string {
  const group = statusGroup(status);
  return group === "blocked"
    ? "status-blocked"
    : group === "cached"
    ? "status-cached"
    : group === "failed"
    ? ""
    : "status-ok";
}

/** Bucket counts per group: counts[g][i] is group g's count in bucket i. */
export function totalsByGroup(
  buckets: readonly { byStatus: Record<string, number> }[],
): number[][] {
  const counts = STATUS_GROUPS.map(() => buckets.map(() => 0));
  buckets.forEach((bucket, i) => {
    for (const [status, n] of Object.entries(bucket.byStatus)) {
      const g = STATUS_GROUPS.indexOf(statusGroup(status));
      counts[g]![i]! += n;
    }
  });
  return counts;
}
