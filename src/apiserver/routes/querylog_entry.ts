/**
 * One query-log event as the API shows it, in search pages, exports and
 * the tail: names for its codes (AAAA, NXDOMAIN, IN) and an ISO time in
 * the server's time zone (isoTime, which the stats routes use too), and
 * the OpenAPI schema of that shape (QueryLogEntry). The log keeps no
 * Extended DNS Error: the one shown is what the answer carried, derived
 * from the status, list and rule the way the answering stage derives it.
 */
import { z } from "@hono/zod-openapi";
import { CLASS, typeName } from "../../dns/wire/constants.ts";
import { rcodeName } from "../../dns/wire/rcode_name.ts";
import type { QueryEvent } from "../../pipeline/query_event.ts";
import { STATUSES } from "../../pipeline/status.ts";
import { EDE, extendedErrorName } from "../../dns/wire/extended_error.ts";
import { blockReason } from "../../stages/blocking/block_reason.ts";

/** A time for humans and programs: ISO 8601 in the server's time zone, with its offset ("Z" in UTC). */
export function isoTime(ms: number): string {
  const offset = -new Date(ms).getTimezoneOffset();
  if (offset === 0) return new Date(ms).toISOString();
  const local = new Date(ms + offset * 60_000).toISOString().slice(0, -1);
  const abs = Math.abs(offset);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${local}${offset < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}:${
    pad(abs % 60)
  }`;
}

/** A logged (or live) event with readable names. */
export const queryLogEntrySchema = z.object({
  id: z.number().int().optional().openapi({
    description:
      "The event's id in the log (write order); absent on a live event, whose SSE id is its place in the feed",
  }),
  time: z.string().openapi({
    description:
      "When the query arrived: ISO 8601 in the server's time zone, with its offset",
    example: "2030-01-01T01:00:00.000+01:00",
  }),
  node: z.string(),
  client: z.string().openapi({
    description:
      'The client address as logged (see querylog.privacy: "hidden", truncated)',
  }),
  clientPort: z.number().int(),
  transport: z.string(),
  groups: z.array(z.string()),
  qname: z.string(),
  qtype: z.string().openapi({ example: "AAAA" }),
  qclass: z.string().openapi({ example: "IN" }),
  rcode: z.string().nullable().openapi({
    description: "The response code sent; null when nothing was sent",
    example: "NXDOMAIN",
  }),
  status: z.enum(STATUSES),
  stage: z.string(),
  upstream: z.string().optional(),
  list: z.string().optional().openapi({
    description:
      "The block list that blocked it; with a status other than blocked_*, the list that let it through",
  }),
  rule: z.string().optional(),
  extendedError: z.object({
    infoCode: z.number().int().openapi({ example: 15 }),
    name: z.string().openapi({
      description: "The INFO-CODE's name in RFC 8914",
      example: "Blocked",
    }),
    text: z.string().openapi({
      description: "The EXTRA-TEXT",
      example: "blocked by ads",
    }),
  }).optional().openapi({
    description:
      "The Extended DNS Error (RFC 8914) the answer carried to a client that sent EDNS: a block's (15 Blocked, 17 Filtered for allow-only) or a stale answer's (3)",
  }),
  dnssecOk: z.boolean(),
  authenticData: z.boolean(),
  answer: z.string(),
  responseSize: z.number().int(),
  durationUs: z.number().int(),
}).openapi("QueryLogEntry");

export type QueryLogEntry = z.infer<typeof queryLogEntrySchema>;

const CLASS_NAMES = new Map<number, string>(
  Object.entries(CLASS).map(([name, code]) => [code, name]),
);

/** `event` with names for its codes and an ISO time. */
export function queryLogEntry(
  event: QueryEvent & { id?: number },
): QueryLogEntry {
  const entry: QueryLogEntry = {
    ...(event.id !== undefined && { id: event.id }),
    time: isoTime(event.time),
    node: event.node,
    client: event.clientAddress,
    clientPort: event.clientPort,
    transport: event.transport,
    groups: event.groups,
    qname: event.qname,
    qtype: typeName(event.qtype),
    qclass: CLASS_NAMES.get(event.qclass) ?? `CLASS${event.qclass}`,
    rcode: event.rcode < 0 ? null : rcodeName(event.rcode),
    status: event.status,
    stage: event.stage,
    dnssecOk: event.dnssecOk,
    authenticData: event.authenticData,
    answer: event.answer,
    responseSize: event.responseSize,
    durationUs: event.durationUs,
  };
  if (event.upstream !== undefined) entry.upstream = event.upstream;
  if (event.list !== undefined) entry.list = event.list;
  if (event.rule !== undefined) entry.rule = event.rule;
  const ede = extendedErrorOf(event);
  if (ede !== undefined) entry.extendedError = ede;
  return entry;
}

/** The Extended DNS Error the answer to `event` carried, when it had one we can tell. */
function extendedErrorOf(
  event: QueryEvent,
): QueryLogEntry["extendedError"] {
  let reason: { infoCode: number; text: string } | undefined;
  if (
    event.status === "blocked_list" && event.list !== undefined &&
    event.rule !== undefined
  ) {
    reason = blockReason(event.list, event.rule);
  } else if (event.status === "cached_stale") {
    reason = { infoCode: EDE.STALE_ANSWER, text: "" };
  }
  return reason && { ...reason, name: extendedErrorName(reason.infoCode) };
}
