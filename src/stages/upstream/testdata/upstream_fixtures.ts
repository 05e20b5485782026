/**
 * Test fixtures for the upstream stage: settings parsed by the real config
 * schemas, a scripted Resolver (the seam of src/upstream/types.ts; the real
 * resolver has its own socket tests), upstream answers encoded by our own
 * compressing encoder, and Requests from any client address.
 */
import { parseRdata } from "../../../dns/rdata_text.ts";
import { typeFromName } from "../../../dns/wire/constants.ts";
import {
  encodeResponse,
  type ResponseSpec,
} from "../../../dns/wire/response.ts";
import {
  cacheSchema,
  ratelimitSchema,
  upstreamsSchema,
} from "../../../config/schema_resolver.ts";
import type { ClientInfo, Transport } from "../../../pipeline/handler.ts";
import type { Request } from "../../../pipeline/request.ts";
import type { Snapshot } from "../../../pipeline/snapshot.ts";
import { buildRequest } from "../../../pipeline/request_builder.ts";
import type { UpstreamsSettings } from "../../../pipeline/settings.ts";
import { snapshotOf } from "../../../testing/fixtures.ts";
import {
  encodeQuery,
  type QueryOptions,
} from "../../../testing/query_bytes.ts";
import type {
  Resolver,
  UpstreamRequest,
  UpstreamResult,
} from "../../../upstream/types.ts";
import type { RRSet } from "../../../dns/rrset.ts";
import type { ForwardZone } from "../../../zone/types.ts";

/** `upstreams` as the config loader would produce it from `input`. */
export function upstreamsOf(input: unknown = {}): UpstreamsSettings {
  return upstreamsSchema.parse(input);
}

/** A snapshot with data-plane settings (`upstreams` from `input`). */
export function snapshotWith(
  upstreams: UpstreamsSettings,
  forwardZones: ForwardZone[] = [],
): Snapshot {
  return {
    ...snapshotOf([], forwardZones),
    settings: {
      upstreams,
      cache: cacheSchema.parse({}),
      ratelimit: ratelimitSchema.parse({}),
    },
  };
}

/** What a test request needs besides its question. */
export interface ClientRequestOptions extends QueryOptions {
  /** @default "203.0.113.9" */
  address?: string;
  /** @default "udp" */
  transport?: Transport;
  snapshot?: Snapshot | undefined;
}

/** A Request for `question` from any client address. */
export function requestFrom(
  question: string,
  opts: ClientRequestOptions = {},
): Request {
  const client: ClientInfo = {
    address: opts.address ?? "203.0.113.9",
    port: 40000,
    transport: opts.transport ?? "udp",
  };
  return buildRequest(encodeQuery(question, opts), {
    client,
    snapshot: opts.snapshot,
    node: { name: "node-a", version: "1.2.3" },
    received: 0,
  });
}

/** Records from `"owner ttl IN TYPE rdata"` lines, one RRset per line. */
export function rrsets(lines: string[]): RRSet[] {
  return lines.map((line) => {
    const [name, ttl, , type, ...rest] = line.trim().split(/\s+/) as string[];
    return {
      name: name!,
      type: typeFromName(type!)!,
      ttl: Number(ttl),
      rdata: [parseRdata(type!, rest.join(" "))],
    };
  });
}

/** An upstream's answer to `question` (written `"name. TYPE"`), compressed. */
export function upstreamAnswer(
  question: string,
  spec: Partial<ResponseSpec> = {},
): Uint8Array {
  const [name, type] = question.split(/\s+/) as [string, string];
  return encodeResponse({
    id: 0xbeef,
    opcode: 0,
    rcode: 0,
    rd: true,
    ra: true,
    question: { name, type: typeFromName(type)!, class: 1 },
    ...spec,
  }, 65535);
}

/** One call the scripted resolver received. */
export interface ResolveCall {
  group: string;
  request: UpstreamRequest;
}

/** A Resolver that answers from a script and records its calls. */
export interface ScriptedResolver extends Resolver {
  calls: ResolveCall[];
  closed: number;
}

/** A resolver answering every question with `result` (or what `script` returns). */
export function scriptedResolver(
  script: UpstreamResult | ((call: ResolveCall) => UpstreamResult),
): ScriptedResolver {
  const resolver: ScriptedResolver = {
    calls: [],
    closed: 0,
    resolve(group, request) {
      const call = { group, request };
      resolver.calls.push(call);
      return Promise.resolve(
        typeof script === "function" ? script(call) : script,
      );
    },
    close() {
      resolver.closed++;
      return Promise.resolve();
    },
  };
  return resolver;
}

/** A successful result carrying `message`. */
export function answered(message: Uint8Array): UpstreamResult {
  return { ok: true, message, server: "tls://192.0.2.53", rttMs: 3 };
}
