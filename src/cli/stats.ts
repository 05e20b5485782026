/**
 * `kudurru stats`: what the dashboard's cards show, from the rollups in
 * `<dataDir>/querylog.db`: totals, top domains, top blocked domains, top
 * clients and the upstreams, over a window (24 h unless --since says).
 */
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { openQueryLogDb, QUERYLOG_DB_FILE } from "../querylog/db.ts";
import {
  topClients,
  topDomains,
  totals,
  upstreamStats,
} from "../querylog/queries.ts";
import {
  type Command,
  type CommandIO,
  parseFlags,
  UsageError,
} from "./command.ts";
import { resolveDataDir, STORE_FLAGS } from "./local_store.ts";
import {
  formatLogTime,
  formatMicros,
  parseCount,
  timeWindow,
} from "./querylog.ts";

export interface StatsCommandOptions {
  /** @default Date.now */
  now?: () => number;
}

const FLAGS = {
  ...STORE_FLAGS,
  since: { type: "string" },
  until: { type: "string" },
  limit: { type: "string" },
  output: { type: "string", short: "o" },
} as const;

/** The whole report, as -o json prints it. */
export function statsReport(
  db: DatabaseSync,
  window: { since: number; until?: number },
  limit: number,
) {
  return {
    since: window.since,
    until: window.until ?? null,
    totals: totals(db, window),
    topDomains: topDomains(db, { ...window, limit }),
    topBlockedDomains: topDomains(db, { ...window, limit, blocked: true }),
    topClients: topClients(db, { ...window, limit }),
    upstreams: upstreamStats(db, window),
  };
}

/** `stats` with an injectable clock. */
export function makeStatsCommand(opts: StatsCommandOptions = {}): Command {
  const now = opts.now ?? Date.now;
  return {
    name: "stats",
    summary: "Show query statistics from the query log",
    usage:
      "  kudurru stats [--since 24h|ISO] [--until 1h|ISO] [--limit N] [-o table|json] [--data-dir DIR] [--config FILE]",
    // A promise either way: errors reach the caller as rejections.
    run: (args, io) => Promise.resolve().then(() => runStats(args, io, now)),
  };
}

function runStats(args: string[], io: CommandIO, now: () => number): number {
  const { values } = parseFlags("stats", args, FLAGS, 0);
  const format = values.output ?? "table";
  if (format !== "table" && format !== "json") {
    throw new UsageError(
      `kudurru stats: -o must be table or json, not "${format}"`,
    );
  }
  const window = timeWindow(
    "stats",
    values.since ?? "24h",
    values.until,
    now(),
  ) as { since: number; until?: number };
  const limit = values.limit === undefined
    ? 10
    : parseCount("stats", "--limit", values.limit);
  const db = openQueryLogDb(
    join(resolveDataDir(values), QUERYLOG_DB_FILE),
    { readOnly: true },
  );
  try {
    const report = statsReport(db, window, limit);
    io.stdout(
      format === "json"
        ? JSON.stringify(report, null, 2) + "\n"
        : renderReport(report),
    );
    return 0;
  } finally {
    db.close();
  }
}

export const statsCommand: Command = makeStatsCommand();

const number = (n: number) => n.toLocaleString("en-US");

function table(header: string[], rows: string[][]): string {
  if (rows.length === 0) return "  (none)\n";
  const all = [header, ...rows];
  const widths = header.map((_, i) =>
    Math.max(...all.map((r) => r[i]!.length))
  );
  return all.map((cells) =>
    "  " +
    cells.map((c, i) => i < cells.length - 1 ? c.padStart(widths[i]!) : c).join(
      "  ",
    )
  ).join("\n") + "\n";
}

function renderReport(r: ReturnType<typeof statsReport>): string {
  const t = r.totals;
  const until = r.until === null ? "now" : formatLogTime(r.until);
  let out = `Queries from ${formatLogTime(r.since)} to ${until}\n` +
    `  total ${number(t.queries)}   blocked ${
      number(t.blocked)
    } (${t.blockedPercent} %)` +
    `   cached ${number(t.cached)}   forwarded ${number(t.forwarded)}` +
    `   clients ${number(t.clients)}   average ${
      formatMicros(t.avgDurationUs)
    }\n`;
  const statuses = Object.entries(t.byStatus).sort((a, b) => b[1] - a[1]);
  if (statuses.length > 0) {
    out += `  by status: ${
      statuses.map(([s, n]) => `${s} ${number(n)}`).join(", ")
    }\n`;
  }
  out += "\nTop domains\n" + table(
    ["QUERIES", "BLOCKED", "DOMAIN"],
    r.topDomains.map((d) => [number(d.queries), number(d.blocked), d.domain]),
  );
  out += "\nTop blocked domains\n" + table(
    ["BLOCKED", "DOMAIN"],
    r.topBlockedDomains.map((d) => [number(d.blocked), d.domain]),
  );
  out += "\nTop clients\n" + table(
    ["QUERIES", "BLOCKED", "CLIENT"],
    r.topClients.map((c) => [number(c.queries), number(c.blocked), c.client]),
  );
  out += "\nUpstreams\n" + table(
    ["QUERIES", "ERRORS", "AVERAGE", "UPSTREAM"],
    r.upstreams.map((u) => [
      number(u.queries),
      number(u.errors),
      formatMicros(u.avgDurationUs),
      u.upstream,
    ]),
  );
  return out;
}
