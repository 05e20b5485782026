/**
 * A server's resident memory while it sends a transfer, from
 * /proc/<pid>/status. NSD forks its serving process from the one that
 * loaded the zone, and the two share the zone's pages copy-on-write, so the
 * processes' RSS is not summed: the figure is the largest process's.
 * smaps_rollup (PSS) would split shared pages fairly, but reading it walks
 * the page tables of a large Deno process for ~17 ms under its memory-map
 * lock, which would slow the server it measures.
 */
import { treePids } from "../dnsperf/cpu_time.ts";

/** VmRSS and VmHWM of one process, in KiB; undefined once it has ended. */
export function processMemory(
  pid: number,
): { rssKiB: number; hwmKiB: number } | undefined {
  try {
    const status = Deno.readTextFileSync(`/proc/${pid}/status`);
    const field = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
    return { rssKiB: field("VmRSS"), hwmKiB: field("VmHWM") };
  } catch {
    return undefined;
  }
}

/** What the sampler saw between start and stop. */
export interface MemoryPeak {
  /** The largest process's RSS when sampling started, KiB. */
  beforeKiB: number;
  /** The largest RSS of any process of the tree while sampling, KiB. */
  peakKiB: number;
  samples: number;
}

/**
 * Samples the RSS of `pid` and its descendants every `everyMs` until
 * stop(). A process whose VmHWM (its lifetime peak) rose meanwhile peaked
 * during the sampling, so its new VmHWM counts too: it catches a peak
 * between two samples.
 */
export function sampleMemory(pid: number, everyMs = 5): {
  stop(): MemoryPeak;
} {
  const pids = treePids(pid);
  const hwmBefore = new Map<number, number>();
  let beforeKiB = 0;
  for (const p of pids) {
    const m = processMemory(p);
    if (m === undefined) continue;
    hwmBefore.set(p, m.hwmKiB);
    beforeKiB = Math.max(beforeKiB, m.rssKiB);
  }
  let peakKiB = beforeKiB;
  let samples = 0;
  const sample = () => {
    samples++;
    for (const p of pids) {
      peakKiB = Math.max(peakKiB, processMemory(p)?.rssKiB ?? 0);
    }
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      for (const p of pids) {
        const m = processMemory(p);
        const before = hwmBefore.get(p);
        if (m !== undefined && before !== undefined && m.hwmKiB > before) {
          peakKiB = Math.max(peakKiB, m.hwmKiB);
        }
      }
      return { beforeKiB, peakKiB, samples };
    },
  };
}
