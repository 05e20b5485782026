/**
 * DNS over TLS load with `dnsperf -m dot` (../resolver/dnsperf_pass.ts),
 * bounded by a kill timer. dnsperf does not verify the certificate.
 */
import { type DnsperfResult, runDnsperf } from "../resolver/dnsperf_pass.ts";

/** How to run dnsperf over TLS. */
export interface DotLoadOptions {
  port: number;
  queryFile: string;
  /** TLS connections (`-c`). */
  clients: number;
  /** Queries in flight over all connections (`-q`). */
  outstanding: number;
  /** Timed run of this many seconds (`-l`), looping over the file... */
  seconds?: number;
  /** ...or this many passes through the file (`-n`), e.g. 1 to warm. */
  passes?: number;
  /** Killed after this long. */
  killAfterMs: number;
  /** Run dnsperf on its own CPU (../dnsperf/cpu_pinning.ts). */
  pin?: boolean;
}

/** Runs dnsperf over TLS once; throws with its output when it reports nothing. */
export function runDotLoad(opts: DotLoadOptions): Promise<DnsperfResult> {
  return runDnsperf({ ...opts, mode: "dot" });
}
