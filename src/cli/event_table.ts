/**
 * How `kudurru querylog` prints events as a table, and the names it reads
 * and prints for question types, classes and response codes.
 */
import { CLASS, typeName } from "../dns/wire/constants.ts";
import type { QueryEvent } from "../pipeline/query_event.ts";
import { formatLogTime } from "./log_time.ts";
import { rcodeName } from "../dns/wire/rcode_name.ts";

const CLASS_NAMES = new Map<number, string>(
  Object.entries(CLASS).map(([name, code]) => [code, name]),
);

/** "AAAA"; with the class in front when it is not IN ("CH TXT"). */
function typeWithClass(e: QueryEvent): string {
  if (e.qclass === CLASS.IN) return typeName(e.qtype);
  const qclass = CLASS_NAMES.get(e.qclass) ?? `CLASS${e.qclass}`;
  return `${qclass} ${typeName(e.qtype)}`;
}

/** "85µs", "12.3ms", "2.0s". */
export function formatMicros(us: number): string {
  if (us < 1000) return `${us}µs`;
  if (us < 1_000_000) return `${(us / 1000).toFixed(1)}ms`;
  return `${(us / 1_000_000).toFixed(1)}s`;
}

/**
 * Who answered: the list and rule of a block, "allowed by" the list and
 * rule that let an answer through, else the upstream or the stage.
 */
function answeredBy(e: QueryEvent): string {
  if (e.list !== undefined) {
    const why = e.rule ? `${e.list}: ${e.rule}` : e.list;
    // A list on an answer that was not blocked is the one that let it
    // through (an allow list, an `@@` exception); its status stays
    // forwarded or cached.
    return e.status.startsWith("blocked_") ? why : `allowed by ${why}`;
  }
  return e.upstream ?? e.stage;
}

const HEADER = [
  "TIME",
  "CLIENT",
  "QNAME",
  "TYPE",
  "RCODE",
  "STATUS",
  "ANSWERED BY",
  "DURATION",
];
/** So that the chunks -f prints line up with each other, mostly. */
const MIN_WIDTHS = [23, 15, 32, 5, 8, 14, 24, 8];

/** The events as an aligned table (with its header unless `header` is false). */
export function renderEventTable(
  events: readonly QueryEvent[],
  header = true,
): string {
  if (events.length === 0) return header ? "No queries found.\n" : "";
  const rows = events.map((e) => [
    formatLogTime(e.time),
    e.clientAddress,
    e.qname,
    typeWithClass(e),
    rcodeName(e.rcode),
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
