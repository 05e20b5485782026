/**
 * Test fixtures: zones written as presentation-format lines, snapshots of
 * them, and Requests for stage tests.
 */
import { parseRdata, typeCode } from "../../dns/rdata_text.ts";
import { compareNames } from "../../zone/canonical_order.ts";
import type { RecordData, RRSet } from "../../dns/rrset.ts";
import type { ForwardZone, ZoneContent } from "../../zone/types.ts";
import type { ClientInfo, Transport } from "../handler.ts";
import type { Request } from "../request.ts";
import { buildRequest } from "../request_builder.ts";
import type { Snapshot } from "../snapshot.ts";
import { encodeQuery, type QueryOptions } from "./query_bytes.ts";

/**
 * A zone from lines `owner ttl class type rdata`, e.g.
 * `example.org. 3600 IN SOA ns1.example.org. host.example.org. 1 7200 3600 1209600 300`.
 */
export function zoneFromText(name: string, lines: string[]): ZoneContent {
  const byKey = new Map<string, RRSet>();
  let serial = 0;
  for (const line of lines) {
    const [owner, ttl, , type, ...rest] = line.trim().split(/\s+/) as string[];
    const rdata = recordData(type!, rest);
    if (rdata.type === "SOA") serial = rdata.serial;
    const key = `${owner!.toLowerCase()} ${type}`;
    const rrset = byKey.get(key) ??
      {
        name: owner!.toLowerCase(),
        type: typeCode(type!) ?? 6,
        ttl: Number(ttl),
        rdata: [],
      };
    rrset.rdata.push(rdata);
    byKey.set(key, rrset);
  }
  const rrsets = [...byKey.values()].sort((a, b) =>
    compareNames(a.name, b.name) || a.type - b.type
  );
  return {
    name,
    objectName: name.replace(/\.$/, "") || "root",
    serial,
    rrsets,
  };
}

function recordData(type: string, fields: string[]): RecordData {
  if (type !== "SOA") return parseRdata(type, fields.join(" "));
  const [mname, rname, ...numbers] = fields;
  const [serial, refresh, retry, expire, minimum] = numbers.map(Number);
  return {
    type: "SOA",
    mname: mname!,
    rname: rname!,
    serial: serial!,
    refresh: refresh!,
    retry: retry!,
    expire: expire!,
    minimum: minimum!,
  };
}

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
}

/** A Request for `question` (`"www.example.org. A"`), as the handler builds it. */
export function requestFor(
  question: string,
  opts: RequestOptions = {},
): Request {
  const client: ClientInfo = {
    address: "192.0.2.7",
    port: 40000,
    transport: opts.transport ?? "udp",
  };
  return buildRequest(encodeQuery(question, opts), {
    client,
    snapshot: opts.snapshot,
    node: opts.snapshot?.node ?? { name: "node-a", version: "1.2.3" },
    received: 0,
  });
}
