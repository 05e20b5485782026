/**
 * Counts over time as stacked bars, drawn by uPlot (a small canvas chart
 * library). Colours come from the theme's CSS variables.
 */
import "uplot/dist/uPlot.min.css";
import uPlot from "uplot";
import { useEffect, useRef } from "preact/hooks";
import { theme } from "../theme.ts";

/** One band of the stack: its own counts, bottom band first. */
export interface Band {
  label: string;
  /** A CSS variable of the theme, such as "--blocked". */
  colour: string;
  values: number[];
}

export function StackedBars(
  { times, bands, label }: {
    /** Bucket starts, ISO times. */
    times: string[];
    bands: Band[];
    label: string;
  },
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
    // Each band drawn as the sum of itself and those below, top band
    // first, so each lower band paints over the one above.
    const stacked: number[][] = [];
    bands.forEach((band, b) =>
      stacked.push(
        band.values.map((v, i) => v + (b > 0 ? stacked[b - 1]![i]! : 0)),
      )
    );
    const order = bands.map((_, b) => b).reverse();
    const bars = uPlot.paths.bars!({ size: [0.8, 40] });
    const plot = new uPlot({
      width: Math.max(200, el.clientWidth),
      height: 240,
      series: [
        {},
        ...order.map((b) => ({
          label: bands[b]!.label,
          stroke: colour(bands[b]!.colour),
          fill: colour(bands[b]!.colour),
          paths: bars,
          points: { show: false },
          // The legend shows each band's own count, not the stacked sum.
          value: (_u: uPlot, _v: number, _s: number, i: number | null) =>
            i === null ? "" : String(bands[b]!.values[i] ?? ""),
        })),
      ],
      axes: [
        { stroke: colour("--muted"), grid: { stroke: colour("--border") } },
        { stroke: colour("--muted"), grid: { stroke: colour("--border") } },
      ],
      legend: { live: true },
    }, [
      times.map((t) => Date.parse(t) / 1000),
      ...order.map((b) => stacked[b]!),
    ], el);
    probe.remove();
    const resize = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(200, el.clientWidth), height: 240 })
    );
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, bands, theme.value]);
  return <div class="chart" ref={box} role="img" aria-label={label} />;
}
