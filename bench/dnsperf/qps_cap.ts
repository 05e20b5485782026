/**
 * dnsperf's `-Q` caps what it sends: a server that answers at the cap was
 * held back by it, and a ratio against it says nothing. (On a faster host
 * NSD and Unbound reached the old default of 200,000 q/s.)
 */

/** Within this share of the cap, a rate counts as capped. */
const AT_CAP = 0.98;

/** A line naming the servers whose rate met `maxQps`, or none. */
export function cappedNote(
  rows: readonly { server: string; qps: number }[],
  maxQps: number,
): string[] {
  const capped = rows.filter((r) => r.qps >= maxQps * AT_CAP);
  if (capped.length === 0) return [];
  const names = [...new Set(capped.map((r) => r.server))].join(", ");
  return [
    `note: ${names} answered at the --qps cap (${maxQps}); raise it to measure their rate`,
  ];
}
