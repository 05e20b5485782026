/**
 * Queries over time, stacked by status group, drawn by uPlot (a small
 * canvas chart library). Colours come from the theme's CSS variables.
 */
import "uplot/dist/uPlot.min.css";
import uPlot from "uplot";
import { useEffect, useRef } from "preact/hooks";
import { theme } from "../theme.ts";
import {
  stackedByGroup,
  STATUS_GROUP_LABELS,
  STATUS_GROUPS,
} from "../status.ts";

export interface Bucket {
  /** ISO time of the bucket's start. */
  time: string;
  total: number;
  byStatus: Record<string, number>;
}

const COLOURS = ["--blocked", "--cached", "--accent", "--ok", "--muted"];

export function QueriesChart(
  { buckets, label }: { buckets: Bucket[]; label: string },
) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    // The canvas needs real colours: a probe element resolves the theme's
    // variables (light-dark() included) the way the page would.
    const probe = document.createElement("span");
    el.append(probe);
    const colour = (name: string) => {
      probe.style.color = `var(${name})`;
      return getComputedStyle(probe).color;
    };
    const times = buckets.map((b) => Date.parse(b.time) / 1000);
    const stacked = stackedByGroup(buckets);
    // Drawn top band first, so each lower band paints over the one above.
    const order = STATUS_GROUPS.map((_, g) => g).reverse();
    const bars = uPlot.paths.bars!({ size: [0.8, 40] });
    const plot = new uPlot(
      {
        width: Math.max(200, el.clientWidth),
        height: 240,
        series: [
          {},
          ...order.map((g) => ({
            label: STATUS_GROUP_LABELS[STATUS_GROUPS[g]!],
            stroke: colour(COLOURS[g]!),
            fill: colour(COLOURS[g]!),
            paths: bars,
            points: { show: false },
            // The tooltip shows each band's own count, not the stacked sum.
            value: (_u: uPlot, _v: number, _s: number, i: number | null) =>
              i === null ? "" : String(
                stacked[g]![i]! - (g > 0 ? stacked[g - 1]![i]! : 0),
              ),
          })),
        ],
        axes: [
          { stroke: colour("--muted"), grid: { stroke: colour("--border") } },
          { stroke: colour("--muted"), grid: { stroke: colour("--border") } },
        ],
        legend: { live: true },
      },
      [times, ...order.map((g) => stacked[g]!)],
      el,
    );
    const resize = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(200, el.clientWidth), height: 240 })
    );
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [buckets, theme.value]);
  return <div class="chart" ref={box} role="img" aria-label={label} />;
}
