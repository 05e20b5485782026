/**
 * `kudurru querylog`: the newest answered queries from `<dataDir>/querylog.db`,
 * filtered by client, domain and status, as a table or JSON, or every match
 * as CSV or NDJSON; with -f, new queries as they are written until Ctrl-C.
 * Reads the file directly (WAL lets it do so while the server writes), never
 * changes it. With a context (target.ts) it asks the context's server
 * instead (querylog_api.ts), and prints the same.
 */
import { resolve } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { QUERYLOG_DB_FILE } from "../querylog/db.ts";
import {
  type EventFilters,
  FilterError,
  latestEventId,
  MAX_SEARCH_LIMIT,
  parseCursor,
  searchEvents,
  tail,
} from "../querylog/queries.ts";
import type { QueryEvent } from "../pipeline/query_event.ts";
import {
  exportStream,
  MAX_EXPORT_ROWS,
} from "../apiserver/routes/querylog_export.ts";
import {
  type Command,
  type CommandIO,
  parseFlags,
  UsageError,
} from "./command.ts";
import { resolveDataDir, type StoreFlagValues } from "./local_store.ts";
import {
  explainQueryLogFailure,
  openQueryLogForReading,
} from "./querylog_open.ts";
import { renderEventTable } from "./event_table.ts";
import { qtypeFromText } from "../dns/wire/constants.ts";
import { rcodeFromName } from "../dns/wire/rcode_name.ts";
import { timeWindow } from "./log_time.ts";
import { resolveTarget, TARGET_FLAGS, whereOf } from "./target.ts";
import { ApiObjects } from "./api_objects.ts";
import type { CliContext } from "./contexts.ts";
import {
  apiQuery,
  type EventPage,
  exportOverApi,
  openTail,
  searchOverApi,
  writeText,
} from "./querylog_api.ts";

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
  ...TARGET_FLAGS,
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

/** The formats of -o: a page (table, json) or every match (csv, ndjson). */
const FORMATS = ["table", "json", "csv", "ndjson"] as const;
type Format = typeof FORMATS[number];
type ExportFormat = "csv" | "ndjson";

const isExport = (f: Format): f is ExportFormat =>
  f === "csv" || f === "ndjson";

/** What the command was asked, checked. */
interface Request {
  format: Format;
  /** Undefined for csv/ndjson without --limit: every match. */
  limit: number | undefined;
  follow: boolean;
  before: string | undefined;
  filters: EventFilters;
  window: { since?: number; until?: number };
}

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
      "                   [--upstream U[,U]] [--since 1h|ISO] [--until 1h|ISO] [--limit N] [--before CURSOR] [-f|--follow]\n" +
      "                   [-o table|json|csv|ndjson] [--context NAME | --data-dir DIR | --config FILE]\n" +
      "  Newest first. --status takes any status or 'blocked'; --type a type name or number (AAAA, 65); --rcode a\n" +
      "  response code name or number (NXDOMAIN, 3); -f prints new queries until Ctrl-C (-o json: one per line).\n" +
      `  -o csv or ndjson writes every match (at most --limit, ${MAX_EXPORT_ROWS} at most), as the API's export does.\n` +
      "  Times are the machine's local time, with their UTC offset unless the zone is UTC; a date or time without\n" +
      "  a zone in --since/--until is local too.\n" +
      "  Reads the server of --context, or of the current context (kudurru login); with --data-dir or --config,\n" +
      "  or when not logged in, this machine's data directory.",
    async run(args, io) {
      const { values } = parseFlags("querylog", args, FLAGS, 0);
      const request = checkRequest(values, now());
      const target = await resolveTarget("querylog", values, io);
      if (target.kind === "api") {
        return await overApi(target.context, request, opts, io);
      }
      return await locally(target.store, request, opts, io);
    },
  };
}

export const querylogCommand: Command = makeQuerylogCommand();

/** The flags as a Request, or a UsageError saying what is wrong. */
function checkRequest(
  values: {
    output?: string | undefined;
    limit?: string | undefined;
    follow?: boolean | undefined;
    until?: string | undefined;
    since?: string | undefined;
    before?: string | undefined;
    client?: string | undefined;
    domain?: string | undefined;
    status?: string | undefined;
    type?: string | undefined;
    rcode?: string | undefined;
    upstream?: string | undefined;
  },
  now: number,
): Request {
  const format = FORMATS.find((f) => f === (values.output ?? "table"));
  if (format === undefined) {
    throw new UsageError(
      `kudurru querylog: -o must be table, json, csv or ndjson, not "${values.output}"`,
    );
  }
  const limit = values.limit === undefined
    ? isExport(format) ? undefined : 100
    : parseCount("querylog", "--limit", values.limit);
  if (isExport(format)) {
    if (limit !== undefined && limit > MAX_EXPORT_ROWS) {
      throw new UsageError(
        `kudurru querylog: --limit is at most ${MAX_EXPORT_ROWS} with -o ${format} (export again with --until set to the oldest row's time)`,
      );
    }
    if (values.follow) {
      throw new UsageError(
        `kudurru querylog: -f prints new queries as a table or JSON lines; it cannot be combined with -o ${format}`,
      );
    }
  } else if (limit! > MAX_SEARCH_LIMIT) {
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
  if (values.before !== undefined) {
    usageErrors(() => parseCursor(values.before!));
  }
  return {
    format,
    limit,
    follow: values.follow ?? false,
    before: values.before,
    filters: {
      ...filterFlag("client", values.client),
      ...filterFlag("domain", values.domain),
      ...filterFlag("status", values.status),
      ...codesFlag("type", values.type, qtypeFromText),
      ...codesFlag("rcode", values.rcode, rcodeFromName),
      ...filterFlag("upstream", values.upstream),
    },
    window: timeWindow("querylog", values.since, values.until, now),
  };
}

/** How a page and the events -f finds are printed, local or over the API. */
function printer(format: Format, io: CommandIO) {
  /** The table's header comes with the first rows, whenever they come. */
  let headed = false;
  return {
    page(page: EventPage) {
      if (format === "json") {
        io.stdout(JSON.stringify(page, null, 2) + "\n");
        return;
      }
      io.stdout(renderEventTable(page.events));
      if (page.nextCursor) {
        io.stderr(`More: add --before ${page.nextCursor}\n`);
      }
    },
    events(events: readonly QueryEvent[], first: boolean) {
      if (format === "json") {
        for (const e of events) io.stdout(JSON.stringify(e) + "\n");
      } else if (events.length > 0 || first) {
        io.stdout(renderEventTable(events, !headed));
        headed ||= events.length > 0;
      }
    },
  };
}

/** The request on this machine's querylog.db. */
async function locally(
  store: StoreFlagValues,
  request: Request,
  opts: QuerylogCommandOptions,
  io: CommandIO,
): Promise<number> {
  const { format, filters, window, before } = request;
  const open = opts.openDb ?? openQueryLogForReading;
  const path = resolve(resolveDataDir(store), QUERYLOG_DB_FILE);
  const db = open(path);
  if (isExport(format)) {
    // The API's export, on the file: the same rows in the same format.
    // The stream closes the file when it ends.
    const rows = exportStream(
      db,
      { ...filters, ...window, ...(before ? { before } : {}) },
      undefined,
      format,
      { max: request.limit ?? MAX_EXPORT_ROWS },
    );
    try {
      await writeText(rows, io.stdout);
    } catch (err) {
      throw explainQueryLogFailure(path, err);
    }
    return 0;
  }
  const print = printer(format, io);
  try {
    // One snapshot for both: -f goes on right after the newest id the
    // page could show, so no query is printed twice or skipped.
    const { newest, page } = inOneSnapshot(db, () => ({
      newest: latestEventId(db),
      page: usageErrors(() =>
        searchEvents(db, {
          ...filters,
          limit: request.limit!,
          ...window,
          ...(before ? { before } : {}),
        })
      ),
    }));
    if (!request.follow) {
      print.page(page);
      return 0;
    }
    print.events([...page.events].reverse(), true);
    await follow(
      db,
      newest,
      filters,
      opts,
      (events) => print.events(events, false),
    );
    return 0;
  } catch (err) {
    throw explainQueryLogFailure(path, err);
  } finally {
    db.close();
  }
}

/** The request on a context's server, through /api/v1/querylog. */
async function overApi(
  context: CliContext,
  request: Request,
  opts: QuerylogCommandOptions,
  io: CommandIO,
): Promise<number> {
  const { format, filters } = request;
  using api = await ApiObjects.open(context);
  const query = apiQuery(filters, {
    ...request.window,
    limit: request.limit,
    before: request.before,
  });
  if (isExport(format)) {
    await exportOverApi(api, query, format, io.stdout);
    return 0;
  }
  const print = printer(format, io);
  if (!request.follow) {
    print.page(await searchOverApi(api, query));
    return 0;
  }
  using stop = stopOnInterrupt(opts);
  const tail = await openTail(api, filters, stop.signal);
  const page = await searchOverApi(api, query);
  tail.skip(page.events);
  print.events([...page.events].reverse(), true);
  await tail.follow({
    events: (events) => print.events(events, false),
    dropped: (count) =>
      io.stderr(
        `kudurru querylog: ${
          whereOf(context)
        } left out ${count} queries this reader was too slow for\n`,
      ),
  });
  return 0;
}

/** A signal that -f ends on: the caller's (tests), else Ctrl-C. */
function stopOnInterrupt(
  opts: QuerylogCommandOptions,
): { signal: AbortSignal } & Disposable {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  if (opts.signal?.aborted) stop.abort();
  if (!opts.signal) Deno.addSignalListener("SIGINT", onAbort);
  return {
    signal: stop.signal,
    [Symbol.dispose]() {
      opts.signal?.removeEventListener("abort", onAbort);
      if (!opts.signal) Deno.removeSignalListener("SIGINT", onAbort);
    },
  };
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
  filters: EventFilters,
  opts: QuerylogCommandOptions,
  print: (events: QueryEvent[]) => void,
): Promise<void> {
  using stop = stopOnInterrupt(opts);
  let lastId = afterId;
  while (!stop.signal.aborted) {
    const page = tail(db, lastId, filters);
    lastId = page.lastId;
    print(page.events);
    if (page.events.length === 0) {
      await sleep(opts.pollMs ?? 500, stop.signal);
    }
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
