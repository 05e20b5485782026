/**
 * `kudurru querylog` on a context's server: the search page, the export and
 * the live tail of /api/v1/querylog, with the command's filters as query
 * parameters. The API's entries name their codes and carry ISO times; they
 * are read back into the events the local path prints, so one formatter
 * (event_table.ts, or the JSON of an event) serves both.
 */
import type { QueryEvent } from "../pipeline/query_event.ts";
import type { EventFilters } from "../querylog/queries.ts";
import type { QueryLogEntry } from "../apiserver/routes/querylog_entry.ts";
import { CLASS, qtypeFromText } from "../dns/wire/constants.ts";
import { rcodeFromName } from "../dns/wire/rcode_name.ts";
import type { ApiObjects } from "./api_objects.ts";

/** An event as the CLI prints it; a live one has no id in the log yet. */
export type PrintedEvent = QueryEvent & { id?: number };

/** One page as `kudurru querylog -o json` prints it. */
export interface EventPage {
  events: PrintedEvent[];
  nextCursor: string | null;
}

/** What a search, export or tail asks for besides the filters. */
export interface ApiQueryOptions {
  since?: number | undefined;
  until?: number | undefined;
  limit?: number | undefined;
  before?: string | undefined;
}

/**
 * The query parameters of the filters and options. Times go as UTC
 * instants, already read on this machine, so "2030-01-01T12:00" means this
 * machine's noon whatever the server's time zone.
 */
export function apiQuery(
  filters: EventFilters,
  opts: ApiQueryOptions = {},
): URLSearchParams {
  const q = new URLSearchParams();
  if (filters.client !== undefined) q.set("client", filters.client);
  if (filters.domain !== undefined) q.set("domain", filters.domain);
  if (filters.status !== undefined) q.set("status", filters.status);
  if (filters.qtypes !== undefined) q.set("type", filters.qtypes.join(","));
  if (filters.rcodes !== undefined) q.set("rcode", filters.rcodes.join(","));
  if (filters.upstream !== undefined) q.set("upstream", filters.upstream);
  if (opts.since !== undefined) {
    q.set("since", new Date(opts.since).toISOString());
  }
  if (opts.until !== undefined) {
    q.set("until", new Date(opts.until).toISOString());
  }
  if (opts.limit !== undefined) q.set("limit", String(opts.limit));
  if (opts.before !== undefined) q.set("continue", opts.before);
  return q;
}

const CLASS_CODES = new Map<string, number>(Object.entries(CLASS));

/** An entry of the API as the event it was made from. */
export function eventOfEntry(entry: QueryLogEntry): PrintedEvent {
  const event: PrintedEvent = {
    ...(entry.id !== undefined && { id: entry.id }),
    time: Date.parse(entry.time),
    node: entry.node,
    clientAddress: entry.client,
    clientPort: entry.clientPort,
    transport: entry.transport as QueryEvent["transport"],
    groups: entry.groups,
    qname: entry.qname,
    qtype: qtypeFromText(entry.qtype) ?? 0,
    qclass: CLASS_CODES.get(entry.qclass) ??
      Number(/^CLASS(\d+)$/.exec(entry.qclass)?.[1] ?? 0),
    // null: nothing was sent, which the log stores as -1.
    rcode: entry.rcode === null ? -1 : rcodeFromName(entry.rcode) ?? -1,
    status: entry.status,
    stage: entry.stage as QueryEvent["stage"],
    dnssecOk: entry.dnssecOk,
    authenticData: entry.authenticData,
    answer: entry.answer,
    responseSize: entry.responseSize,
    durationUs: entry.durationUs,
  };
  if (entry.upstream !== undefined) event.upstream = entry.upstream;
  if (entry.list !== undefined) event.list = entry.list;
  if (entry.rule !== undefined) event.rule = entry.rule;
  return event;
}

/** One page of the search, newest first. */
export async function searchOverApi(
  api: ApiObjects,
  query: URLSearchParams,
): Promise<EventPage> {
  const page = await api.call("GET", `/api/v1/querylog?${query}`) as {
    items: QueryLogEntry[];
    continue?: string;
  };
  return {
    events: page.items.map(eventOfEntry),
    nextCursor: page.continue ?? null,
  };
}

/** The export (CSV or NDJSON) as the server streams it, piece by piece. */
export async function exportOverApi(
  api: ApiObjects,
  query: URLSearchParams,
  format: "csv" | "ndjson",
  write: (text: string) => void,
): Promise<void> {
  const q = new URLSearchParams(query);
  q.set("format", format);
  const res = await api.stream(`/api/v1/querylog/export?${q}`);
  await writeText(res.body, write);
}

/** Writes a byte stream as text, as it comes. */
export async function writeText(
  body: ReadableStream<Uint8Array> | null,
  write: (text: string) => void,
): Promise<void> {
  if (body === null) return;
  for await (const text of body.pipeThrough(new TextDecoderStream())) {
    write(text);
  }
}

/** What the tail hands on. */
export interface TailHandlers {
  events(events: PrintedEvent[]): void;
  /** The server dropped this many events the reader was too slow for. */
  dropped(count: number): void;
}

/** An open tail: connected, its events not read yet. */
export interface OpenTail {
  /**
   * Reads events until `signal` ends it, connecting again when the server
   * ends a tail (it does so now and then, to check the token anew).
   */
  follow(handlers: TailHandlers): Promise<void>;
}

/**
 * Connects the live tail of the filters. It is connected before the page
 * printed first is read, so no query falls between the two; `follow`
 * leaves out those the page already showed.
 */
export async function openTail(
  api: ApiObjects,
  filters: EventFilters,
  signal: AbortSignal,
): Promise<OpenTail & { skip(events: readonly PrintedEvent[]): void }> {
  const path = `/api/v1/querylog/tail?${apiQuery(filters)}`;
  let res: Response | undefined = await api.stream(path, signal);
  const shown = new Set<string>();
  return {
    skip(events) {
      for (const e of events) shown.add(sameEvent(e));
    },
    async follow(handlers) {
      try {
        while (!signal.aborted) {
          res ??= await api.stream(path, signal);
          await readEvents(res, (name, data) => {
            if (name === "query") {
              const event = eventOfEntry(JSON.parse(data) as QueryLogEntry);
              if (shown.size > 0 && shown.has(sameEvent(event))) return;
              handlers.events([event]);
            } else if (name === "dropped") {
              handlers.dropped(
                (JSON.parse(data) as { dropped: number }).dropped,
              );
            }
          });
          // The server ended this tail (event: end): connect again. Queries
          // answered in the moment between the two may be missed.
          res = undefined;
          shown.clear();
        }
      } catch (err) {
        if (!signal.aborted) throw err;
      } finally {
        await res?.body?.cancel().catch(() => {});
      }
    },
  };
}

/** What tells a live event from the same one in the log (which has an id). */
function sameEvent(e: PrintedEvent): string {
  return JSON.stringify([
    e.time,
    e.clientAddress,
    e.clientPort,
    e.qname,
    e.qtype,
    e.status,
  ]);
}

/**
 * The Server-Sent Events of `res`, each as its `event` name and `data`,
 * until the server closes the stream or sends `event: end`.
 */
async function readEvents(
  res: Response,
  onEvent: (name: string, data: string) => void,
): Promise<void> {
  if (res.body === null) return;
  let buffer = "";
  for await (const text of res.body.pipeThrough(new TextDecoderStream())) {
    buffer += text.replaceAll("\r\n", "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue; // a ping
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") name = value;
        else if (field === "data") data.push(value);
      }
      if (name === "end") return;
      if (data.length > 0) onEvent(name, data.join("\n"));
    }
  }
}
