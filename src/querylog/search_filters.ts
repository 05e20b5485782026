/**
 * The filters of a search (client, domain, status) turned into dictionary
 * ids, a test of a decoded row, and the minutes worth reading: the rollups
 * know in which minutes a client, a name or a status occurs, so a search
 * for something rare reads those minutes only, with no index on events.
 * Question types and response codes are tested per row only (no rollup
 * knows them), so on their own they narrow nothing before decoding.
 */
import ipaddr from "ipaddr.js";
import type { DatabaseSync } from "node:sqlite";
import { C } from "./chunk_codec.ts";
import { BLOCKED_STATUSES } from "./encode.ts";
import { HIDDEN_CLIENT } from "./event_filter.ts";
import { isCidr, isIpAddress } from "../dns/ip_text.ts";

export interface EventFilters {
  /** An address (IPv4 also finds its IPv4-mapped spelling), or a CIDR prefix. */
  client?: string;
  /**
   * A substring of the name ("doubleclick"), or, starting with "*." or ".",
   * a domain and everything below it ("*.example.com").
   */
  domain?: string;
  /** Status names, comma-separated; "blocked" means both blocked_* statuses. */
  status?: string;
  /** Question types (codes), any of them. */
  qtypes?: readonly number[];
  /** Response codes, any of them. */
  rcodes?: readonly number[];
  /** Upstreams as the log names them ("default/9.9.9.9"), comma-separated. */
  upstream?: string;
}

/** Filters as ids; undefined = no filter, [] = nothing can match. */
export interface ResolvedFilters {
  clients?: number[];
  names?: number[];
  statuses?: number[];
  qtypes?: number[];
  rcodes?: number[];
  upstreams?: number[];
}

/** Thrown for a filter that cannot mean anything (an unknown status). */
export class FilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FilterError";
  }
}

export function resolveFilters(
  db: DatabaseSync,
  filters: EventFilters,
): ResolvedFilters {
  const resolved: ResolvedFilters = {};
  if (filters.client !== undefined && filters.client !== "") {
    resolved.clients = clientIds(db, filters.client.trim());
  }
  if (filters.domain !== undefined && filters.domain !== "") {
    resolved.names = nameIds(db, filters.domain.trim().toLowerCase());
  }
  if (filters.status !== undefined && filters.status !== "") {
    resolved.statuses = statusIds(db, filters.status);
  }
  // Types and codes are stored as numbers: no dictionary, no rollup.
  if (filters.qtypes !== undefined) resolved.qtypes = [...filters.qtypes];
  if (filters.rcodes !== undefined) resolved.rcodes = [...filters.rcodes];
  if (filters.upstream !== undefined && filters.upstream !== "") {
    resolved.upstreams = upstreamIds(db, filters.upstream);
  }
  return resolved;
}

/** True when some filter can match nothing at all. */
export function matchesNothing(f: ResolvedFilters): boolean {
  return f.clients?.length === 0 || f.names?.length === 0 ||
    f.statuses?.length === 0 || f.qtypes?.length === 0 ||
    f.rcodes?.length === 0 || f.upstreams?.length === 0;
}

/**
 * A test of one stored row (chunk_codec.ts columns, starting at `rows[at]`)
 * against the filters; undefined when there is no filter to apply.
 */
export type RowTest = (rows: Float64Array, at: number) => boolean;

/** The filters as sets of ids, tested per row in JS (chunks are decoded). */
export function rowTest(f: ResolvedFilters): RowTest | undefined {
  const clients = f.clients && new Set(f.clients);
  const names = f.names && new Set(f.names);
  const statuses = f.statuses && new Set(f.statuses);
  const qtypes = f.qtypes && new Set(f.qtypes);
  const rcodes = f.rcodes && new Set(f.rcodes);
  const upstreams = f.upstreams && new Set(f.upstreams);
  if (!clients && !names && !statuses && !qtypes && !rcodes && !upstreams) {
    return undefined;
  }
  return (rows, at) =>
    (clients === undefined || clients.has(rows[at + C.client]!)) &&
    (names === undefined || names.has(rows[at + C.qname]!)) &&
    (statuses === undefined || statuses.has(rows[at + C.status]!)) &&
    (qtypes === undefined || qtypes.has(rows[at + C.qtype]!)) &&
    (rcodes === undefined || rcodes.has(rows[at + C.rcode]!)) &&
    (upstreams === undefined || upstreams.has(rows[at + C.upstream]!));
}

/**
 * The minutes in [from, to) in which every filter occurs, from the rollups;
 * undefined without filters (every minute is a candidate).
 */
export function candidateMinutes(
  db: DatabaseSync,
  f: ResolvedFilters,
  from: number,
  to: number,
): Set<number> | undefined {
  const sets: Set<number>[] = [];
  const minutes = (sql: string, ids: number[]) =>
    new Set(
      db.prepare(sql).all(JSON.stringify(ids), from, to).map((r) =>
        Number(r.m)
      ),
    );
  if (f.clients) {
    sets.push(minutes(
      `SELECT DISTINCT minute AS m FROM client_minutes WHERE client IN
         (SELECT value FROM json_each(?)) AND minute >= ? AND minute < ?`,
      f.clients,
    ));
  }
  if (f.names) sets.push(domainMinutes(db, f.names, from, to));
  if (f.statuses) {
    sets.push(minutes(
      `SELECT DISTINCT minute AS m FROM status_minutes WHERE status IN
         (SELECT value FROM json_each(?)) AND minute >= ? AND minute < ?`,
      f.statuses,
    ));
  }
  if (f.upstreams) {
    sets.push(minutes(
      `SELECT DISTINCT minute AS m FROM upstream_minutes WHERE upstream IN
         (SELECT value FROM json_each(?)) AND minute >= ? AND minute < ?`,
      f.upstreams,
    ));
  }
  if (sets.length === 0) return undefined;
  sets.sort((a, b) => a.size - b.size);
  const [smallest, ...rest] = sets as [Set<number>, ...Set<number>[]];
  return new Set([...smallest].filter((m) => rest.every((s) => s.has(m))));
}

/** Above this many matching names, hours are not looked up one by one. */
const MAX_GUIDED_NAMES = 50;

/**
 * Minutes of these names: exact from domain_minutes where it still has
 * rows, and every minute of each matching hour before that.
 */
function domainMinutes(
  db: DatabaseSync,
  names: number[],
  from: number,
  to: number,
): Set<number> {
  const json = JSON.stringify(names);
  const cover = db.prepare("SELECT min(minute) AS m FROM domain_minutes").get();
  const coverStart = cover?.m === null || cover?.m === undefined
    ? Infinity
    : Number(cover.m);
  const result = new Set<number>();
  for (
    const row of db.prepare(
      `SELECT DISTINCT minute AS m FROM domain_minutes WHERE name IN
         (SELECT value FROM json_each(?)) AND minute >= ? AND minute < ?`,
    ).all(json, from, to)
  ) result.add(Number(row.m));
  // Hours before the minute rows: looked up by primary key, hour × name
  // (domain_hours has no index by name); worth it for a few names only.
  const lastHour = Math.min(Math.ceil(to / 60), Math.ceil(coverStart / 60));
  const firstHour = Math.floor(from / 60);
  if (lastHour <= firstHour) return result;
  if (names.length > MAX_GUIDED_NAMES) {
    for (let m = firstHour * 60; m < Math.min(to, coverStart); m++) {
      if (m >= from) result.add(m);
    }
    return result;
  }
  const hours = db.prepare(
    `WITH RECURSIVE span(hour) AS (
       SELECT ? UNION ALL SELECT hour + 1 FROM span WHERE hour + 1 < ?)
     SELECT DISTINCT d.hour AS h FROM span CROSS JOIN json_each(?) n
     CROSS JOIN domain_hours d ON d.hour = span.hour AND d.name = n.value`,
  );
  for (const row of hours.all(firstHour, lastHour, json)) {
    const first = Number(row.h) * 60;
    for (let m = first; m < first + 60; m++) {
      if (m >= from && m < to && m < coverStart) result.add(m);
    }
  }
  return result;
}

/**
 * The texts an address may be stored as: as given, normalised, and for an
 * IPv4 address its IPv4-mapped IPv6 form too (files written before the
 * writer unmapped dual-stack clients hold that spelling).
 */
export function clientSpellings(client: string): string[] {
  const texts = new Set([client]);
  if (isIpAddress(client)) {
    const addr = ipaddr.process(client);
    texts.add(addr.toString());
    if (addr.kind() === "ipv4") texts.add(`::ffff:${addr.toString()}`);
  }
  return [...texts];
}

/**
 * The ids of the clients `client` names: an address (in any of its
 * spellings, see clientSpellings), a CIDR prefix (IPv4-mapped addresses
 * and prefixes as their IPv4 ones), or the privacy placeholder "hidden".
 *
 * @throws {FilterError} for anything else
 */
function clientIds(db: DatabaseSync, client: string): number[] {
  const ids = db.prepare(
    "SELECT id FROM clients WHERE text IN (SELECT value FROM json_each(?))",
  ).all(JSON.stringify(clientSpellings(client))).map((r) => Number(r.id));
  if (ids.length > 0 || client === HIDDEN_CLIENT || isIpAddress(client)) {
    return ids;
  }
  if (!isCidr(client)) {
    throw new FilterError(
      `--client takes an address or a CIDR prefix such as 192.0.2.0/24, not "${client}"`,
    );
  }
  const [range, bits] = unmappedRange(client);
  for (const row of db.prepare("SELECT id, text FROM clients").iterate()) {
    const text = String(row.text);
    if (!ipaddr.isValid(text)) continue;
    const addr = ipaddr.process(text);
    if (addr.kind() === range.kind() && addr.match(range, bits)) {
      ids.push(Number(row.id));
    }
  }
  return ids;
}

/** A CIDR prefix; an IPv4-mapped one as its IPv4 prefix. */
function unmappedRange(cidr: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const [range, bits] = ipaddr.parseCIDR(cidr);
  if (range.kind() === "ipv6" && (range as ipaddr.IPv6).isIPv4MappedAddress()) {
    return [(range as ipaddr.IPv6).toIPv4Address(), Math.max(0, bits - 96)];
  }
  return [range, bits];
}

/**
 * The ids of the names `domain` finds: a substring, or with "*." or "." a
 * domain and everything below it. LIKE sees text, not labels: "%.x." also
 * matches `a\.x.`, one label "a.x" under the root, so the dot before the
 * suffix is checked in JS to be a separator (see isLabelBoundary).
 */
function nameIds(db: DatabaseSync, domain: string): number[] {
  const escape = (s: string) => s.replace(/[\\%_]/g, (c) => "\\" + c);
  const suffix = /^\*?\./.exec(domain);
  if (!suffix) {
    return db.prepare("SELECT id FROM names WHERE text LIKE ? ESCAPE '\\'")
      .all("%" + escape(domain) + "%").map((r) => Number(r.id));
  }
  const base = domain.slice(suffix[0].length).replace(/\.?$/, ".");
  return db.prepare(
    "SELECT id, text FROM names WHERE text = ? OR text LIKE ? ESCAPE '\\'",
  ).all(base, "%." + escape(base)).filter((r) =>
    isLabelBoundary(String(r.text), String(r.text).length - base.length - 1)
  ).map((r) => Number(r.id));
}

/**
 * True when `name[at]` is a dot that ends a label (an even number of
 * backslashes before it: `a\\.` is an escaped backslash, then a
 * separator), or `at` is before the name (the name is the suffix itself).
 */
function isLabelBoundary(name: string, at: number): boolean {
  if (at < 0) return true;
  if (name[at] !== ".") return false;
  let backslashes = 0;
  for (let i = at - 1; i >= 0 && name[i] === "\\"; i--) backslashes++;
  return backslashes % 2 === 0;
}

/**
 * The ids of these upstreams (comma-separated); an upstream the log never
 * named has none, so the filter matches nothing rather than failing.
 */
function upstreamIds(db: DatabaseSync, text: string): number[] {
  const wanted = text.split(",").map((s) => s.trim()).filter(Boolean);
  return db.prepare(
    `SELECT id FROM labels WHERE kind = 'upstream'
       AND text IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(wanted)).map((r) => Number(r.id));
}

function statusIds(db: DatabaseSync, text: string): number[] {
  const wanted = new Set<string>();
  for (const word of text.split(",").map((s) => s.trim()).filter(Boolean)) {
    if (word === "blocked") BLOCKED_STATUSES.forEach((s) => wanted.add(s));
    else wanted.add(word);
  }
  const known = new Map(
    db.prepare("SELECT id, text FROM labels WHERE kind = 'status'").all()
      .map((r) => [String(r.text), Number(r.id)]),
  );
  return [...wanted].map((status) => {
    const id = known.get(status);
    if (id === undefined) {
      throw new FilterError(
        `unknown status "${status}"; use one of: blocked, ${
          [...known.keys()].join(", ")
        }`,
      );
    }
    return id;
  });
}
