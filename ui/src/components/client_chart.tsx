/** One client's queries over time: blocked under the rest. */
import { useMemo } from "preact/hooks";
import { strings } from "../strings.ts";
import { StackedBars } from "./stacked_bars.tsx";

export function ClientChart(
  { buckets, label }: {
    buckets: { time: string; queries: number; blocked: number }[];
    label: string;
  },
) {
  const [times, bands] = useMemo(() => [
    buckets.map((b) => b.time),
    [
      {
        label: strings.dashboard.blocked,
        colour: "--blocked",
        values: buckets.map((b) => b.blocked),
      },
      {
        label: strings.client.answered,
        colour: "--accent",
        values: buckets.map((b) => b.queries - b.blocked),
      },
    ],
  ], [buckets]);
  return <StackedBars times={times} bands={bands} label={label} />;
}
