/**
 * `kudurru stats`: what the dashboard's cards show, from the rollups in
 * `<dataDir>/querylog.db`: totals, queries over time by status, top
 * domains, top blocked domains, top clients and the upstreams, over a
 * window (24 h unless --since says); with --client, that client's summary.
 * With a context (target.ts) the numbers come from the context's server
 * (stats_api.ts), printed the same way.
 */
import { resolve } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { QUERYLOG_DB_FILE } from "../querylog/db.ts";
import ipaddr from "ipaddr.js";
import {
  clientSummary,
  queriesOverTime,
  topClients,
  topDomains,
  totals,
  upstreamStats,
} from "../querylog/queries.ts";
import { HIDDEN_CLIENT } from "../querylog/event_filter.ts";
import { isIpAddress } from "../dns/ip_text.ts";
import { MINUTE_MS } from "../querylog/settings.ts";
import { MAX_TOP_LIMIT, overTimeBucketMs } from "../querylog/stats.ts";
import {
  type Command,
  type CommandIO,
  parseFlags,
  UsageError,
} from "./command.ts";
import { resolveDataDir } from "./local_store.ts";
import { formatLogMinute, formatLogTime, timeWindow } from "./log_time.ts";
import { formatMicros } from "./event_table.ts";
import { parseCount } from "./querylog.ts";
import {
  explainQueryLogFailure,
  openQueryLogForReading,
} from "./querylog_open.ts";
import { resolveTarget, TARGET_FLAGS } from "./target.ts";
import { ApiObjects } from "./api_objects.ts";
import { statsOverApi, type StatsView } from "./stats_api.ts";

export interface StatsCommandOptions {
  /** @default Date.now */
  now?: () => number;
}

const FLAGS = {
  ...TARGET_FLAGS,
  since: { type: "string" },
  until: { type: "string" },
  limit: { type: "string" },
  client: { type: "string" },
  output: { type: "string", short: "o" },
} as const;

/**
 * The whole report, as -o json prints it. Without `until` the window ends
 * at `now`, not at the newest minute with data (one event stamped in the
 * future must not stretch it); `until` is then null in the report.
 */
export function statsReport(
  db: DatabaseSync,
  window: { since: number; until?: number },
  limit: number,
  client: string | undefined,
  now: number,
) {
  const span = { since: window.since, until: window.until ?? now };
  // The window asked for, not the minutes it touches: 24 h is hourly.
  const bucketMs = overTimeBucketMs((span.until - span.since) / MINUTE_MS);
  return {
    since: window.since,
    until: window.until ?? null,
    totals: totals(db, span),
    overTime: {
      bucketMs,
      buckets: queriesOverTime(db, { ...span, bucketMs, zone: "local" }),
    },
    topDomains: topDomains(db, { ...span, limit }),
    topBlockedDomains: topDomains(db, { ...span, limit, blocked: true }),
    topClients: topClients(db, { ...span, limit }),
    upstreams: upstreamStats(db, span),
    ...(client === undefined
      ? {}
      : { client: clientSummary(db, client, { ...span }) }),
  };
}

/** What statsReport makes. */
export type StatsReport = ReturnType<typeof statsReport>;

/** The report's window: --since/--until, 24 h up to --until (or now) by default. */
function statsWindow(
  since: string | undefined,
  until: string | undefined,
  now: number,
): { since: number; until?: number } {
  const window = timeWindow("stats", since, until, now);
  return {
    ...window,
    since: window.since ?? (window.until ?? now) - 24 * 3_600_000,
  };
}

/**
 * --client: an address (IPv4-mapped IPv6 as its IPv4 address; the summary
 * finds either spelling) or the privacy placeholder "hidden".
 */
function clientFlag(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (text === HIDDEN_CLIENT) return text;
  if (!isIpAddress(text)) {
    throw new UsageError(
      `kudurru stats: --client takes an address such as 192.0.2.7, not "${text}"`,
    );
  }
  return ipaddr.process(text).toString();
}

/** `stats` with an injectable clock. */
export function makeStatsCommand(opts: StatsCommandOptions = {}): Command {
  const now = opts.now ?? Date.now;
  return {
    name: "stats",
    summary: "Show query statistics from the query log",
    usage:
      "  kudurru stats [--since 24h|ISO] [--until 1h|ISO] [--limit N] [--client ADDR] [-o table|json]\n" +
      "                [--context NAME | --data-dir DIR | --config FILE]\n" +
      `  --limit: rows per top list, 1 to ${MAX_TOP_LIMIT}. Times are the machine's local time, with their UTC offset unless\n` +
      "  the zone is UTC; queries over time are counted per local hour (a day: per local day).\n" +
      "  Reads the server of --context, or of the current context (kudurru login); with --data-dir or --config,\n" +
      "  or when not logged in, this machine's data directory. Top clients need get on querylog there.",
    run: (args, io) => runStats(args, io, now),
  };
}

async function runStats(
  args: string[],
  io: CommandIO,
  now: () => number,
): Promise<number> {
  const { values } = parseFlags("stats", args, FLAGS, 0);
  const format = values.output ?? "table";
  if (format !== "table" && format !== "json") {
    throw new UsageError(
      `kudurru stats: -o must be table or json, not "${format}"`,
    );
  }
  const clock = now();
  const window = statsWindow(values.since, values.until, clock);
  const limit = values.limit === undefined
    ? 10
    : parseCount("stats", "--limit", values.limit);
  if (limit > MAX_TOP_LIMIT) {
    throw new UsageError(
      `kudurru stats: --limit is at most ${MAX_TOP_LIMIT}, not ${limit}`,
    );
  }
  const client = clientFlag(values.client);
  const print = (report: StatsView) =>
    io.stdout(
      format === "json"
        ? JSON.stringify(report, null, 2) + "\n"
        : renderReport(report),
    );
  const target = await resolveTarget("stats", values, io);
  if (target.kind === "api") {
    using api = await ApiObjects.open(target.context);
    const report = await statsOverApi(api, window, limit, client);
    if (report.topClients === undefined && format === "json") {
      io.stderr(`kudurru stats: ${NO_TOP_CLIENTS}\n`);
    }
    print(report);
    return 0;
  }
  const path = resolve(resolveDataDir(target.store), QUERYLOG_DB_FILE);
  const db = openQueryLogForReading(path);
  try {
    print(statsReport(db, window, limit, client, clock));
    return 0;
  } catch (err) {
    throw explainQueryLogFailure(path, err);
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

/** Why a report over the API has no top clients. */
const NO_TOP_CLIENTS =
  "top clients left out: naming clients needs get on querylog, which this context's token lacks";

function renderReport(r: StatsView): string {
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
  out += `\nQueries over time (per ${bucketName(r.overTime.bucketMs)})\n` +
    table(
      ["TIME", "QUERIES", "BLOCKED", "CACHED", "FORWARDED"],
      r.overTime.buckets.map((b) => [
        formatLogMinute(b.time),
        number(b.total),
        number(b.blocked),
        number((b.byStatus.cached ?? 0) + (b.byStatus.cached_stale ?? 0)),
        number(b.byStatus.forwarded ?? 0),
      ]),
    );
  out += "\nTop domains\n" + table(
    ["QUERIES", "BLOCKED", "DOMAIN"],
    r.topDomains.map((d) => [number(d.queries), number(d.blocked), d.domain]),
  );
  out += "\nTop blocked domains\n" + table(
    ["BLOCKED", "DOMAIN"],
    r.topBlockedDomains.map((d) => [number(d.blocked), d.domain]),
  );
  out += "\nTop clients\n" +
    (r.topClients === undefined ? `  (${NO_TOP_CLIENTS})\n` : table(
      ["QUERIES", "BLOCKED", "CLIENT"],
      r.topClients.map((
        c,
      ) => [number(c.queries), number(c.blocked), c.client]),
    ));
  out += "\nUpstreams\n" + table(
    ["QUERIES", "ERRORS", "AVERAGE", "UPSTREAM"],
    r.upstreams.map((u) => [
      number(u.queries),
      number(u.errors),
      formatMicros(u.avgDurationUs),
      u.upstream,
    ]),
  );
  if (r.client !== undefined) out += renderClient(r.client);
  return out;
}

function bucketName(ms: number): string {
  const minutes = ms / MINUTE_MS;
  if (minutes % 1440 === 0) return `${minutes / 1440} d`;
  if (minutes % 60 === 0) return `${minutes / 60} h`;
  return `${minutes} min`;
}

function renderClient(
  c: NonNullable<StatsReport["client"]>,
): string {
  const seen = (ms: number | null) => ms === null ? "never" : formatLogTime(ms);
  let out = `\nClient ${c.client}\n` +
    `  queries ${number(c.queries)}   blocked ${number(c.blocked)}` +
    `   first seen ${seen(c.firstSeen)}   last seen ${seen(c.lastSeen)}\n`;
  const statuses = Object.entries(c.recent.byStatus).sort((a, b) =>
    b[1] - a[1]
  );
  if (statuses.length > 0) {
    out += `  its last ${number(c.recent.events)} queries: ${
      statuses.map(([s, n]) => `${s} ${number(n)}`).join(", ")
    }\n`;
  }
  return out + table(
    ["QUERIES", "DOMAIN"],
    c.recent.topDomains.map((d) => [number(d.queries), d.domain]),
  );
}
