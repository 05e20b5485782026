/**
 * How `kudurru querylog` prints events as a table, and the names it reads
 * and prints for question types, classes and response codes.
 */
import { CLASS, typeFromName, typeName } from "../dns/wire/constants.ts";
import type { LoggedEvent } from "../querylog/queries.ts";
import { formatLogTime } from "./log_time.ts";

/** Response code names (IANA "DNS RCODEs"; 16 is BADVERS with EDNS). */
const RCODE_NAMES = [
  "NOERROR",
  "FORMERR",
  "SERVFAIL",
  "NXDOMAIN",
  "NOTIMP",
  "REFUSED",
  "YXDOMAIN",
  "YXRRSET",
  "NXRRSET",
  "NOTAUTH",
  "NOTZONE",
  "DSOTYPENI",
];
const BADVERS = 16;

/** "NXDOMAIN"; "RCODE12" for a code with no name; "-" when nothing was sent (-1). */
export function rcodeName(rcode: number): string {
  if (rcode < 0) return "-";
  if (rcode === BADVERS) return "BADVERS";
  return RCODE_NAMES[rcode] ?? `RCODE${rcode}`;
}

/** The code of an rcode name (any case) or of a number; undefined otherwise. */
export function rcodeFromName(text: string): number | undefined {
  const upper = text.toUpperCase();
  if (upper === "BADVERS") return BADVERS;
  const at = RCODE_NAMES.indexOf(upper);
  if (at >= 0) return at;
  const code = /^(?:RCODE)?(0|[1-9][0-9]{0,3})$/.exec(upper)?.[1];
  return code !== undefined && Number(code) <= 4095 ? Number(code) : undefined;
}

/** The code of a type name (any case), `TYPEnnn` or a number 0-65535. */
export function qtypeFromText(text: string): number | undefined {
  if (/^(0|[1-9][0-9]{0,4})$/.test(text)) {
    return Number(text) <= 65535 ? Number(text) : undefined;
  }
  return typeFromName(text);
}

const CLASS_NAMES = new Map<number, string>(
  Object.entries(CLASS).map(([name, code]) => [code, name]),
);

/** "AAAA"; with the class in front when it is not IN ("CH TXT"). */
function typeWithClass(e: LoggedEvent): string {
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
function answeredBy(e: LoggedEvent): string {
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
export function renderEventTable(events: LoggedEvent[], header = true): string {
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
