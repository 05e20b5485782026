/**
 * Metrics fed with whole batches, for what workers count in plain numbers:
 * a histogram that takes per-bucket counts and an exact sum, a summary of
 * just a sum and a count, and a gauge read when scraped that may have no
 * value yet. They register on a prom-client Registry like its own metrics
 * (the registry only calls `get()` and `reset()`).
 *
 * Why not prom-client's Histogram: it has no bulk API. Replaying each
 * batch as `observe()` calls, one per counted request with a value standing
 * for its bucket, would cost one call per query on the main thread (tens of
 * thousands a second) and would make `_sum` an estimate; here a batch costs
 * one addition per bucket and `_sum` is the exact total the worker measured.
 */
import client from "prom-client";
import type { Registry } from "./registry.ts";

type Labels = Record<string, string>;

/** One metric line: prom-client's exported shape. */
interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

interface MetricConfig<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  registers?: Registry[];
}

/** The common part: labelled series, registration, prom-client's interface. */
abstract class BulkMetric<L extends string, S extends { labels: Labels }> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  readonly aggregator = "sum";
  abstract readonly type: "histogram" | "summary";
  #series = new Map<string, S>();

  constructor(config: MetricConfig<L>) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames ?? [];
    for (const registry of config.registers ?? []) {
      // prom-client types registerMetric for its own classes; a Registry
      // needs only name, get() and reset() (see its getMetricsAsString).
      registry.registerMetric(this as unknown as client.Metric);
    }
  }

  /** The series for `labels`, made by `create` the first time. */
  protected seriesFor(labels: Record<L, string>, create: () => S): S {
    const key = this.labelNames.map((n) => labels[n]).join("\u0000");
    let series = this.#series.get(key);
    if (series === undefined) {
      series = create();
      series.labels = Object.fromEntries(
        this.labelNames.map((n) => [n, labels[n]]),
      );
      this.#series.set(key, series);
    }
    return series;
  }

  protected abstract samples(series: S): Sample[];

  get(): Promise<{
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: Sample[];
  }> {
    const values = [...this.#series.values()].flatMap((s) => this.samples(s));
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    });
  }

  reset(): void {
    this.#series.clear();
  }
}

/** A count the Prometheus text can carry: finite and above zero. */
function usable(n: number | undefined): n is number {
  return n !== undefined && Number.isFinite(n) && n > 0;
}

interface HistogramSeries {
  labels: Labels;
  /** Per bucket (not cumulative); the last one is above every bound. */
  counts: number[];
  sum: number;
  count: number;
}

/** A histogram fed with per-bucket counts (see the module comment). */
export class BulkHistogram<L extends string = never>
  extends BulkMetric<L, HistogramSeries> {
  readonly type = "histogram";
  readonly bounds: readonly number[];

  constructor(config: MetricConfig<L> & { bounds: readonly number[] }) {
    super(config);
    if (config.bounds.some((b, i) => i > 0 && b <= config.bounds[i - 1]!)) {
      throw new Error(`${config.name}: bucket bounds must increase`);
    }
    this.bounds = [...config.bounds];
  }

  /**
   * Adds a batch: `counts[i]` observations at most `bounds[i]` (and above
   * the bound before), `counts[bounds.length]` above the last bound, and
   * the exact `sum` of them all. A batch of another length is ignored and
   * false returned; negative or non-finite numbers count as zero.
   */
  add(labels: Record<L, string>, counts: readonly number[], sum: number) {
    if (counts.length !== this.bounds.length + 1) return false;
    const series = this.seriesFor(labels, () => ({
      labels: {},
      counts: new Array(this.bounds.length + 1).fill(0),
      sum: 0,
      count: 0,
    }));
    counts.forEach((n, i) => {
      if (!usable(n)) return;
      series.counts[i]! += n;
      series.count += n;
    });
    if (usable(sum)) series.sum += sum;
    return true;
  }

  protected samples(s: HistogramSeries): Sample[] {
    const out: Sample[] = [];
    let cumulative = 0;
    this.bounds.forEach((le, i) => {
      cumulative += s.counts[i]!;
      out.push({
        metricName: `${this.name}_bucket`,
        labels: { ...s.labels, le },
        value: cumulative,
      });
    });
    out.push(
      {
        metricName: `${this.name}_bucket`,
        labels: { ...s.labels, le: "+Inf" },
        value: s.count,
      },
      { metricName: `${this.name}_sum`, labels: s.labels, value: s.sum },
      { metricName: `${this.name}_count`, labels: s.labels, value: s.count },
    );
    return out;
  }
}

interface SummarySeries {
  labels: Labels;
  sum: number;
  count: number;
}

/** A summary without quantiles: `_sum` and `_count`, fed in batches. */
export class BulkSummary<L extends string = never>
  extends BulkMetric<L, SummarySeries> {
  readonly type = "summary";

  /** Adds `count` observations whose values add up to `sum`. */
  add(labels: Record<L, string>, count: number, sum: number): void {
    if (!usable(count)) return;
    const series = this.seriesFor(labels, () => ({
      labels: {},
      sum: 0,
      count: 0,
    }));
    series.count += count;
    if (usable(sum)) series.sum += sum;
  }

  protected samples(s: SummarySeries): Sample[] {
    return [
      { metricName: `${this.name}_sum`, labels: s.labels, value: s.sum },
      { metricName: `${this.name}_count`, labels: s.labels, value: s.count },
    ];
  }
}

/**
 * An unlabelled gauge read when scraped, with no sample at all while
 * `read` returns undefined (an age before the first event is unknown, not
 * zero). A `read` that throws leaves the sample out too.
 */
export class CallbackGauge {
  readonly name: string;
  readonly help: string;
  readonly type = "gauge";
  readonly aggregator = "sum";
  read: () => number | undefined;

  constructor(config: {
    name: string;
    help: string;
    read: () => number | undefined;
    registers?: Registry[];
  }) {
    this.name = config.name;
    this.help = config.help;
    this.read = config.read;
    for (const registry of config.registers ?? []) {
      registry.registerMetric(this as unknown as client.Metric);
    }
  }

  get() {
    let value: number | undefined;
    try {
      value = this.read();
    } catch {
      value = undefined;
    }
    const values: Sample[] = value === undefined || !Number.isFinite(value)
      ? []
      : [{ value, labels: {} }];
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    });
  }

  reset(): void {}
}
