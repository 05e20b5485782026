/**
 * The query log page's state that is not drawing: the filters a URL holds,
 * and how live events join the rows already shown.
 */

/** An entry of the query log, as GET querylog and the tail send it. */
export interface Entry {
  /** Absent on live events (not yet written). */
  id?: number;
  time: string;
  node: string;
  client: string;
  clientPort: number;
  transport: string;
  groups: string[];
  qname: string;
  qtype: string;
  qclass: string;
  rcode: string;
  status: string;
  stage: string;
  dnssecOk: boolean;
  authenticData: boolean;
  answer: string;
  responseSize: number;
  durationUs: number;
  upstream?: string;
  list?: string;
  rule?: string;
  /** The answer's Extended DNS Error (RFC 8914), when it had one. */
  extendedError?: { infoCode: number; name: string; text: string };
}

/** The filters the API takes, in the order the form shows them. */
export const FILTER_KEYS = [
  "client",
  "domain",
  "type",
  "status",
  "rcode",
  "upstream",
  "since",
  "until",
  "node",
] as const;

export type Filters = Partial<Record<(typeof FILTER_KEYS)[number], string>>;

/** The filters in a query string; empty ones are left out. */
export function filtersOf(params: URLSearchParams): Filters {
  const filters: Filters = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key)?.trim();
    if (value) filters[key] = value;
  }
  return filters;
}

/** Rows the page keeps while live; older ones drop off the bottom. */
export const MAX_LIVE_ROWS = 500;

/**
 * `incoming` live events (oldest first) on top of `rows` (newest first),
 * skipping any already shown (`seen` holds the keys of shown rows), at
 * most MAX_LIVE_ROWS in all.
 */
export function mergeLive(
  rows: readonly Entry[],
  incoming: readonly Entry[],
  seen: Set<string>,
  key: (e: Entry) => string = liveKey,
): Entry[] {
  const fresh: Entry[] = [];
  for (const entry of incoming) {
    const k = key(entry);
    if (seen.has(k)) continue;
    seen.add(k);
    fresh.unshift(entry);
  }
  if (fresh.length === 0) return rows as Entry[];
  return [...fresh, ...rows].slice(0, MAX_LIVE_ROWS);
}

/**
 * The names an answer went through before its data, from the answer text
 * the log keeps ("CNAME a.example., CNAME b.example., A 192.0.2.1").
 */
export function cnameChain(answer: string): string[] {
  return [...answer.matchAll(/(?:^|, )CNAME ([^\s,]+)/g)].map((m) => m[1]!);
}

/** What tells two events apart before they have ids. */
export function liveKey(e: Entry): string {
  return `${e.time}|${e.node}|${e.client}|${e.clientPort}|${e.qname}|${e.qtype}`;
}
