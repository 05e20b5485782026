/**
 * `--pin` for the dnsperf benches: the server under test on CPU 0 (every
 * thread), dnsperf on CPU 1, with taskset (util-linux).
 *
 * Why: unpinned, this 2-core VM runs kudurru's UDP listener in one of two
 * modes, ~17-20 or ~23-30 µs of CPU per query, for seconds to minutes at a
 * time, with 2-3× the cross-CPU interrupts in the slow one (see
 * cross_cpu_interrupts.ts). Pinned, every server runs in one steady mode
 * and gets one whole CPU, as NSD (one process) does anyway; dnsperf gets
 * the other. Unpinned runs stay the default: they are what a user's
 * machine does, and kudurru's main thread and V8's helpers may then use
 * the second CPU.
 */
import { treePids } from "./cpu_time.ts";

/** The CPU the server runs on, and the one dnsperf runs on. */
export const SERVER_CPU = 0;
export const LOAD_CPU = 1;

/**
 * Pins every thread of `pid` and of its descendants (NSD forks its serving
 * processes; threads and processes made later inherit it) to SERVER_CPU;
 * throws when taskset fails.
 */
export async function pinServer(pid: number): Promise<void> {
  for (const each of treePids(pid)) {
    const out = await new Deno.Command("taskset", {
      args: ["--all-tasks", "--pid", "--cpu-list", `${SERVER_CPU}`, `${each}`],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(
        `Cannot pin process ${each} to CPU ${SERVER_CPU}: ${
          new TextDecoder().decode(out.stderr).trim()
        }`,
      );
    }
  }
}

/** The command and arguments that run dnsperf, on LOAD_CPU when `pin`. */
export function dnsperfCommand(
  args: string[],
  pin: boolean,
): { command: string; args: string[] } {
  return pin
    ? {
      command: "taskset",
      args: ["--cpu-list", String(LOAD_CPU), "dnsperf", ...args],
    }
    : { command: "dnsperf", args };
}
