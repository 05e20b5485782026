/**
 * `kudurru querylog`: the newest answered queries from `<dataDir>/querylog.db`,
 * filtered by client, domain and status, as a table or JSON; with -f, new
 * queries as they are written until Ctrl-C. Reads the file directly (WAL lets
 * it do so while the server writes), never changes it.
 */
import { resolve } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { QUERYLOG_DB_FILE } from "../querylog/db.ts";
import {
  type EventFilters,
  FilterError,
  latestEventId,
  type LoggedEvent,
  MAX_SEARCH_LIMIT,
  searchEvents,
  tail,
} from "../querylog/queries.ts";
import { type Command, parseFlags, UsageError } from "./command.ts";
import { resolveDataDir, STORE_FLAGS } from "./local_store.ts";
import {
  explainQueryLogFailure,
  openQueryLogForReading,
} from "./querylog_open.ts";
import { renderEventTable } from "./event_table.ts";
import { qtypeFromText } from "../dns/wire/constants.ts";
import { rcodeFromName } from "../dns/wire/rcode_name.ts";
import { timeWindow } from "./log_time.ts";

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
  type: { type: "string" },
  rcode: { type: "string" },
  upstream: { type: "string" },
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
      "  kudurru querylog [--client ADDR|CIDR] [--domain TEXT|*.SUFFIX] [--status S[,S]] [--type T[,T]] [--rcode R[,R]]\n" +
      "                   [--upstream U[,U]] [--since 1h|ISO] [--until 1h|ISO] [--limit N] [--before CURSOR] [-f|--follow] [-o table|json]\n" +
      "                   [--data-dir DIR] [--config FILE]\n" +
      "  Newest first. --status takes any status or 'blocked'; --type a type name or number (AAAA, 65); --rcode a\n" +
      "  response code name or number (NXDOMAIN, 3); -f prints new queries until Ctrl-C (-o json: one per line).\n" +
      "  Times are the machine's local time, with their UTC offset unless the zone is UTC; a date or time without\n" +
      "  a zone in --since/--until is local too.",
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
        ...codesFlag("type", values.type, qtypeFromText),
        ...codesFlag("rcode", values.rcode, rcodeFromName),
        ...filterFlag("upstream", values.upstream),
      };
      const window = timeWindow(
        "querylog",
        values.since,
        values.until,
        now(),
      );
      const open = opts.openDb ?? openQueryLogForReading;
      const path = resolve(resolveDataDir(values), QUERYLOG_DB_FILE);
      const db = open(path);
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
      } catch (err) {
        throw explainQueryLogFailure(path, err);
      } finally {
        db.close();
      }
    },
  };
}

export const querylogCommand: Command = makeQuerylogCommand();

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
  filters: EventFilters,
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
 * --type or --rcode: names or numbers, comma-separated ("A,AAAA",
 * "nxdomain,servfail"), as the codes the log stores.
 */
function codesFlag(
  flag: "type" | "rcode",
  text: string | undefined,
  code: (word: string) => number | undefined,
): { qtypes?: number[] } | { rcodes?: number[] } {
  if (text === undefined) return {};
  const words = text.split(",").map((w) => w.trim()).filter(Boolean);
  if (words.length === 0) {
    throw new UsageError(`kudurru querylog: --${flag} needs a value`);
  }
  const codes = words.map((word) => {
    const n = code(word);
    if (n === undefined) {
      throw new UsageError(
        flag === "type"
          ? `kudurru querylog: --type takes a type such as AAAA or 65, not "${word}"`
          : `kudurru querylog: --rcode takes a response code such as NXDOMAIN or 3, not "${word}"`,
      );
    }
    return n;
  });
  return flag === "type" ? { qtypes: codes } : { rcodes: codes };
}

/** A filter flag's value, when given; given empty, a usage error. */
function filterFlag<F extends "client" | "domain" | "status" | "upstream">(
  flag: F,
  text: string | undefined,
): { [K in F]?: string } {
  if (text === undefined) return {};
  if (text.trim() === "") {
    throw new UsageError(`kudurru querylog: --${flag} needs a value`);
  }
  return { [flag]: text } as { [K in F]?: string };
}
