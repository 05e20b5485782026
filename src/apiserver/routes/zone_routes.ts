/**
 * A zone's records without the objects that hold them: the flat list, one
 * record added or removed, and the zone as an RFC 1035 master file, to
 * download and to import. `{zone}` is the DNSZone object's name (what a
 * record set's zoneRef names, and what a zone-admin binding names).
 *
 * Writes go through the Store as manager "api" into the record sets the
 * API manages for the zone (zone_records.ts): `default/<zone>-api`, then
 * `<zone>-api-2`… once one holds MAX_ENDPOINTS (1,000) endpoints. An import
 * puts one endpoint per RRset there, so a zone of 100,000 RRsets takes
 * 100 record sets, not 100,000 objects. A record that a file's (or an
 * integration's) record set declares is answered 409 `managed_by` naming
 * it, on add and on remove; an import skips it with the same reason.
 *
 * An import is bounded by `limits` (4 MiB, 100,000 records): 413 past
 * either, and nothing is written. The app's own body limit
 * (MAX_BODY_BYTES) applies before this route's.
 */
import { requestOrigin } from "../request_origin.ts";
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { DNSZone } from "../../api/v1alpha1/dnszone.ts";
import type { DNSRecordSet } from "../../api/v1alpha1/dnsrecordset.ts";
import { MAX_TTL } from "../../api/v1alpha1/field_schemas.ts";
import { validateObject } from "../../api/v1alpha1/validate.ts";
import { checkDomainName, isSubdomainOf } from "../../dns/name.ts";
import { RECORD_TYPES, typeCode } from "../../dns/rdata_text.ts";
import type { RecordSetProblem } from "../../zone/content_checks.ts";
import { buildZoneContent } from "../../zone/content.ts";
import { zoneNameOf } from "../../zone/content_apex.ts";
import { formatRdata } from "../../zone/format.ts";
import { formatZoneFile } from "../../zone/zone_file_format.ts";
import {
  endpointTypeName,
  MAX_ZONE_FILE_BYTES,
  MAX_ZONE_FILE_RECORDS,
  parseZoneFile,
  type SkippedLine,
  ZoneFileLimitError,
  type ZoneFileRecord,
} from "../../zone/zone_file_parse.ts";
import {
  InvalidObjectError,
  ManagedByError,
  type ObjectKey,
  originOptions,
  type Store,
  type WriteOrigin,
} from "../../store/store.ts";
import { ok } from "../envelope.ts";
import { ApiError, describeManager, invalidBody } from "../errors.ts";
import { jsonBody, objectBody } from "../json_body.ts";
import type { RoutesTable } from "../routes_table.ts";
import type { FieldIssue } from "../../api/v1alpha1/validate.ts";
import { API_MANAGER } from "./objects.ts";
import { errorResponses } from "./openapi_parts.ts";
import {
  type ForeignRecord,
  ownerOf,
  recordKey,
  type RecordRow,
  recordRows,
  type RecordSetChange,
  type RecordSetRef,
  ZoneRecordEditor,
} from "./zone_records.ts";

export interface ZoneRoutesDeps {
  store: Store;
  /** The clock for disabled and expiring endpoints in the export. @default Date.now */
  now?: () => number;
  /**
   * Bounds of an import: UTF-8 bytes of the file (413 past it) and records
   * in it (413). @default MAX_ZONE_FILE_BYTES (4 MiB), MAX_ZONE_FILE_RECORDS (100,000)
   */
  limits?: { bytes?: number; records?: number };
  /** Why objects cannot be written here now, if they cannot (a static node): writes are 409 read_only. */
  readOnlyReason?(): string | undefined;
}

/** Most skipped lines an import report lists (`skippedCount` counts them all). */
const MAX_REPORTED_SKIPS = 1000;
/** Most problems a write's answer lists. */
const MAX_REPORTED_PROBLEMS = 100;

const SOA = 6;
const NS = 2;

const zoneParam = z.object({
  zone: z.string().openapi({ description: "The DNSZone object's name" }),
});

const recordSetRef = z.object({ namespace: z.string(), name: z.string() });

const recordRow = z.object({
  recordSet: recordSetRef,
  managedBy: z.string(),
  name: z.string().openapi({ description: "The owner, fully qualified" }),
  type: z.string(),
  ttl: z.number().int(),
  data: z.string(),
  disabled: z.literal(true).optional(),
});

const problem = z.object({
  recordSet: recordSetRef,
  reason: z.string(),
  message: z.string(),
  endpoint: z.number().int(),
});

const recordInput = z.object({
  name: z.string().openapi({
    description:
      "The owner, absolute with or without the final dot (`www.example.org`), or `@` for the apex",
  }),
  type: z.string().openapi({ description: "`A`, `MX`, … or `TYPEnnn`" }),
  ttl: z.number().int().min(0).max(MAX_TTL).optional().openapi({
    description: "The TTL of the whole RRset (RFC 2181 §5.2)",
  }),
  data: z.string().openapi({
    description:
      "The record's data as a DNSRecordSet target writes it (`10 mail.example.org`)",
  }),
});

const skippedLine = z.object({
  line: z.number().int(),
  text: z.string(),
  reason: z.string(),
});

function envelope(data: z.ZodType) {
  return {
    "application/json": {
      schema: z.object({ data, took_ms: z.number() }),
    },
  };
}

const zoneScope = (c: Context) => ({
  kind: "zone" as const,
  name: c.req.param("zone")!,
});

/** The zone routes. */
export function zoneRoutes(deps: ZoneRoutesDeps) {
  const now = deps.now ?? Date.now;
  const maxBytes = deps.limits?.bytes ?? MAX_ZONE_FILE_BYTES;
  const maxRecords = deps.limits?.records ?? MAX_ZONE_FILE_RECORDS;
  return (routes: RoutesTable): void => {
    routes.define({
      method: "get",
      path: "/api/v1/dnszones/{zone}/records",
      guard: { resource: "dnsrecordsets", verb: "list", scope: zoneScope },
      openapi: {
        tags: ["Records"],
        summary: "List a zone's records, one row per record",
        description:
          "Every target of every endpoint of every DNSRecordSet whose zoneRef is the zone, in canonical name order. `name` and `type` narrow the list.",
        request: {
          params: zoneParam,
          query: z.object({
            name: z.string().optional(),
            type: z.string().optional(),
          }),
        },
        responses: {
          200: {
            description: "The records",
            content: envelope(z.object({
              zone: z.object({
                name: z.string(),
                zoneName: z.string(),
                defaultTTL: z.number().int(),
                serial: z.number().int().optional(),
              }),
              items: z.array(recordRow),
            })),
          },
          ...errorResponses,
        },
      },
    }, async (c) => {
      const zone = await getZone(deps.store, c.req.param("zone")!);
      let items = recordRows(zone, await listRecordSets(deps.store));
      const name = c.req.query("name");
      if (name) {
        const owner = name === "@" ? zoneNameOf(zone) : ownerOf(name);
        items = items.filter((row) => row.name === owner);
      }
      const type = c.req.query("type");
      if (type) {
        const code = typeCode(type.toUpperCase());
        items = items.filter((row) => typeCode(row.type) === code);
      }
      return ok(c, {
        zone: {
          name: zone.metadata.name,
          zoneName: zoneNameOf(zone),
          defaultTTL: zone.spec?.defaultTTL ?? 300,
          ...(zone.status?.serial !== undefined &&
            { serial: zone.status.serial }),
        },
        items,
      });
    });

    routes.define({
      method: "post",
      path: "/api/v1/dnszones/{zone}/records",
      guard: { resource: "dnsrecordsets", verb: "create", scope: zoneScope },
      openapi: {
        tags: ["Records"],
        summary: "Add one record to a zone",
        description:
          "Into the endpoint of the API's record set that holds the name and type, else a new one (`default/<zone>-api`, made when missing). `ttl` sets the whole RRset's TTL; without it the RRset keeps its own. 201 when added, 200 when the record was there already. `problems` says why the zone would not serve it (a CNAME beside other data, …).",
        request: {
          params: zoneParam,
          body: {
            required: true,
            content: { "application/json": { schema: recordInput } },
          },
        },
        responses: {
          201: {
            description: "Added",
            content: envelope(z.object({
              record: recordRow,
              problems: z.array(problem),
            })),
          },
          200: {
            description: "The record was there already",
            content: envelope(z.object({
              record: recordRow,
              problems: z.array(problem),
            })),
          },
          ...errorResponses,
        },
      },
    }, async (c) => {
      refuseIfReadOnly(deps);
      const zone = await getZone(deps.store, c.req.param("zone")!);
      requirePrimary(zone);
      const input = recordFromBody(objectBody(await jsonBody(c)), zone, "add");
      const sets = await listRecordSets(deps.store);
      const editor = new ZoneRecordEditor(zone, sets);
      refuseForeign(editor.foreignHolder(input.owner, input.code));
      const result = editor.add(
        input.owner,
        input.type,
        [input.data],
        input.ttl,
      );
      const changes = editor.changes();
      await writeChanges(deps.store, changes, requestOrigin(c));
      const record: RecordRow = {
        recordSet: result.recordSet,
        managedBy: API_MANAGER,
        name: input.owner,
        type: input.type,
        ttl: result.recordTTL ?? zone.spec?.defaultTTL ?? 300,
        data: result.stored[0]!,
      };
      // Only what the zone says about this record: a build around its name.
      const problems = problemsOf(
        zone,
        editor.around(input.owner),
        now(),
        changes,
      ).filter((p) =>
        sameRef(p.recordSet, result.recordSet) &&
        p.endpoint === result.endpoint
      );
      return ok(c, { record, problems }, result.added > 0 ? 201 : 200);
    });

    routes.define({
      method: "delete",
      path: "/api/v1/dnszones/{zone}/records",
      guard: { resource: "dnsrecordsets", verb: "delete", scope: zoneScope },
      openapi: {
        tags: ["Records"],
        summary: "Remove one record from a zone",
        description:
          "The record named by `name`, `type` and `data`, in a JSON body (a row of the list will do) or the query. Only records of the API's record sets are removed; one that only a file's record set holds is 409 `managed_by` naming the file.",
        request: {
          params: zoneParam,
          query: z.object({
            name: z.string().optional(),
            type: z.string().optional(),
            data: z.string().optional(),
          }),
          body: {
            required: false,
            content: {
              "application/json": {
                schema: recordInput.omit({ ttl: true }),
              },
            },
          },
        },
        responses: {
          200: {
            description: "What was removed",
            content: envelope(z.object({ removed: z.array(recordRow) })),
          },
          ...errorResponses,
        },
      },
    }, async (c) => {
      refuseIfReadOnly(deps);
      const zone = await getZone(deps.store, c.req.param("zone")!);
      const input = recordFromBody(await deleteBody(c), zone, "remove");
      const editor = new ZoneRecordEditor(
        zone,
        await listRecordSets(deps.store),
      );
      const { removed, foreign } = editor.remove(
        input.owner,
        input.code,
        recordKey(input.type, input.data),
      );
      if (removed.length === 0) {
        refuseForeign(foreign);
        throw new ApiError(
          "not_found",
          `No record ${input.owner} ${input.type} ${input.data} in DNSZone ${zone.metadata.name}`,
          { hint: "GET the zone's records to see what it holds" },
        );
      }
      await writeChanges(deps.store, editor.changes(), requestOrigin(c));
      return ok(c, { removed });
    });

    routes.define({
      method: "get",
      path: "/api/v1/dnszones/{zone}/zonefile",
      guard: { resource: "dnsrecordsets", verb: "list", scope: zoneScope },
      openapi: {
        tags: ["Records"],
        summary: "The zone as an RFC 1035 master file",
        description:
          "What the zone serves, as NSD and Knot read it: $ORIGIN, $TTL, the SOA (with the serial of status.serial), the apex NS, then every RRset in canonical order. Records the zone does not serve (disabled, expired, duplicated, outside the zone) are left out.",
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
            content: envelope(z.object({
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

/** One record named by a request. */
interface RecordInput {
  owner: string;
  /** Upper case, as the endpoint writes it. */
  type: string;
  code: number;
  ttl: number | undefined;
  data: string;
}

/** Fields of a list row that a DELETE body may carry along unread. */
const ROW_FIELDS = ["recordSet", "managedBy", "ttl", "disabled"];

function recordFromBody(
  body: Record<string, unknown>,
  zone: DNSZone,
  use: "add" | "remove",
): RecordInput {
  const known = use === "add"
    ? ["name", "type", "ttl", "data"]
    : ["name", "type", "data", ...ROW_FIELDS];
  const unknown = Object.keys(body).filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    throw invalidBody(
      unknown.map((path) => ({ path, message: "unknown field" })),
    );
  }
  const issues: FieldIssue[] = [];
  const text = (field: string): string => {
    const value = body[field];
    if (typeof value !== "string" || value.trim() === "") {
      issues.push({ path: field, message: "is required (a string)" });
      return "";
    }
    return value.trim();
  };
  const name = text("name");
  const rawType = text("type");
  const data = text("data");
  const zoneName = zoneNameOf(zone);
  let owner = "";
  if (name !== "") {
    const problem = name === "@"
      ? null
      : checkDomainName(name, { allowWildcard: true });
    owner = name === "@" ? zoneName : ownerOf(name);
    if (problem !== null) {
      issues.push({ path: "name", message: problem });
    } else if (!isSubdomainOf(owner, zoneName)) {
      issues.push({
        path: "name",
        message:
          `${owner} is not in zone ${zoneName} (names are absolute: write www.${zoneName})`,
      });
    }
  }
  const type = rawType.toUpperCase();
  const code = typeCode(type);
  if (rawType !== "" && code === undefined) {
    issues.push({
      path: "type",
      message: type === "SOA"
        ? "the SOA comes from the DNSZone (spec.soa), not from records"
        : `must be one of ${RECORD_TYPES.join(", ")} or TYPEnnn (RFC 3597)`,
    });
  }
  if (
    use === "add" && code === NS && owner === zoneName &&
    (zone.spec?.nameservers?.length ?? 0) > 0
  ) {
    issues.push({
      path: "type",
      message:
        "the apex NS comes from the DNSZone's spec.nameservers; change it there",
    });
  }
  let ttl: number | undefined;
  if (use === "add" && body.ttl !== undefined) {
    if (
      typeof body.ttl !== "number" || !Number.isInteger(body.ttl) ||
      body.ttl < 0 || body.ttl > MAX_TTL
    ) {
      issues.push({
        path: "ttl",
        message: `must be a whole number of seconds, 0 to ${MAX_TTL}`,
      });
    } else ttl = body.ttl;
  }
  if (issues.length > 0) throw invalidBody(issues);
  // `TYPE1` is written `A`, as an import writes it.
  return { owner, type: endpointTypeName(code!), code: code!, ttl, data };
}

/** A DELETE's record: its JSON body, else its query. */
async function deleteBody(c: Context): Promise<Record<string, unknown>> {
  // Hono keeps the text, so jsonBody reads it again.
  if ((await c.req.text()).trim() !== "") {
    return objectBody(await jsonBody(c));
  }
  const query: Record<string, unknown> = {};
  for (const field of ["name", "type", "data"]) {
    const value = c.req.query(field);
    if (value !== undefined) query[field] = value;
  }
  return query;
}

/**
 * A record another manager declares: the Store's ManagedByError for its
 * record set, which app.ts answers 409 `managed_by` naming the owner.
 */
function refuseForeign(foreign: ForeignRecord | undefined): void {
  if (foreign === undefined) return;
  throw new ManagedByError(
    {
      kind: "DNSRecordSet",
      namespace: foreign.recordSet.namespace,
      name: foreign.recordSet.name,
    },
    foreign.managedBy,
    API_MANAGER,
  );
}

/** 409 read_only on a node whose objects cannot be written (objects.ts does the same). */
function refuseIfReadOnly(deps: ZoneRoutesDeps): void {
  const reason = deps.readOnlyReason?.();
  if (reason !== undefined) {
    throw new ApiError(
      "read_only",
      `Objects cannot be changed here: ${reason}`,
    );
  }
}

async function getZone(store: Store, name: string): Promise<DNSZone> {
  return await store.get({ kind: "DNSZone", namespace: "", name }) as DNSZone;
}

async function listRecordSets(store: Store): Promise<DNSRecordSet[]> {
  return (await store.list("DNSRecordSet")).items as DNSRecordSet[];
}

function requirePrimary(zone: DNSZone): void {
  if (zone.spec?.type === "primary") return;
  throw new ApiError(
    "bad_request",
    `DNSZone ${zone.metadata.name} is a ${zone.spec?.type} zone: it holds no records of its own`,
  );
}

function sameRef(a: RecordSetRef, b: RecordSetRef): boolean {
  return a.namespace === b.namespace && a.name === b.name;
}

/**
 * Writes the changed record sets, each checked by the Store's schema first
 * so that an invalid one (422 naming the field) leaves every one unwritten.
 * Updates and deletes are conditional on the version read.
 */
async function writeChanges(
  store: Store,
  changes: readonly RecordSetChange[],
  origin: WriteOrigin,
): Promise<void> {
  checkChanges(changes);
  for (const change of changes) {
    const options = {
      manager: API_MANAGER,
      ...originOptions(origin),
      ...(change.readAt !== undefined &&
        { expectedResourceVersion: change.readAt }),
    };
    if (change.action === "delete") {
      await store.delete(keyOf(change.object), options);
    } else {
      await store.apply(change.object, options);
    }
  }
}

/** The Store's schema check of every record set to write: InvalidObjectError (422) for the first that fails. */
function checkChanges(changes: readonly RecordSetChange[]): void {
  for (const change of changes) {
    if (change.action === "delete") continue;
    const result = validateObject(change.object);
    if (!result.ok) {
      throw new InvalidObjectError(keyOf(change.object), result.issues);
    }
  }
}

function keyOf(set: DNSRecordSet): ObjectKey {
  return {
    kind: "DNSRecordSet",
    namespace: set.metadata.namespace ?? "",
    name: set.metadata.name,
  };
}

/** What a build of the zone after the edits says about the record sets written. */
function problemsOf(
  zone: DNSZone,
  sets: DNSRecordSet[],
  now: number,
  changes: readonly RecordSetChange[],
): RecordSetProblem[] {
  const written = new Set(
    changes.map((ch) =>
      `${ch.object.metadata.namespace}/${ch.object.metadata.name}`
    ),
  );
  return buildZoneContent(zone, sets, new Date(now)).problems
    .filter((p) => written.has(`${p.recordSet.namespace}/${p.recordSet.name}`))
    .slice(0, MAX_REPORTED_PROBLEMS);
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
