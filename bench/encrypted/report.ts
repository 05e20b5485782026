/**
 * The encrypted bench's tables: one per round, with kudurru's ratios to
 * each other server over the same transport, and (with --rounds) the
 * median of each round's CPU ratio beside ../dnsperf/rounds.ts's medians,
 * which give the q/s ratio only.
 */
import type { RoundRow } from "../dnsperf/rounds.ts";

/** One measured run: the medians' fields plus what the table shows. */
export interface Row extends RoundRow {
  /** Queries sent and not answered (DoT), or requests without a 2xx (DoH). */
  lost: string;
  /** Share of answers that were NOERROR (DoT) or HTTP 2xx (DoH). */
  ok: string;
  /** CPU the upstream used during the run: near zero when every query hits. */
  upstreamCpuMs: number;
}

const REFERENCE = "kudurru";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? sorted[mid]!
    : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** One round's rows, then kudurru's ratios (q/s above 1 and CPU below 1 favour it). */
export function table(rows: readonly Row[]): string[] {
  const lines = [
    "server     transport        q/s   CPU µs/query   lost                ok   NSD CPU ms   kudurru q/s ratio   kudurru CPU ratio",
  ];
  for (const r of rows) {
    const k = rows.find((x) =>
      x.server === REFERENCE && x.transport === r.transport
    );
    const ratio = (x: number | undefined, y: number) =>
      x === undefined || r.server === REFERENCE ? "-" : (x / y).toFixed(2);
    lines.push(
      [
        r.server.padEnd(10),
        r.transport.padEnd(9),
        r.qps.toFixed(0).padStart(10),
        r.cpuMicrosPerQuery.toFixed(1).padStart(14),
        "  " + r.lost.padEnd(16),
        r.ok.padStart(8),
        r.upstreamCpuMs.toFixed(0).padStart(12),
        ratio(k?.qps, r.qps).padStart(19),
        ratio(k?.cpuMicrosPerQuery, r.cpuMicrosPerQuery).padStart(19),
      ].join(" "),
    );
  }
  return lines;
}

/**
 * Per other server and transport, the median over rounds of kudurru's CPU
 * per query divided by the server's, each ratio taken within a round.
 */
export function cpuRatioMedians(rounds: readonly Row[][]): string[] {
  const keys = new Map<string, { server: string; transport: string }>();
  for (const row of rounds.flat()) {
    if (row.server !== REFERENCE) {
      keys.set(`${row.server} ${row.transport}`, row);
    }
  }
  const lines: string[] = [];
  for (const { server, transport } of keys.values()) {
    const ratios = rounds.flatMap((round) => {
      const row = round.find((r) =>
        r.server === server && r.transport === transport
      );
      const ref = round.find((r) =>
        r.server === REFERENCE && r.transport === transport
      );
      return row && ref ? [ref.cpuMicrosPerQuery / row.cpuMicrosPerQuery] : [];
    });
    if (ratios.length === 0) continue;
    lines.push(
      `kudurru / ${server} ${transport}: CPU per query ratio ${
        median(ratios).toFixed(2)
      } (median of ${ratios.map((x) => x.toFixed(2)).join(", ")})`,
    );
  }
  return lines;
}
