/**
 * Cross-CPU interrupts on this machine so far: rescheduling (RES) and
 * function-call (CAL) IPIs from /proc/interrupts, summed over CPUs. Most
 * come from one thread waking another on the other CPU (a datagram for a
 * sleeping receiver). In this VM each costs tens of µs, and kudurru's UDP
 * runs fall into two modes: ~0.02-0.05 IPIs per query at ~19 µs of CPU per
 * query, or 0.2-0.5 at 27-34 µs (the worker keeps draining its socket and
 * sleeping, and every datagram wakes it). Printed per query by run.ts so a
 * run can be told apart by mode, not only by its throughput.
 */

/** RES + CAL interrupts since boot; NaN where /proc/interrupts is unreadable. */
export function crossCpuInterrupts(): number {
  let text: string;
  try {
    text = Deno.readTextFileSync("/proc/interrupts");
  } catch {
    return NaN;
  }
  const cpus = text.split("\n", 1)[0]!.trim().split(/\s+/).length;
  let total = 0;
  for (const line of text.split("\n")) {
    const fields = line.trim().split(/\s+/);
    if (fields[0] !== "RES:" && fields[0] !== "CAL:") continue;
    for (const count of fields.slice(1, 1 + cpus)) total += Number(count);
  }
  return total;
}
