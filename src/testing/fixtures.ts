/**
 * Test fixtures: zones written as presentation-format lines, snapshots of
 * them, and Requests for stage tests.
 */
import type { ForwardZone, ZoneContent } from "../zone/types.ts";
import type { ClientInfo, Transport } from "../pipeline/handler.ts";
import type { Request } from "../pipeline/request.ts";
import { buildRequest } from "../pipeline/request_builder.ts";
import type { Snapshot } from "../pipeline/snapshot.ts";
import { encodeQuery, type QueryOptions } from "./query_bytes.ts";

/** A snapshot holding `zones` and `forwardZones`. */
export function snapshotOf(
  zones: ZoneContent[],
  forwardZones: ForwardZone[] = [],
  version = 1,
): Snapshot {
  return {
    version,
    builtAt: "2025-01-01T00:00:00.000Z",
    node: { name: "node-a", version: "1.2.3" },
    zones,
    forwardZones,
  };
}

/** What a test request needs besides its question. */
export interface RequestOptions extends QueryOptions {
  /** @default "udp" */
  transport?: Transport;
  snapshot?: Snapshot;
  /** The client's address. @default "192.0.2.7" */
  client?: string;
  /** The connection's sink for answers of many messages (ClientInfo.streams). */
  streams?: ClientInfo["streams"];
}

/** A Request for `question` (`"www.example.org. A"`), as the handler builds it. */
export function requestFor(
  question: string,
  opts: RequestOptions = {},
): Request {
  const client: ClientInfo = {
    address: opts.client ?? "192.0.2.7",
    port: 40000,
    transport: opts.transport ?? "udp",
    ...(opts.streams !== undefined && { streams: opts.streams }),
  };
  return buildRequest(encodeQuery(question, opts), {
    client,
    snapshot: opts.snapshot,
    node: opts.snapshot?.node ?? { name: "node-a", version: "1.2.3" },
    received: 0,
  });
}
