/**
 * Shared by the query-log tests: events, settings through the real schema,
 * and a temporary directory that removes itself.
 */
import { join } from "node:path";
import type { QueryEvent } from "../pipeline/query_event.ts";
import { querylogSchema } from "../config/schema_resolver.ts";
import type { QueryLogSettings } from "./settings.ts";
import { memoryLogger } from "../log/logger.ts";
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
