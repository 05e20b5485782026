/**
 * A zone's records without the objects that hold them: the flat list
 * (GET), one record added (POST) or removed (DELETE), at
 * /api/v1/dnszones/{zone}/records.
 *
 * Writes go through the Store as manager "api" into the record sets the
 * API manages for the zone (zone_records.ts). A record that a file's (or an
 * integration's) record set declares is answered 409 `managed_by` naming
 * it, on add and on remove.
 */
import { requestOrigin } from "../request_origin.ts";
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { DNSZone } from "../../api/v1alpha1/dnszone.ts";
import { MAX_TTL } from "../../api/v1alpha1/field_schemas.ts";
import { checkDomainName, isSubdomainOf } from "../../dns/name.ts";
import { RECORD_TYPES, typeCode } from "../../dns/rdata_text.ts";
import { zoneNameOf } from "../../zone/content_apex.ts";
import { endpointTypeName } from "../../zone/zone_file_parse.ts";
import { ManagedByError } from "../../store/store.ts";
import { ok } from "../envelope.ts";
import { ApiError, invalidBody } from "../errors.ts";
import { jsonBody, objectBody } from "../json_body.ts";
import type { RoutesTable } from "../routes_table.ts";
import type { FieldIssue } from "../../api/v1alpha1/validate.ts";
import { API_MANAGER, refuseIfReadOnly } from "./objects.ts";
import { dataContent, errorResponses } from "./openapi_parts.ts";
import {
  type ForeignRecord,
  ownerOf,
  recordKey,
  type RecordRow,
  type RecordSetRef,
  ZoneRecordEditor,
} from "./zone_records.ts";
import {
  BadRowCursorError,
  recordRows,
  rowCursor,
  rowsAfter,
} from "./zone_record_rows.ts";
import { queryInteger } from "./request_parts.ts";
import {
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

/** Rows one page of the flat list holds at most. */
const MAX_ROWS_PAGE = 1000;

const recordRow = z.object({
  recordSet: recordSetRef,
  managedBy: z.string(),
  name: z.string().openapi({ description: "The owner, fully qualified" }),
  type: z.string(),
  ttl: z.number().int(),
  data: z.string(),
  disabled: z.literal(true).optional(),
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

/** The zone record routes. */
export function zoneRecordRoutes(deps: ZoneRoutesDeps) {
  const now = deps.now ?? Date.now;
  // The rows of the zone listed last, by the versions they were read at:
  // a zone of thousands of records is paged without reading and sorting
  // all of them again for every page. Any write moves the Store's version.
  let listed: { key: string; rows: RecordRow[] } | undefined;
  const zoneRows = async (zone: DNSZone): Promise<RecordRow[]> => {
    const { resourceVersion } = await deps.store.list("DNSRecordSet", {
      limit: 1,
    });
    const key = JSON.stringify([
      zone.metadata.name,
      zone.metadata.resourceVersion,
      resourceVersion,
    ]);
    if (listed?.key === key) return listed.rows;
    const rows = recordRows(zone, await listRecordSets(deps.store));
    listed = { key, rows };
    return rows;
  };
  return (routes: RoutesTable): void => {
    routes.define({
      method: "get",
      path: "/api/v1/dnszones/{zone}/records",
      guard: { resource: "dnsrecordsets", verb: "list", scope: zoneScope },
      openapi: {
        tags: ["Records"],
        summary: "List a zone's records, one row per record",
        description:
          "Every target of every endpoint of every DNSRecordSet whose zoneRef is the zone, in canonical name order, then type, record set and data. `name` and `type` narrow the list; with `limit` it comes in pages, each with `continue` while more follow.",
        request: {
          params: zoneParam,
          query: z.object({
            name: z.string().optional(),
            type: z.string().optional(),
            limit: z.string().optional().openapi({
              description:
                `Rows per page, 1 to ${MAX_ROWS_PAGE}; all when absent`,
            }),
            continue: z.string().optional().openapi({
              description: "The `continue` of the previous page",
            }),
          }),
        },
        responses: {
          200: {
            description: "The records",
            content: dataContent(z.object({
              zone: z.object({
                name: z.string(),
                zoneName: z.string(),
                defaultTTL: z.number().int(),
                serial: z.number().int().optional(),
              }),
              items: z.array(recordRow),
              continue: z.string().optional().openapi({
                description:
                  "Pass as `continue` for the next page; absent at the end",
              }),
            })),
          },
          ...errorResponses,
        },
      },
    }, async (c) => {
      const zone = await getZone(deps.store, c.req.param("zone")!);
      let items = await zoneRows(zone);
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
      const token = c.req.query("continue");
      if (token) {
        try {
          items = rowsAfter(items, token);
        } catch (err) {
          if (!(err instanceof BadRowCursorError)) throw err;
          throw new ApiError("bad_request", err.message, {
            hint: "start again without continue",
          });
        }
      }
      const limit = queryInteger(c, "limit", 1, MAX_ROWS_PAGE);
      let next: string | undefined;
      if (limit !== undefined && items.length > limit) {
        items = items.slice(0, limit);
        next = rowCursor(items[limit - 1]!);
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
        ...(next !== undefined && { continue: next }),
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
            content: dataContent(z.object({
              record: recordRow,
              problems: z.array(problem),
            })),
          },
          200: {
            description: "The record was there already",
            content: dataContent(z.object({
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
            content: dataContent(z.object({ removed: z.array(recordRow) })),
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

function sameRef(a: RecordSetRef, b: RecordSetRef): boolean {
  return a.namespace === b.namespace && a.name === b.name;
}
