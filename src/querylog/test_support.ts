/**
 * Shared by the query-log tests: events, settings through the real schema,
 * a temporary directory that removes itself, and the stored events as rows.
 */
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import type { QueryEvent } from "../pipeline/query_event.ts";
import { querylogSchema } from "../config/schema_resolver.ts";
import type { QueryLogSettings } from "./settings.ts";
import { memoryLogger } from "../log/logger.ts";
import { C, COLUMNS } from "./chunk_codec.ts";
import { EventChunks } from "./event_chunks.ts";
import { QUERYLOG_DB_FILE } from "./db.ts";
import {
  createQueryLogWriter,
  type QueryLogWriter,
  type QueryLogWriterOptions,
} from "./writer.ts";

/** 2030-01-01T00:00:00Z: a round, fixed time. */
export const T0 = Date.UTC(2030, 0, 1);

/** A forwarded A query, with `overrides`. */
export function queryEvent(overrides: Partial<QueryEvent> = {}): QueryEvent {
  return {
    time: T0,
    node: "node-a",
    clientAddress: "192.0.2.10",
    clientPort: 53000,
    transport: "udp",
    groups: ["default/default"],
    qname: "www.example.com.",
    qtype: 1,
    qclass: 1,
    rcode: 0,
    status: "forwarded",
    stage: "upstream",
    upstream: "default/1.1.1.1",
    dnssecOk: false,
    authenticData: false,
    answer: "A 192.0.2.1",
    responseSize: 60,
    durationUs: 12_000,
    ...overrides,
  };
}

/** `querylog` settings with the schema's defaults under `input`. */
export function querylogSettings(input: unknown = {}): QueryLogSettings {
  return querylogSchema.parse(input);
}

/** A temporary directory with a querylog.db path in it, removed on dispose. */
export async function tempQueryLog() {
  const dir = await Deno.makeTempDir({ prefix: "kudurru-querylog-" });
  return {
    dir,
    path: join(dir, "querylog.db"),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/**
 * A writer on `path` with quiet defaults for tests (no timers firing on
 * their own unless asked), closed on dispose.
 */
export function testWriter(
  path: string,
  opts: Partial<QueryLogWriterOptions> = {},
): QueryLogWriter & AsyncDisposable {
  const writer = createQueryLogWriter({
    path,
    node: "node-a",
    settings: querylogSettings(),
    logger: memoryLogger(),
    now: () => T0 + 3_600_000,
    flushIntervalMs: 3_600_000,
    retentionIntervalMs: 0,
    ...opts,
  });
  return Object.assign(writer, {
    [Symbol.asyncDispose]: () => writer.close(),
  });
}

/**
 * A stored event as the v1 `events` table had it: dictionary ids, with
 * null for an absent optional (upstream, list, rule, answer, groups).
 */
export interface StoredEvent {
  id: number;
  time: number;
  node: number;
  client: number;
  port: number;
  transport: number;
  qname: number;
  qtype: number;
  qclass: number;
  rcode: number;
  status: number;
  stage: number;
  upstream: number | null;
  list: number | null;
  rule: number | null;
  flags: number;
  answer: number | null;
  size: number;
  duration_us: number;
  groups: number | null;
}

/** Every stored event (all chunks decoded), in id order. */
export function storedEvents(db: DatabaseSync): StoredEvent[] {
  const events: StoredEvent[] = [];
  for (const chunk of new EventChunks(db).read(0, Number.MAX_SAFE_INTEGER)) {
    for (let i = 0; i < chunk.count; i++) {
      const at = i * COLUMNS;
      const value = (c: number) => chunk.rows[at + c]!;
      const optional = (c: number) => value(c) === 0 ? null : value(c);
      events.push({
        id: chunk.firstId + i,
        time: value(C.time),
        node: value(C.node),
        client: value(C.client),
        port: value(C.port),
        transport: value(C.transport),
        qname: value(C.qname),
        qtype: value(C.qtype),
        qclass: value(C.qclass),
        rcode: value(C.rcode),
        status: value(C.status),
        stage: value(C.stage),
        upstream: optional(C.upstream),
        list: optional(C.list),
        rule: optional(C.rule),
        flags: value(C.flags),
        answer: optional(C.answer),
        size: value(C.size),
        duration_us: value(C.durationUs),
        groups: optional(C.groups),
      });
    }
  }
  return events;
}

/** Ids of the labels of `kind` (statuses, say) whose text passes `keep`. */
export function labelIds(
  db: DatabaseSync,
  kind: string,
  keep: (text: string) => boolean,
): Set<number> {
  const ids = new Set<number>();
  for (
    const row of db.prepare("SELECT id, text FROM labels WHERE kind = ?")
      .all(kind)
  ) {
    if (keep(String(row.text))) ids.add(Number(row.id));
  }
  return ids;
}

/** Runs `fn` with the machine's time zone set to `tz` (Deno applies it at once). */
export async function inZone(tz: string, fn: () => void | Promise<void>) {
  const saved = Deno.env.get("TZ");
  Deno.env.set("TZ", tz);
  try {
    await fn();
  } finally {
    if (saved === undefined) Deno.env.delete("TZ");
    else Deno.env.set("TZ", saved);
  }
}

/**
 * A data directory whose query log holds `events` (written and closed),
 * removed on dispose: what `kudurru querylog` and `stats` read.
 */
export async function queryLogDataDir(events: QueryEvent[], prefix: string) {
  const dir = await Deno.makeTempDir({ prefix });
  const writer = testWriter(join(dir, QUERYLOG_DB_FILE));
  writer.enqueue(events);
  await writer.close();
  return {
    dir,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}
