/** Queries over time, stacked by status group (the dashboard's chart). */
import { useMemo } from "preact/hooks";
import {
  STATUS_GROUP_LABELS,
  STATUS_GROUPS,
  type StatusGroup,
  totalsByGroup,
} from "../status.ts";
import { StackedBars } from "./stacked_bars.tsx";

export interface Bucket {
  /** ISO time of the bucket's start. */
  time: string;
  total: number;
  byStatus: Record<string, number>;
}

const COLOURS: Record<StatusGroup, string> = {
  blocked: "--blocked",
  cached: "--cached",
  forwarded: "--accent",
  local: "--ok",
  failed: "--muted",
};

export function QueriesChart(
  { buckets, label }: { buckets: Bucket[]; label: string },
) {
  const [times, bands] = useMemo(() => {
    const counts = totalsByGroup(buckets);
    return [
      buckets.map((b) => b.time),
      STATUS_GROUPS.map((g, i) => ({
        label: STATUS_GROUP_LABELS[g],
        colour: COLOURS[g],
        values: counts[i]!,
      })),
    ];
  }, [buckets]);
  return <StackedBars times={times} bands={bands} label={label} />;
}
