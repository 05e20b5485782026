/**
 * The zone as an RFC 1035 master file, at /api/v1/dnszones/{zone}/zonefile:
 * to download (GET) and to import (POST).
 *
 * An import puts one endpoint per RRset into the record sets the API
 * manages for the zone (zone_records.ts), so a zone of 100,000 RRsets takes
 * 100 record sets, not 100,000 objects. A record that a file's (or an
 * integration's) record set declares is skipped, naming it.
 *
 * An import is bounded by `limits` (4 MiB, 100,000 records): 413 past
 * either, and nothing is written. The app's own body limit
 * (MAX_BODY_BYTES) applies before this route's.
 */
import { refuseIfReadOnly } from "./objects.ts";
import { requestOrigin } from "../request_origin.ts";
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { DNSZone } from "../../api/v1alpha1/dnszone.ts";
import { isSubdomainOf, normalizeName } from "../../dns/name.ts";
import { buildZoneContent } from "../../zone/content.ts";
import { zoneNameOf } from "../../zone/content_apex.ts";
import { formatRdata } from "../../zone/format.ts";
import { formatZoneFile } from "../../zone/zone_file_format.ts";
import {
  MAX_ZONE_FILE_BYTES,
  MAX_ZONE_FILE_RECORDS,
  parseZoneFile,
  type SkippedLine,
  ZoneFileLimitError,
  type ZoneFileRecord,
} from "../../zone/zone_file_parse.ts";
import { ok } from "../envelope.ts";
import { ApiError, describeManager, invalidBody } from "../errors.ts";
import { objectBody } from "../json_body.ts";
import type { RoutesTable } from "../routes_table.ts";
import { dataContent, errorResponses } from "./openapi_parts.ts";
import { ZoneRecordEditor } from "./zone_records.ts";
import {
  checkChanges,
  getZone,
  listRecordSets,
  NS,
  problem,
  problemsOf,
  recordSetRef,
  requirePrimary,
  writeChanges,
  zoneParam,
  type ZoneRoutesDeps,
  zoneScope,
} from "./zone_route_parts.ts";

/** Most skipped lines an import report lists (`skippedCount` counts them all). */
const MAX_REPORTED_SKIPS = 1000;

/** The SOA record type's code. */
const SOA = 6;

const skippedLine = z.object({
  line: z.number().int(),
  text: z.string(),
  reason: z.string(),
});

/** The zone file routes. */
export function zoneFileRoutes(deps: ZoneRoutesDeps) {
  const now = deps.now ?? Date.now;
  const maxBytes = deps.limits?.bytes ?? MAX_ZONE_FILE_BYTES;
  const maxRecords = deps.limits?.records ?? MAX_ZONE_FILE_RECORDS;
  return (routes: RoutesTable): void => {
    routes.define({
      method: "get",
      path: "/api/v1/dnszones/{zone}/zonefile",
      guard: { resource: "dnsrecordsets", verb: "list", scope: zoneScope },
      openapi: {
        tags: ["Records"],
        summary: "The zone as an RFC 1035 master file",
        description:
          "What the zone serves, as NSD and Knot read it: $ORIGIN, $TTL, the SOA (with the serial of status.serial), the apex NS, then every RRset in canonical order. Records the zone does not serve (disabled, expired, duplicated, outside the zone) are left out. For a secondary zone, the copy transferred from its primaries (read-only; 503 while there is none).",
        request: { params: zoneParam },
        responses: {
          200: {
            description: "The master file",
            content: { "text/plain": { schema: z.string() } },
          },
          ...errorResponses,
        },
      },
    }, async (c) => {
      const zone = await getZone(deps.store, c.req.param("zone")!);
      if (zone.spec?.type === "secondary") {
        return c.body(secondaryZoneFile(zone, deps), 200, {
          "content-type": "text/plain; charset=utf-8",
        });
      }
      requirePrimary(zone);
      const build = buildZoneContent(
        zone,
        await listRecordSets(deps.store),
        new Date(now()),
      );
      const content = build.content;
      const comments = [
        `zone ${content.name} (DNSZone ${zone.metadata.name}), serial ${content.serial}, exported by kudurru`,
        ...(build.problems.length > 0
          ? [
            `${build.problems.length} endpoint(s) of the zone's DNSRecordSets are not served and not written here; see their status`,
          ]
          : []),
      ];
      const text = formatZoneFile(content, {
        defaultTTL: zone.spec?.defaultTTL ?? 300,
        comments,
      });
      return c.body(text, 200, {
        "Content-Type": "text/plain; charset=utf-8",
      });
    });

    routes.define({
      method: "post",
      path: "/api/v1/dnszones/{zone}/zonefile",
      guard: { resource: "dnsrecordsets", verb: "create", scope: zoneScope },
      openapi: {
        tags: ["Records"],
        summary: "Import an RFC 1035 master file into the zone",
        description:
          `Adds every record of the file to the API's record sets of the zone (one endpoint per RRset; a record set per 1,000 RRsets), merged with what they hold; the file's TTL becomes its RRset's. Skipped, with line and reason: records outside the zone, the apex SOA (the DNSZone's spec.soa), the apex NS when the DNSZone has spec.nameservers, records a file's or an integration's record set declares, types kudurru does not serve, classes other than IN, $INCLUDE (files named by an upload are never read) and $GENERATE, malformed lines. At most ${maxBytes} bytes and ${maxRecords} records (413). \`?dryRun=true\` reports without writing.`,
        request: {
          params: zoneParam,
          query: z.object({ dryRun: z.string().optional() }),
          body: {
            required: true,
            content: {
              "text/plain": { schema: z.string() },
              "application/json": { schema: z.object({ text: z.string() }) },
            },
          },
        },
        responses: {
          200: {
            description: "What was imported and what was skipped",
            content: dataContent(z.object({
              imported: z.number().int(),
              alreadyPresent: z.number().int(),
              skipped: z.array(skippedLine),
              skippedCount: z.number().int(),
              recordSets: z.array(recordSetRef.extend({
                action: z.enum(["create", "update", "delete"]),
              })),
              problems: z.array(problem),
              dryRun: z.boolean(),
            })),
          },
          ...errorResponses,
        },
      },
    }, async (c) => {
      const dryRun = ["true", "1"].includes(c.req.query("dryRun") ?? "");
      if (!dryRun) refuseIfReadOnly(deps);
      const zone = await getZone(deps.store, c.req.param("zone")!);
      requirePrimary(zone);
      const text = await zoneFileBody(c, maxBytes);
      let parse;
      try {
        parse = parseZoneFile(text, {
          origin: zoneNameOf(zone),
          maxBytes,
          maxRecords,
        });
      } catch (error) {
        if (!(error instanceof ZoneFileLimitError)) throw error;
        throw new ApiError("body_too_large", error.message, {
          hint: "split the zone file and import the parts one after another",
        });
      }
      const editor = new ZoneRecordEditor(
        zone,
        await listRecordSets(deps.store),
      );
      const imported = importRecords(zone, editor, parse.records);
      const changes = editor.changes();
      if (dryRun) checkChanges(changes);
      else await writeChanges(deps.store, changes, requestOrigin(c));
      const skipped = [...parse.skipped, ...imported.skipped]
        .sort((a, b) => a.line - b.line)
        .slice(0, MAX_REPORTED_SKIPS);
      return ok(c, {
        imported: imported.added,
        alreadyPresent: imported.present,
        skipped,
        skippedCount: parse.skippedCount + imported.skipped.length,
        recordSets: changes.map((ch) => ({
          namespace: ch.object.metadata.namespace ?? "",
          name: ch.object.metadata.name,
          action: ch.action,
        })),
        problems: problemsOf(zone, editor.current(), now(), changes),
        dryRun,
      });
    });
  };
}

/** One RRset of the file, as it will be added. */
interface ImportGroup {
  owner: string;
  type: string;
  code: number;
  ttl: number | undefined;
  targets: string[];
  records: ZoneFileRecord[];
}

/**
 * Adds the file's records to the editor, one RRset at a time; what the zone
 * object holds, what lies outside the zone and what another manager
 * declares is skipped.
 */
function importRecords(
  zone: DNSZone,
  editor: ZoneRecordEditor,
  records: readonly ZoneFileRecord[],
): { added: number; present: number; skipped: SkippedLine[] } {
  const zoneName = zoneNameOf(zone);
  const hasNameservers = (zone.spec?.nameservers?.length ?? 0) > 0;
  const skipped: SkippedLine[] = [];
  const skip = (r: ZoneFileRecord, reason: string) =>
    skipped.push({ line: r.line, text: r.text, reason });
  const groups = new Map<string, ImportGroup>();
  for (const r of records) {
    if (!isSubdomainOf(r.owner, zoneName)) {
      skip(r, `${r.owner} is outside the zone ${zoneName}`);
      continue;
    }
    if (r.code === SOA) {
      skip(
        r,
        r.owner === zoneName
          ? "the SOA comes from the DNSZone (spec.soa; the serial is status.serial)"
          : "an SOA below the apex belongs to that zone's own DNSZone",
      );
      continue;
    }
    if (r.code === NS && r.owner === zoneName && hasNameservers) {
      skip(r, "the apex NS comes from the DNSZone's spec.nameservers");
      continue;
    }
    const key = `${r.owner} ${r.code}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = {
        owner: r.owner,
        type: r.type,
        code: r.code,
        ttl: undefined,
        targets: [],
        records: [],
      };
      groups.set(key, group);
    }
    if (r.ttl !== undefined) group.ttl = Math.min(group.ttl ?? r.ttl, r.ttl);
    group.targets.push(formatRdata(r.rdata));
    group.records.push(r);
  }
  let added = 0;
  let present = 0;
  for (const group of groups.values()) {
    const foreign = editor.foreignHolder(group.owner, group.code);
    if (foreign !== undefined) {
      const where =
        `DNSRecordSet ${foreign.recordSet.namespace}/${foreign.recordSet.name}`;
      for (const r of group.records) {
        skip(
          r,
          `${group.owner} ${group.type} is declared by ${where}, managed by ${
            describeManager(foreign.managedBy)
          }`,
        );
      }
      continue;
    }
    const result = editor.add(
      group.owner,
      group.type,
      group.targets,
      group.ttl,
    );
    added += result.added;
    present += result.present;
  }
  return { added, present, skipped };
}

/** The import's text: a text/plain body, or `{text}` in JSON, within the limit. */
async function zoneFileBody(c: Context, maxBytes: number): Promise<string> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim()
    .toLowerCase();
  if (type === "text/plain" || type === "text/dns") {
    return await cappedText(c, maxBytes);
  }
  if (type === "application/json") {
    // JSON escapes take room: allow for them; the parser counts the text itself.
    const raw = await cappedText(c, 2 * maxBytes);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch (error) {
      throw new ApiError(
        "invalid_json",
        `The body is not JSON: ${(error as Error).message}`,
      );
    }
    const text = objectBody(body).text;
    if (typeof text !== "string") {
      throw invalidBody([{ path: "text", message: "is required (a string)" }]);
    }
    return text;
  }
  throw new ApiError(
    "unsupported_media_type",
    `Cannot read a zone file of type "${type || "none"}"`,
    { hint: 'send the file as text/plain, or JSON {"text": "…"}' },
  );
}

/** The body as UTF-8 text, read no further than `max` bytes (413 past it). */
async function cappedText(c: Context, max: number): Promise<string> {
  const body = c.req.raw.body;
  if (body === null) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > max) {
      await reader.cancel();
      throw new ApiError(
        "body_too_large",
        `The body is larger than ${max} bytes`,
        { hint: "split the zone file and import the parts one after another" },
      );
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError("bad_request", "The zone file is not UTF-8 text");
  }
}

/**
 * A secondary zone's copy as the listeners serve it, as a master file:
 * its records come from its primaries and cannot be changed here.
 */
function secondaryZoneFile(zone: DNSZone, deps: ZoneRoutesDeps): string {
  const name = normalizeName(zone.spec!.zoneName);
  const content = deps.servedContent?.(name);
  if (content === undefined || content.unavailable !== undefined) {
    throw new ApiError(
      "unavailable",
      `DNSZone ${zone.metadata.name} is a secondary zone with no copy served: ${
        content?.unavailable ?? "not transferred yet"
      }`,
    );
  }
  return formatZoneFile(content, {
    comments: [
      `zone ${name} (secondary DNSZone ${zone.metadata.name}), serial ${content.serial}, as transferred from its primaries; read-only here`,
    ],
  });
}
