/**
 * One dnsperf run over UDP against a loopback resolver, bounded by a kill
 * timer, and the figures read back from its report.
 */
import { dnsperfCommand } from "../dnsperf/cpu_pinning.ts";

/** What one dnsperf run reported. */
export interface DnsperfResult {
  sent: number;
  completed: number;
  lost: number;
  /** Answers with rcode NOERROR. */
  noerror: number;
  qps: number;
}

/** How to run dnsperf. */
export interface DnsperfOptions {
  /** `-m`; DoT connections are `clients`. @default "udp" */
  mode?: "udp" | "dot";
  port: number;
  queryFile: string;
  clients: number;
  /** Run for this many seconds (`-l`), looping over the file. */
  seconds?: number;
  /** Run through the file this many times (`-n`), e.g. 1 to warm a cache. */
  passes?: number;
  /** `-Q`; @default unlimited */
  maxQps?: number;
  /** `-q`; @default dnsperf's 100 */
  outstanding?: number;
  /** Killed after this long. */
  killAfterMs: number;
  /** Run dnsperf on its own CPU (see ../dnsperf/cpu_pinning.ts). */
  pin?: boolean;
}

/** Reads the statistics block dnsperf prints at the end of a run. */
export function parseDnsperfReport(text: string): DnsperfResult | null {
  const number = (pattern: RegExp) => {
    const match = pattern.exec(text);
    return match ? Number(match[1]) : null;
  };
  const sent = number(/Queries sent:\s+(\d+)/);
  const completed = number(/Queries completed:\s+(\d+)/);
  const lost = number(/Queries lost:\s+(\d+)/);
  const qps = number(/Queries per second:\s+([\d.]+)/);
  if (sent === null || completed === null || lost === null || qps === null) {
    return null;
  }
  return {
    sent,
    completed,
    lost,
    noerror: number(/Response codes:[^\n]*NOERROR (\d+)/) ?? 0,
    qps,
  };
}

/** Runs dnsperf once; throws with its output when it reports nothing. */
export async function runDnsperf(opts: DnsperfOptions): Promise<DnsperfResult> {
  const mode = opts.mode ?? "udp";
  const args = ["-m", mode, "-s", "127.0.0.1", "-p", String(opts.port)];
  args.push("-d", opts.queryFile, "-c", String(opts.clients));
  if (opts.seconds !== undefined) args.push("-l", String(opts.seconds));
  if (opts.passes !== undefined) args.push("-n", String(opts.passes));
  if (opts.maxQps !== undefined) args.push("-Q", String(opts.maxQps));
  if (opts.outstanding !== undefined) {
    args.push("-q", String(opts.outstanding));
  }
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
      `Cannot read the dnsperf report for ${mode} port ${opts.port} (exit ${out.code}${
        out.signal ? `, ${out.signal}` : ""
      }):\n${text}`,
    );
  }
  return result;
}
