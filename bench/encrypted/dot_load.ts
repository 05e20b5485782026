/**
 * DNS over TLS load with `dnsperf -m dot`, bounded by a kill timer; the
 * report is read as the UDP runs read theirs (../resolver/dnsperf_pass.ts),
 * which only speaks UDP. dnsperf does not verify the certificate.
 */
import { dnsperfCommand } from "../dnsperf/cpu_pinning.ts";
import {
  type DnsperfResult,
  parseDnsperfReport,
} from "../resolver/dnsperf_pass.ts";

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
export async function runDotLoad(opts: DotLoadOptions): Promise<DnsperfResult> {
  const args = ["-m", "dot", "-s", "127.0.0.1", "-p", String(opts.port)];
  args.push("-d", opts.queryFile, "-c", String(opts.clients));
  args.push("-q", String(opts.outstanding));
  if (opts.seconds !== undefined) args.push("-l", String(opts.seconds));
  if (opts.passes !== undefined) args.push("-n", String(opts.passes));
  const run = dnsperfCommand(args, opts.pin === true);
  const out = await new Deno.Command(run.command, {
    args: run.args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(opts.killAfterMs),
  }).output();
  const decoder = new TextDecoder();
  const text = decoder.decode(out.stdout) + decoder.decode(out.stderr);
  const result = parseDnsperfReport(text);
  if (result === null) {
    throw new Error(
      `Cannot read the dnsperf report for DoT port ${opts.port} (exit ${out.code}${
        out.signal ? `, ${out.signal}` : ""
      }):\n${text.slice(-2000)}`,
    );
  }
  return result;
}
