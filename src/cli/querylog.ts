/**
 * `kudurru querylog`: the newest answered queries from `<dataDir>/querylog.db`,
 * filtered by client, domain and status, as a table or JSON; with -f, new
 * queries as they are written until Ctrl-C. Reads the file directly (WAL lets
 * it do so while the server writes), never changes it.
 */
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { parseDuration } from "../config/duration.ts";
import { typeName } from "../dns/wire/constants.ts";
import { openQueryLogDb, QUERYLOG_DB_FILE } from "../querylog/db.ts";
import {
  FilterError,
  latestEventId,
  type LoggedEvent,
  MAX_SEARCH_LIMIT,
  searchEvents,
  tail,
} from "../querylog/queries.ts";
import { type Command, parseFlags, UsageError } from "./command.ts";
import {
  explainReadFailure,
  resolveDataDir,
  STORE_FLAGS,
} from "./local_store.ts";

export interface QuerylogCommandOptions {
  /** Ends -f (tests); without it, SIGINT does. */
  signal?: AbortSignal;
  /** How often -f looks for new queries. @default 500 */
  pollMs?: number;
  /** @default Date.now */
  now?: () => number;
  /** Opens querylog.db (tests). @default openQueryLogDb, read-only */
  openDb?: (path: string) => DatabaseSync;
}

const FLAGS = {
  ...STORE_FLAGS,
  client: { type: "string" },
  domain: { type: "string" },
  status: { type: "string" },
  since: { type: "string" },
  until: { type: "string" },
  limit: { type: "string" },
  before: { type: "string" },
  follow: { type: "boolean", short: "f" },
  output: { type: "string", short: "o" },
} as const;

/** `querylog` with injectable stop signal, poll interval and clock. */
export function makeQuerylogCommand(
  opts: QuerylogCommandOptions = {},
): Command {
  const now = opts.now ?? Date.now;
  return {
    name: "querylog",
    summary: "Show answered queries from the query log",
    usage:
      "  kudurru querylog [--client ADDR|CIDR] [--domain TEXT|*.SUFFIX] [--status S[,S]] [--since 1h|ISO] [--until 1h|ISO]\n" +
      "                   [--limit N] [--before CURSOR] [-f|--follow] [-o table|json] [--data-dir DIR] [--config FILE]\n" +
      "  Newest first. --status takes any status or 'blocked'; -f prints new queries until Ctrl-C (-o json: one per line).",
    async run(args, io) {
      const { values } = parseFlags("querylog", args, FLAGS, 0);
      const format = values.output ?? "table";
      if (format !== "table" && format !== "json") {
        throw new UsageError(
          `kudurru querylog: -o must be table or json, not "${format}"`,
        );
      }
      const limit = values.limit === undefined
        ? 100
        : parseCount("querylog", "--limit", values.limit);
      if (limit > MAX_SEARCH_LIMIT) {
        throw new UsageError(
          `kudurru querylog: --limit is at most ${MAX_SEARCH_LIMIT} (page on with --before)`,
        );
      }
      if (
        values.follow &&
        (values.until !== undefined || values.before !== undefined)
      ) {
        throw new UsageError(
          "kudurru querylog: -f follows new queries; it cannot be combined with --until or --before",
        );
      }
      const filters = {
        ...filterFlag("client", values.client),
        ...filterFlag("domain", values.domain),
        ...filterFlag("status", values.status),
      };
      const window = timeWindow(
        "querylog",
        values.since,
        values.until,
        now(),
      );
      const open = opts.openDb ?? openQueryLogForReading;
      const db = open(join(resolveDataDir(values), QUERYLOG_DB_FILE));
      try {
        // One snapshot for both: -f goes on right after the newest id the
        // page could show, so no query is printed twice or skipped.
        const { newest, page } = inOneSnapshot(db, () => ({
          newest: latestEventId(db),
          page: usageErrors(() =>
            searchEvents(db, {
              ...filters,
              limit,
              ...window,
              ...(values.before ? { before: values.before } : {}),
            })
          ),
        }));
        if (!values.follow) {
          if (format === "json") {
            io.stdout(JSON.stringify(page, null, 2) + "\n");
          } else {
            io.stdout(renderEventTable(page.events));
            if (page.nextCursor) {
              io.stderr(`More: add --before ${page.nextCursor}\n`);
            }
          }
          return 0;
        }
        /** The table's header comes with the first rows, whenever they come. */
        let headed = false;
        const print = (events: LoggedEvent[], first: boolean) => {
          if (format === "json") {
            for (const e of events) io.stdout(JSON.stringify(e) + "\n");
          } else if (events.length > 0 || first) {
            io.stdout(renderEventTable(events, !headed));
            headed ||= events.length > 0;
          }
        };
        print([...page.events].reverse(), true);
        await follow(
          db,
          newest,
          filters,
          opts,
          (events) => print(events, false),
        );
        return 0;
      } finally {
        db.close();
      }
    },
  };
}

export const querylogCommand: Command = makeQuerylogCommand();

/** querylog.db opened read-only, with an error that says what to do. */
export function openQueryLogForReading(path: string): DatabaseSync {
  try {
    return openQueryLogDb(path, { readOnly: true });
  } catch (err) {
    throw explainReadFailure(path, err);
  }
}

/** Runs `read` in one read transaction: every query sees the same snapshot. */
function inOneSnapshot<T>(db: DatabaseSync, read: () => T): T {
  db.exec("BEGIN");
  try {
    return read();
  } finally {
    db.exec("COMMIT");
  }
}

/** Polls tail() until the signal (or SIGINT) ends it. */
async function follow(
  db: DatabaseSync,
  afterId: number,
  filters: { client?: string; domain?: string; status?: string },
  opts: QuerylogCommandOptions,
  print: (events: LoggedEvent[]) => void,
): Promise<void> {
  const stop = new AbortController();
  opts.signal?.addEventListener("abort", () => stop.abort(), { once: true });
  const onInterrupt = () => stop.abort();
  if (!opts.signal) Deno.addSignalListener("SIGINT", onInterrupt);
  try {
    let lastId = afterId;
    while (!stop.signal.aborted) {
      const page = tail(db, lastId, filters);
      lastId = page.lastId;
      print(page.events);
      if (page.events.length === 0) {
        await sleep(opts.pollMs ?? 500, stop.signal);
      }
    }
  } finally {
    if (!opts.signal) Deno.removeSignalListener("SIGINT", onInterrupt);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

/** Filter errors (an unknown status, a bad cursor) are usage errors. */
function usageErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof FilterError || err instanceof RangeError) {
      throw new UsageError(`kudurru querylog: ${err.message}`);
    }
    throw err;
  }
}

/** A positive integer flag, or a UsageError naming it. */
export function parseCount(
  command: string,
  flag: string,
  text: string,
): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    throw new UsageError(
      `kudurru ${command}: ${flag} must be a positive whole number, not "${text}"`,
    );
  }
  return n;
}

/**
 * A --since/--until value in ms: a duration back from now ("90m", "24h",
 * "7d") or a date ("2030-01-01", "2030-01-01T12:00:00Z"). A date alone is
 * midnight in the machine's time zone, the one times are shown in (as a
 * date and time without a zone is); a day that does not exist (2030-02-30)
 * is refused, not moved on into the next month.
 */
export function parseTimeFlag(
  command: string,
  flag: string,
  text: string,
  now: number,
): number {
  const back = parseDuration(text);
  if (back !== undefined) return now - back;
  const date = /^(\d{4})-(\d{2})-(\d{2})(?=$|T)/.exec(text);
  if (date) {
    const [year, month, day] = date.slice(1).map(Number) as [
      number,
      number,
      number,
    ];
    if (!isDay(year, month, day)) {
      throw new UsageError(
        `kudurru ${command}: --${flag} "${text}" names a day that does not exist`,
      );
    }
    if (text.length === 10) return new Date(year, month - 1, day).getTime();
    const ms = Date.parse(text);
    if (!Number.isNaN(ms)) return ms;
  }
  throw new UsageError(
    `kudurru ${command}: --${flag} takes a duration such as "1h" or "7d", or a date such as "2030-01-01T12:00:00Z", not "${text}"`,
  );
}

/** True when the calendar has this day (month 1-12). */
function isDay(year: number, month: number, day: number): boolean {
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth;
}

/**
 * --since and --until in ms (each only when given); a window that ends
 * before it starts is a usage error, not an empty result.
 */
export function timeWindow(
  command: string,
  since: string | undefined,
  until: string | undefined,
  now: number,
): { since?: number; until?: number } {
  const window: { since?: number; until?: number } = {};
  if (since !== undefined) {
    window.since = parseTimeFlag(command, "since", since, now);
  }
  if (until !== undefined) {
    window.until = parseTimeFlag(command, "until", until, now);
  }
  if (
    window.since !== undefined && window.until !== undefined &&
    window.since >= window.until
  ) {
    throw new UsageError(
      `kudurru ${command}: --since (${since}) is not before --until (${until})`,
    );
  }
  return window;
}

/** A filter flag's value, when given; given empty, a usage error. */
function filterFlag<F extends "client" | "domain" | "status">(
  flag: F,
  text: string | undefined,
): { [K in F]?: string } {
  if (text === undefined) return {};
  if (text.trim() === "") {
    throw new UsageError(`kudurru querylog: --${flag} needs a value`);
  }
  return { [flag]: text } as { [K in F]?: string };
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** "2030-01-01 00:00:00.123" in the machine's time zone. */
export function formatLogTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${
      pad(d.getMilliseconds(), 3)
    }`;
}

/** "85µs", "12.3ms", "2.0s". */
export function formatMicros(us: number): string {
  if (us < 1000) return `${us}µs`;
  if (us < 1_000_000) return `${(us / 1000).toFixed(1)}ms`;
  return `${(us / 1_000_000).toFixed(1)}s`;
}

/** Who answered: the upstream, the list and rule of a block, else the stage. */
function answeredBy(e: LoggedEvent): string {
  if (e.list !== undefined) return e.rule ? `${e.list}: ${e.rule}` : e.list;
  return e.upstream ?? e.stage;
}

const HEADER = [
  "TIME",
  "CLIENT",
  "QNAME",
  "TYPE",
  "STATUS",
  "ANSWERED BY",
  "DURATION",
];
/** So that the chunks -f prints line up with each other, mostly. */
const MIN_WIDTHS = [23, 15, 32, 5, 14, 24, 8];

/** The events as an aligned table (with its header unless `header` is false). */
export function renderEventTable(events: LoggedEvent[], header = true): string {
  if (events.length === 0) return header ? "No queries found.\n" : "";
  const rows = events.map((e) => [
    formatLogTime(e.time),
    e.clientAddress,
    e.qname,
    typeName(e.qtype),
    e.status,
    answeredBy(e),
    formatMicros(e.durationUs),
  ]);
  const all = header ? [HEADER, ...rows] : rows;
  const widths = MIN_WIDTHS.map((min, i) =>
    Math.max(min, ...all.map((r) => r[i]!.length))
  );
  return all.map((cells) =>
    cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()
  ).join("\n") + "\n";
}
