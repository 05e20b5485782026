/**
 * `--rounds N`: the same servers measured N times, the order reversed every
 * other round (the first server of a round must not always be the one a
 * fresh machine state favours), summarised by medians. Single runs on the
 * project's VMs swing by ±10 %, as much as the targets' margins.
 */

/** What one server answered over one transport in one round. */
export interface RoundRow {
  server: string;
  transport: string;
  qps: number;
  cpuMicrosPerQuery: number;
}

/** The servers of round `round` (0-based): reversed in every odd round. */
export function roundOrder<T>(servers: readonly T[], round: number): T[] {
  return round % 2 === 0 ? [...servers] : [...servers].reverse();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[mid]!
    : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Per server and transport, the median q/s and CPU per query over the
 * rounds, and the median of each round's ratio of `reference`'s q/s to the
 * server's (the ratio is taken within a round, where both ran minutes
 * apart, then the median across rounds).
 */
export function medianSummary(
  rounds: readonly RoundRow[][],
  reference = "kudurru",
): string[] {
  const keys = new Map<string, { server: string; transport: string }>();
  for (const row of rounds.flat()) {
    keys.set(`${row.server} ${row.transport}`, row);
  }
  const lines = [
    `medians over ${rounds.length} rounds:`,
    "server          transport   q/s (median)   CPU µs/query   kudurru q/s ratio (median of rounds)",
  ];
  for (const { server, transport } of keys.values()) {
    const mine = (round: readonly RoundRow[]) =>
      round.find((r) => r.server === server && r.transport === transport);
    const rows = rounds.map(mine).filter((r) => r !== undefined);
    const ratios = rounds.flatMap((round) => {
      const row = mine(round);
      const ref = round.find((r) =>
        r.server === reference && r.transport === transport
      );
      return row && ref && server !== reference ? [ref.qps / row.qps] : [];
    });
    lines.push(
      [
        server.padEnd(15),
        transport.padEnd(9),
        median(rows.map((r) => r.qps)).toFixed(0).padStart(14),
        median(rows.map((r) => r.cpuMicrosPerQuery)).toFixed(1).padStart(14),
        (ratios.length > 0
          ? `${median(ratios).toFixed(2)} (${
            ratios.map((x) => x.toFixed(2)).join(", ")
          })`
          : "-").padStart(12),
      ].join(" "),
    );
  }
  return lines;
}
