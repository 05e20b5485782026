/**
 * Exporting the query log: the events a search finds, streamed as CSV
 * (RFC 4180) or NDJSON one search page per pull, so memory stays flat
 * however many rows go out; a failure half-way is logged, as the client
 * only sees a cut-off download.
 */
import type { DatabaseSync } from "node:sqlite";
import type { Logger } from "../../log/logger.ts";
import type { BusyBudget } from "../busy_budget.ts";
import type { SearchOptions } from "../../querylog/queries.ts";
import { type QueryLogEntry, queryLogEntry } from "./querylog_entry.ts";
import { searchPage } from "./querylog_search.ts";

/** Rows an export holds at most. */
export const MAX_EXPORT_ROWS = 1_000_000;
/** Events per page of an export (one search each). */
const EXPORT_PAGE = 1000;

const CSV_COLUMNS: readonly (keyof QueryLogEntry)[] = [
  "id",
  "time",
  "node",
  "client",
  "clientPort",
  "transport",
  "groups",
  "qname",
  "qtype",
  "qclass",
  "rcode",
  "status",
  "stage",
  "upstream",
  "list",
  "rule",
  "dnssecOk",
  "authenticData",
  "answer",
  "responseSize",
  "durationUs",
];

/** One CSV field (RFC 4180): quoted when it holds a quote, comma or line break. */
export function csvField(value: unknown): string {
  const text = value === undefined || value === null
    ? ""
    : Array.isArray(value)
    ? value.join(",")
    : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The CSV header line. */
export const CSV_HEADER = CSV_COLUMNS.join(",") + "\r\n";

/** One event as a CSV line (CRLF-terminated, as RFC 4180 has it). */
export function csvLine(entry: QueryLogEntry): string {
  return CSV_COLUMNS.map((column) => csvField(entry[column])).join(",") +
    "\r\n";
}

/** "20300101T000000Z". */
export function fileTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, "Z").replace(
    /[-:]/g,
    "",
  );
}

/** How an export runs. */
export interface ExportOptions {
  /** Rows at most. */
  max: number;
  /** Where a failure half-way is logged. */
  logger?: Logger | undefined;
  /** The API's CPU share: each page waits for it and counts against it. */
  budget?: BusyBudget | undefined;
}

/** The export as a stream: one search page per pull, so memory stays flat. */
export function exportStream(
  db: DatabaseSync,
  opts: SearchOptions,
  node: string | undefined,
  format: "csv" | "ndjson",
  { max, logger, budget }: ExportOptions,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let before = opts.before;
  let rows = 0;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    db.close();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (format === "csv") controller.enqueue(encoder.encode(CSV_HEADER));
    },
    async pull(controller) {
      try {
        await budget?.wait();
        const nextPage = () => {
          const page = searchPage(
            db,
            { ...opts, ...(before !== undefined && { before }) },
            node,
            Math.min(EXPORT_PAGE, max - rows),
          );
          rows += page.events.length;
          before = page.next ?? undefined;
          if (page.events.length > 0) {
            const text = page.events.map((e) => {
              const entry = queryLogEntry(e);
              return format === "csv"
                ? csvLine(entry)
                : JSON.stringify(entry) + "\n";
            }).join("");
            controller.enqueue(encoder.encode(text));
          }
          return page;
        };
        const page = budget ? await budget.run(nextPage) : nextPage();
        if (page.next === null || rows >= max) {
          end();
          controller.close();
        } else if (page.events.length === 0) {
          // A bounded search came back empty-handed: the stream pulls
          // again, after other work on this thread had its turn.
          await new Promise((resolve) => setTimeout(resolve, 0));
        }
      } catch (err) {
        end();
        logger?.error("Query log export failed half-way", { error: err });
        controller.error(err);
      }
    },
    cancel() {
      end();
    },
  });
}
