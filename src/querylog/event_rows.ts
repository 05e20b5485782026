/**
 * Reading events back: the events row with its strings resolved, as the
 * QueryEvent it was written from plus its id.
 */
import type { DatabaseSync } from "node:sqlite";
import type { QueryEvent } from "../pipeline/query_event.ts";
import { FLAG_AD, FLAG_DO } from "./encode.ts";

/** A stored event: the QueryEvent (after privacy) and its id (write order). */
export type LoggedEvent = QueryEvent & { id: number };

const SELECT_EVENT = `
SELECT e.id, e.time, nd.text AS node, c.text AS client, e.port,
  tr.text AS transport, n.text AS qname, e.qtype, e.qclass, e.rcode,
  st.text AS status, sg.text AS stage, u.text AS upstream, l.text AS list,
  r.text AS rule, e.flags, a.text AS answer, e.size, e.duration_us,
  g.text AS groups
FROM events e
LEFT JOIN labels nd ON nd.id = e.node
LEFT JOIN clients c ON c.id = e.client
LEFT JOIN labels tr ON tr.id = e.transport
LEFT JOIN names n ON n.id = e.qname
LEFT JOIN labels st ON st.id = e.status
LEFT JOIN labels sg ON sg.id = e.stage
LEFT JOIN labels u ON u.id = e.upstream
LEFT JOIN labels l ON l.id = e.list
LEFT JOIN labels r ON r.id = e.rule
LEFT JOIN answers a ON a.id = e.answer
LEFT JOIN labels g ON g.id = e.groups`;

/** The events with these ids, in the order of `ids`. */
export function loadEvents(
  db: DatabaseSync,
  ids: readonly number[],
): LoggedEvent[] {
  if (ids.length === 0) return [];
  const rows = db.prepare(
    `${SELECT_EVENT} WHERE e.id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(ids));
  const byId = new Map(rows.map((row) => [Number(row.id), toEvent(row)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

function toEvent(row: Record<string, unknown>): LoggedEvent {
  const flags = Number(row.flags);
  const event: LoggedEvent = {
    id: Number(row.id),
    time: Number(row.time),
    node: String(row.node ?? ""),
    clientAddress: String(row.client ?? ""),
    clientPort: Number(row.port),
    transport: String(row.transport ?? "") as QueryEvent["transport"],
    groups: row.groups ? String(row.groups).split(",") : [],
    qname: String(row.qname ?? ""),
    qtype: Number(row.qtype),
    qclass: Number(row.qclass),
    rcode: Number(row.rcode),
    status: String(row.status ?? "") as QueryEvent["status"],
    stage: String(row.stage ?? "") as QueryEvent["stage"],
    dnssecOk: (flags & FLAG_DO) !== 0,
    authenticData: (flags & FLAG_AD) !== 0,
    answer: String(row.answer ?? ""),
    responseSize: Number(row.size),
    durationUs: Number(row.duration_us),
  };
  if (row.upstream !== null) event.upstream = String(row.upstream);
  if (row.list !== null) event.list = String(row.list);
  if (row.rule !== null) event.rule = String(row.rule);
  return event;
}
