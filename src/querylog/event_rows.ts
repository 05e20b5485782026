/**
 * Reading events back: a stored row (chunk_codec.ts columns) with its
 * strings resolved, as the QueryEvent it was written from plus its id.
 * Strings are looked up once per distinct id, one query per dictionary
 * table, so a page of events costs four small queries whatever its size.
 */
import type { DatabaseSync } from "node:sqlite";
import type { QueryEvent } from "../pipeline/query_event.ts";
import { FLAG_AD, FLAG_DO } from "../pipeline/query_event_pack.ts";
import { C } from "./chunk_codec.ts";
import { EventChunks } from "./event_chunks.ts";

/** A stored event: the QueryEvent (after privacy) and its id (write order). */
export type LoggedEvent = QueryEvent & { id: number };

/** A stored row: its id and its COLUMNS values (see chunk_codec.ts `C`). */
export interface StoredRow {
  id: number;
  row: Float64Array;
}

/** The events with these ids, in the order of `ids`; missing ids are left out. */
export function loadEvents(
  db: DatabaseSync,
  ids: readonly number[],
): LoggedEvent[] {
  if (ids.length === 0) return [];
  const rows = new EventChunks(db).rowsOf(ids);
  return eventsOfRows(
    db,
    ids.flatMap((id) => {
      const row = rows.get(id);
      return row === undefined ? [] : [{ id, row }];
    }),
  );
}

/** The columns whose ids name a row of `labels`. */
const LABEL_COLUMNS = [
  C.node,
  C.transport,
  C.status,
  C.stage,
  C.upstream,
  C.list,
  C.rule,
  C.groups,
];

/** Rows already read (a search has them decoded) as events, in order. */
export function eventsOfRows(
  db: DatabaseSync,
  rows: readonly StoredRow[],
): LoggedEvent[] {
  if (rows.length === 0) return [];
  const texts = (table: string, columns: readonly number[]) => {
    const ids = new Set<number>();
    for (const { row } of rows) {
      for (const c of columns) if (row[c] !== 0) ids.add(row[c]!);
    }
    return lookUp(db, table, ids);
  };
  const names = texts("names", [C.qname]);
  const clients = texts("clients", [C.client]);
  const answers = texts("answers", [C.answer]);
  const labels = texts("labels", LABEL_COLUMNS);
  return rows.map(({ id, row }) => {
    const flags = row[C.flags]!;
    const label = (c: number) => labels.get(row[c]!);
    const groups = label(C.groups);
    const event: LoggedEvent = {
      id,
      time: row[C.time]!,
      node: label(C.node) ?? "",
      clientAddress: clients.get(row[C.client]!) ?? "",
      clientPort: row[C.port]!,
      transport: (label(C.transport) ?? "") as QueryEvent["transport"],
      groups: groups ? groups.split(",") : [],
      qname: names.get(row[C.qname]!) ?? "",
      qtype: row[C.qtype]!,
      qclass: row[C.qclass]!,
      rcode: row[C.rcode]!,
      status: (label(C.status) ?? "") as QueryEvent["status"],
      stage: (label(C.stage) ?? "") as QueryEvent["stage"],
      dnssecOk: (flags & FLAG_DO) !== 0,
      authenticData: (flags & FLAG_AD) !== 0,
      answer: answers.get(row[C.answer]!) ?? "",
      responseSize: row[C.size]!,
      durationUs: row[C.durationUs]!,
    };
    // 0 is "absent"; an id whose row is gone reads as absent too.
    const upstream = label(C.upstream);
    if (upstream !== undefined) event.upstream = upstream;
    const list = label(C.list);
    if (list !== undefined) event.list = list;
    const rule = label(C.rule);
    if (rule !== undefined) event.rule = rule;
    return event;
  });
}

/** id → text for these ids of a dictionary table (id 0 never exists). */
function lookUp(
  db: DatabaseSync,
  table: string,
  ids: ReadonlySet<number>,
): Map<number, string> {
  const texts = new Map<number, string>();
  if (ids.size === 0) return texts;
  const rows = db.prepare(
    `SELECT id, text FROM ${table} WHERE id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify([...ids]));
  for (const row of rows) texts.set(Number(row.id), String(row.text));
  return texts;
}
